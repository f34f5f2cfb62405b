// `erpsync doctor` against the emulator in each reading: it reports the differences the reading
// introduces, sends only GETs (the emulator's request log), and says how many it sent.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator, EmulatorOptions } from '../../src/emulator/index.js';
import { runCli } from '../support/run-cli.js';

const emulators: Emulator[] = [];
afterEach(async () => {
  for (const emulator of emulators.splice(0)) await emulator.close();
});

interface DoctorJson {
  requests: number;
  writes: number;
  exitCode: number;
  checks: { subject: string; status: string; found: string; action: string }[];
}

/** The most requests a doctor run may send: the probes are fixed, one list page each. */
const maxRequests = 32;

async function doctor(options: EmulatorOptions) {
  const emulator = await createEmulator({ seed: 'fresh', rateLimit: 0, ...options });
  emulators.push(emulator);
  const cwd = await mkdtemp(join(tmpdir(), 'erpsync-doctor-'));
  const run = await runCli(['doctor', '--json', '--base-url', emulator.baseUrl, '--rate', '1000'], { cwd, env: { BLING_ACCESS_TOKEN: emulator.token } });
  const report = JSON.parse(run.stdout) as DoctorJson;
  const log = emulator.requestLog();
  // Never a write, and exactly the count it states.
  expect(log.filter((e) => e.method !== 'GET')).toEqual([]);
  expect(report.requests).toBe(log.length);
  expect(report.requests).toBeLessThanOrEqual(maxRequests);
  expect(report.writes).toBe(0);
  expect(run.code).toBe(report.exitCode);
  const differing = report.checks.filter((c) => c.status === 'differs' || c.status === 'fails').map((c) => `${c.status} ${c.subject}`);
  return { run, report, differing };
}

describe('erpsync doctor', () => {
  it('finds every assumption holding on a strict sandbox (exit 0)', async () => {
    const { report, differing, run } = await doctor({ mode: 'strict', readings: [] });
    expect(differing).toEqual([]);
    expect(run.code).toBe(0);
    expect(report.checks.map((c) => c.subject)).toEqual(
      expect.arrayContaining(['token host', 'scope of /formas-pagamentos (formasPagamentos)', 'paging of /categorias/receitas-despesas', 'list versus detail of /formas-pagamentos', 'reverse-logistics filter of /logisticas', 'rate-limit answers']),
    );
  });

  it('reports the list that ignores limite in lenient mode (exit 2)', async () => {
    const { differing, run, report } = await doctor({ mode: 'lenient', readings: [] });
    expect(differing).toEqual(['differs paging of /categorias/receitas-despesas']);
    expect(run.code).toBe(2);
    expect(report.checks.find((c) => c.subject === 'paging of /categorias/receitas-despesas')?.found).toBe('answered 62 records to limite=1 (limite ignored)');
  });

  it.each([
    ['categories-unpaged', ['differs paging of /categorias/receitas-despesas']],
    ['reverse-logistics-hidden', ['differs reverse-logistics filter of /logisticas']],
    // Write-side readings cannot be seen without writing: doctor says how erpsync is safe under them.
    ['put-resets-padrao', []],
    ['names-truncated', []],
    ['float-noise', []],
    ['formatted-codes', []],
  ] as const)('reports what the reading %s introduces', async (reading, expected) => {
    const { differing, report } = await doctor({ mode: 'strict', readings: [reading] });
    expect(differing).toEqual(expected);
    expect(report.checks.filter((c) => c.status === 'unknown').map((c) => c.subject)).toEqual(expect.arrayContaining(['a PUT that omits a field', 'values stored in another form', 'long names']));
  });

  it('fails (exit 1) naming each kind whose scope the token lacks', async () => {
    const { differing, run } = await doctor({ scopes: ['empresas', 'formas-pagamentos', 'categorias-receitas-despesas', 'logisticas'] });
    expect(run.code).toBe(1);
    expect(differing).toEqual(expect.arrayContaining(['fails scope of /grupos-produtos (gruposProdutos)', 'fails scope of /depositos (depositos)']));
    expect(differing.some((d) => d.includes('/formas-pagamentos'))).toBe(false);
  });

  it('prints the checks as text, with the account and the request count, for the sandbox in the reading its environment names', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'erpsync-doctor-'));
    const run = await runCli(['doctor', '--sandbox'], { cwd, env: { ERPSYNC_EMULATOR_MODE: 'lenient' } });
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(/^Account: Loja Sandbox Ltda .*\nDoctor: \d+ read-only request\(s\), no writes\./);
    expect(run.stdout).toContain('DIFFERS  paging of /categorias/receitas-despesas: answered 62 records to limite=1 (limite ignored)');
    expect(run.stdout).toMatch(/\d+ hold, 1 differ, 0 fail, \d+ cannot be told \(exit 2\)\./);
  });
});
