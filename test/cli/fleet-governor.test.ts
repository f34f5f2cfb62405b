// A fleet cannot break the service's per-IP rules, whatever --parallel says: every store's
// requests pass the process's one governor. The accounts are emulators sharing one ledger of the
// per-IP rules (one machine, as the service sees it), at a tenth of the service's thresholds,
// and the fleet runs with `--ip-runners 10` (a tenth of the budget, margin kept), so one
// window's worth of the rule is a few dozen requests and the test stays short.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, createIpLedger, serviceIpRules } from '../../src/emulator/index.js';
import type { Emulator, IpLedger } from '../../src/emulator/index.js';
import type { FleetReport } from '../../src/model/fleet.js';
import { runCli } from '../support/run-cli.js';

const size = 70;
const scale = 10;
let dir = '';
let ledger: IpLedger;
const env: NodeJS.ProcessEnv = {};
const emulators: Emulator[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-governor-'));
  env.ERPSYNC_LOCK_DIR = path.join(dir, '.locks');
  ledger = createIpLedger({ rules: serviceIpRules.map((rule) => ({ ...rule, limit: rule.limit / scale })) });
  const config = ['version: 1', 'targets:'];
  for (let i = 0; i < size; i += 1) {
    const emulator = await createEmulator({ rateLimit: 0, ipRules: ledger, company: { id: `conta-${i}`, nome: `Loja ${i} Ltda` } });
    emulators.push(emulator);
    env[`TOKEN_${i}`] = emulator.token;
    config.push(`  loja-${i}:`, `    baseUrl: ${emulator.baseUrl}`, `    credentials: { tokenEnv: TOKEN_${i} }`, '    rate: 1000');
  }
  writeFileSync(path.join(dir, 'erpsync.config.yaml'), `${config.join('\n')}\n`);
});

afterAll(async () => {
  await Promise.all(emulators.map((e) => e.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe('the request governor holds a fleet to the per-IP rules', () => {
  it('--parallel 100 over 70 accounts: every store answers, and the IP never breaks a rule', async () => {
    const run = await runCli(['targets', '--check', '--json', '--parallel', '100', '--ip-runners', String(scale)], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    const { include } = JSON.parse(run.stdout) as { include: { target: string; account?: string }[] };
    expect(include.map((e) => e.account).sort()).toEqual(Array.from({ length: size }, (_, i) => `Loja ${i} Ltda`).sort());
    const sent = emulators.reduce((sum, e) => sum + e.requestLog().length, 0);
    // More than one window's worth of the scaled rule went out, so the governor had to hold some back.
    expect(sent).toBeGreaterThan(serviceIpRules[0]!.limit / scale);
    expect(ledger.violations()).toEqual([]);
    expect(ledger.refused()).toBe(0);
  });

  it('a fleet plan straight after stays inside the rules too', async () => {
    writeFileSync(path.join(dir, 'base.yaml'), 'version: 1\ngruposProdutos:\n  - nome: Revenda\n');
    const run = await runCli(['plan', 'base.yaml', '--target', 'loja-1*', '--json', '--parallel', '100', '--ip-runners', String(scale)], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    const { rows } = JSON.parse(run.stdout) as FleetReport;
    expect(rows).toHaveLength(11);
    expect(rows.every((r) => r.changes === 1)).toBe(true);
    expect(ledger.violations()).toEqual([]);
  });
});
