// A staged fleet apply: 20 stores whose config declares a rollout for `lojas/*` (a canary of 4,
// waves of 5, halt after 2 failed stores). Two canary stores fail (their token variable is unset):
// the rollout halts after the canary, exits 1, writes nothing to the 16 stores it did not reach,
// and its report names each store's stage and state.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import type { FleetReport } from '../../src/model/fleet.js';
import { runCli } from '../support/run-cli.js';

const size = 20;
const name = (i: number) => `lojas/loja-${String(i + 1).padStart(2, '0')}`;
let dir = '';
const env: NodeJS.ProcessEnv = {};
const emulators: Emulator[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-stages-'));
  env.ERPSYNC_LOCK_DIR = path.join(dir, '.locks');
  const config = ['version: 1', 'rollouts:', '  "lojas/*": { canary: 4, waveSize: 5, haltAfter: 2 }', 'targets:'];
  for (let i = 0; i < size; i += 1) {
    const emulator = await createEmulator({ rateLimit: 0, company: { id: `conta-${i}`, nome: `Loja ${i + 1} Ltda` } });
    emulators.push(emulator);
    // The second and third stores, both in the canary, have no token: they fail.
    if (i !== 1 && i !== 2) env[`TOKEN_${i}`] = emulator.token;
    config.push(`  ${name(i)}:`, `    baseUrl: ${emulator.baseUrl}`, `    credentials: { tokenEnv: TOKEN_${i} }`, '    manifests: [manifests]', '    rate: 1000');
  }
  writeFileSync(path.join(dir, 'erpsync.config.yaml'), `${config.join('\n')}\n`);
  mkdirSync(path.join(dir, 'manifests'));
  writeFileSync(path.join(dir, 'manifests/grupos.yaml'), 'version: 1\ngruposProdutos:\n  - nome: Revenda\n');
});

afterAll(async () => {
  await Promise.all(emulators.map((e) => e.close()));
  rmSync(dir, { recursive: true, force: true });
});

const groups = (e: Emulator) => e.snapshot().gruposProdutos.map((g) => g.nome);

describe('a staged fleet apply', () => {
  it('halts after two failed canary stores, before the waves: exit 1, every store named with its state', async () => {
    const run = await runCli(['apply', '--all-targets', '--auto-approve', '--json'], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(1);
    const { rows } = JSON.parse(run.stdout) as FleetReport;
    expect(rows.map((r) => r.target)).toEqual(Array.from({ length: size }, (_, i) => name(i)));
    const canary = rows.slice(0, 4);
    expect(canary.map((r) => r.stage)).toEqual(['canary', 'canary', 'canary', 'canary']);
    expect(canary.map((r) => [r.applied ?? 0, r.error === undefined])).toEqual([
      [1, true],
      [0, false],
      [0, false],
      [1, true],
    ]);
    const rest = rows.slice(4);
    expect(rest.map((r) => r.stage)).toEqual(['wave 1', 'wave 1', 'wave 1', 'wave 1', 'wave 1', 'wave 2', 'wave 2', 'wave 2', 'wave 2', 'wave 2', 'wave 3', 'wave 3', 'wave 3', 'wave 3', 'wave 3', 'wave 4']);
    for (const row of rest) expect(row.skipped).toBe('halted after 2 failed store(s) in the canary stage');
    emulators.forEach((e, i) => expect(groups(e).includes('Revenda'), name(i)).toBe(i === 0 || i === 3));
  });

  it('the text table says it too; with the flags, the canary is named and the waves go on while failures stay under the halt', async () => {
    const run = await runCli(['apply', '--all-targets', '--auto-approve', '--canary', 'lojas/loja-05,lojas/loja-06', '--wave-size', '10', '--halt-after', '3'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^lojas\/loja-05\s.*canary: 1 applied/m);
    expect(run.stdout).toMatch(/^lojas\/loja-02\s.*wave 1: error: /m);
    expect(run.stdout).toMatch(/^lojas\/loja-20\s.*wave 2: 1 applied/m);
    expect(run.stdout).toContain('2 failed');
    emulators.forEach((e, i) => expect(groups(e).includes('Revenda'), name(i)).toBe(i !== 1 && i !== 2));
  });
});
