// `import` runs its stores through the fleet's one scheduler, as plan, apply and drift do: as many
// stores at a time as the request budget keeps busy, --parallel only lowering it. Each account is
// its own emulator, so the stores in flight at once are read from the emulators' request logs (a
// store's first to last request): with accounts paced at 1000 req/s the budget (48 req/s for the
// whole IP) keeps one store busy, so one runs at a time however many --parallel allows; at 60 req/s
// it keeps two busy.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { fleetWidth } from '../../src/workflows/fleet-budget.js';
import { ipBudgetOf } from '../../src/api/index.js';
import { runCli } from '../support/run-cli.js';

const size = 4;
let dir = '';
const env: NodeJS.ProcessEnv = { CI: 'true' };
const emulators: Emulator[] = [];
const run = (args: string[]) => runCli(args, { cwd: dir, env });

function writeConfig(rate: number): void {
  const config = ['version: 1', 'targets:'];
  emulators.forEach((emulator, i) => {
    config.push(`  loja-${i}:`, `    baseUrl: ${emulator.baseUrl}`, `    credentials: { tokenEnv: TOKEN_${i} }`, `    rate: ${rate}`, `    manifests: [base.yaml, overlays/loja-${i}]`);
  });
  writeFileSync(path.join(dir, 'erpsync.config.yaml'), `${config.join('\n')}\n`);
}

/** The most stores that had a request in flight at once: each store's first to last request, swept. */
function storesAtOnce(): number {
  const spans = emulators.map((e) => e.requestLog().map((entry) => entry.at)).filter((times) => times.length > 0).map((times) => [Math.min(...times), Math.max(...times)] as const);
  expect(spans).toHaveLength(size);
  const edges = spans.flatMap(([start, end]) => [[start, 1] as const, [end, -1] as const]).sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  let now = 0;
  let most = 0;
  for (const [, step] of edges) most = Math.max(most, (now += step));
  return most;
}

const budget = (ipBudgetOf().requests * 1000) / ipBudgetOf().windowMs;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-import-scheduler-'));
  env.ERPSYNC_LOCK_DIR = path.join(dir, '.locks');
  writeFileSync(path.join(dir, 'base.yaml'), 'version: 1\ngruposProdutos:\n  - nome: Revenda\n');
  for (let i = 0; i < size; i += 1) {
    const emulator = await createEmulator({ rateLimit: 0, company: { id: `conta-${i}`, nome: `Loja ${i} Ltda` } });
    emulators.push(emulator);
    env[`TOKEN_${i}`] = emulator.token;
  }
});
beforeEach(() => {
  for (const emulator of emulators) emulator.clearLog();
});
afterAll(async () => {
  await Promise.all(emulators.map((e) => e.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe('import across a fleet goes through the fleet scheduler', () => {
  it('accounts the budget keeps one of busy run one at a time, whatever --parallel allows', async () => {
    writeConfig(1000);
    expect(fleetWidth(Array(size).fill(1000), budget, 8)).toBe(1);
    const imported = await run(['import', '--all-targets', '--parallel', '8', '--json']);
    expect(imported.code, imported.stderr).toBe(0);
    const report = JSON.parse(imported.stdout) as { stores: { target: string; size: { total: number } }[] };
    // Every store imported: its overlay holds the group Revenda it lacks, as a tombstone, beside the records it starts with.
    expect(report.stores.map((s) => s.target)).toEqual(emulators.map((_, i) => `loja-${i}`));
    expect(report.stores.every((s) => s.size.total === report.stores[0]?.size.total && s.size.total > 0)).toBe(true);
    expect(readFileSync(path.join(dir, 'overlays/loja-0/overlay.yaml'), 'utf8')).toContain('ensure: absent');
    expect(storesAtOnce()).toBe(1);
    // plan, through the same scheduler, runs them the same way.
    for (const emulator of emulators) emulator.clearLog();
    const planned = await run(['plan', '--all-targets', '--parallel', '8', '--json']);
    expect(planned.code, planned.stderr).toBe(0);
    expect(storesAtOnce()).toBe(1);
  });

  it('slower accounts run as many at a time as the budget keeps busy, and --parallel lowers it', async () => {
    writeConfig(60);
    const width = fleetWidth(Array(size).fill(60), budget, 8);
    expect(width).toBe(2);
    const imported = await run(['import', '--all-targets', '--parallel', '8']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain(`Imported ${size} store(s)`);
    const wide = storesAtOnce();
    expect(wide).toBeLessThanOrEqual(width);
    expect(wide).toBeGreaterThan(1);
    for (const emulator of emulators) emulator.clearLog();
    const capped = await run(['import', '--all-targets', '--parallel', '1']);
    expect(capped.code, capped.stderr).toBe(0);
    expect(storesAtOnce()).toBe(1);
  });
});
