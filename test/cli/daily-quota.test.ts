// The account's daily quota, end to end through the CLI against the emulator over HTTP, in both
// modes: an apply whose plan needs more requests than are left stops before its first write; a
// daily 429 in the middle of an apply stops it at once, no request sent again, and the next run
// sends nothing at all; the count of requests lives on across runs and agrees with the account's;
// and in a fleet, an account out of quota stops its own stores (both targets that reach it), not
// the others.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator, EmulatorMode } from '../../src/emulator/index.js';
import type { FleetReport } from '../../src/model/fleet.js';
import type { Plan } from '../../src/model/plan.js';
import { closeTestAccount, groupNamesOf, groupsManifest } from '../support/account.js';
import type { TestAccount } from '../support/account.js';
import { runCli } from '../support/run-cli.js';

const opened: TestAccount[] = [];
const extra: Emulator[] = [];
afterEach(async () => {
  for (const account of opened.splice(0)) await closeTestAccount(account);
  for (const emulator of extra.splice(0)) await emulator.close();
});

async function openAccount(mode: EmulatorMode): Promise<TestAccount> {
  const emulator = await createEmulator({ seed: 'fresh', rateLimit: 0, mode });
  const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-quota-'));
  const account = { emulator, dir, env: { BLING_ACCESS_TOKEN: emulator.token, ERPSYNC_BASE_URL: emulator.baseUrl, ERPSYNC_RATE: '1000', ERPSYNC_LOCK_DIR: path.join(dir, '.locks') } };
  opened.push(account);
  return account;
}

/** One target `loja` on the account, allowed `dailyQuota` requests a day. */
function writeConfig(dir: string, emulator: Emulator, dailyQuota?: number): void {
  const lines = ['version: 1', 'targets:', '  loja:', `    baseUrl: ${emulator.baseUrl}`, '    credentials: { tokenEnv: BLING_ACCESS_TOKEN }', '    rate: 1000'];
  if (dailyQuota !== undefined) lines.push(`    dailyQuota: ${dailyQuota}`);
  writeFileSync(path.join(dir, 'erpsync.config.yaml'), `${lines.join('\n')}\n`);
}

interface StoredCount {
  day: string;
  accounts: Record<string, { sent: number; spent?: true }>;
  targets: Record<string, string>;
}

const countIn = (dir: string) => JSON.parse(readFileSync(path.join(dir, '.erpsync', 'requests-per-day.json'), 'utf8')) as StoredCount;
const accountIdOf = (emulator: Emulator) => emulator.snapshot().empresa.id;
const writesIn = (emulator: Emulator) => emulator.requestLog().filter((e) => e.method !== 'GET');
const tenGroups = groupsManifest(Array.from({ length: 10 }, (_, i) => `Grupo ${i + 1}`));

describe.each(['strict', 'lenient'] as const)('the daily quota (%s mode)', (mode) => {
  it('stops an apply whose plan needs more than is left before any write, naming predicted against left; the count agrees with the account', async () => {
    const { emulator, dir, env } = await openAccount(mode);
    writeConfig(dir, emulator);
    writeFileSync(path.join(dir, 'm.yaml'), tenGroups);
    const planned = await runCli(['plan', 'm.yaml', '--target', 'loja', '--out', 'plan.json'], { cwd: dir, env });
    expect(planned.code, planned.stderr).toBe(0);
    const { cost } = JSON.parse(readFileSync(path.join(dir, 'plan.json'), 'utf8')) as Plan;
    const needed = cost.writes + (cost.verifyReads ?? 0);
    const reads = emulator.requestsToday();
    expect(countIn(dir).accounts[accountIdOf(emulator)]).toEqual({ sent: reads });

    // The apply reads the account again (as many requests as the plan did): then one request short.
    writeConfig(dir, emulator, 2 * reads + needed - 1);
    const before = emulator.snapshot();
    const refused = await runCli(['apply', 'm.yaml', '--target', 'loja', '--auto-approve'], { cwd: dir, env });
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toContain(`erpsync: the plan needs ${needed} requests but only ${needed - 1} of the account's daily quota are left (${2 * reads} of ${2 * reads + needed - 1} counted today); nothing was written`);
    expect(refused.stderr).toContain('renews at midnight in São Paulo');
    expect(writesIn(emulator)).toEqual([]);
    expect(emulator.snapshot()).toEqual(before);

    // With room for it, the same apply goes through; every request of the three runs was counted.
    writeConfig(dir, emulator, 3 * reads + needed + reads);
    const applied = await runCli(['apply', 'm.yaml', '--target', 'loja', '--auto-approve'], { cwd: dir, env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(groupNamesOf(emulator)).toHaveLength(10);
    expect(countIn(dir).accounts[accountIdOf(emulator)]).toEqual({ sent: emulator.requestsToday() });
  });

  it('stops at a daily 429 in the middle of an apply without sending anything again, and the next run sends nothing', async () => {
    const { emulator, dir, env } = await openAccount(mode);
    writeFileSync(path.join(dir, 'm.yaml'), tenGroups);
    expect((await runCli(['plan', 'm.yaml'], { cwd: dir, env })).code).toBe(0);
    const reads = emulator.requestsToday();
    // The account's other integrations spent the day: after this run's reads and three writes, nothing is left.
    emulator.setDailyLimit(2 * reads + 3);
    emulator.clearLog();
    const stopped = await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env });
    expect(stopped.code, stopped.stdout + stopped.stderr).toBe(3);
    expect(stopped.stderr).toContain("the account's daily request quota is used up (the service answered 429 for the day); this run stopped sending");
    expect(stopped.stderr).toMatch(/sent before it stopped \(3\):/);
    expect(groupNamesOf(emulator)).toHaveLength(3);

    const log = emulator.requestLog();
    const first429 = log.findIndex((e) => e.status === 429);
    expect(first429).toBe(reads + 3);
    // Only the writes already in flight (3 at once) arrive after the first daily 429: none is sent again, nothing else is sent.
    const after = log.slice(first429);
    expect(after.length).toBeLessThanOrEqual(3);
    expect(after.every((e) => e.status === 429 && e.method === 'POST')).toBe(true);
    expect(countIn(dir).accounts[accountIdOf(emulator)]).toMatchObject({ spent: true });

    // The count learned that nothing is left today: the next run stops before its first request.
    emulator.clearLog();
    const next = await runCli(['plan', 'm.yaml'], { cwd: dir, env });
    expect(next.code).toBe(3);
    expect(next.stderr).toContain("erpsync: the account's daily request quota is used up (the service answered 429 for the day to a run today); nothing was sent");
    expect(emulator.requestLog()).toEqual([]);
  });
});

describe('the daily quota across a fleet', () => {
  it('stops the stores of an account out of quota — both targets that reach it — and applies the others', async () => {
    const { emulator: spentAccount, dir, env } = await openAccount('strict');
    const other = await createEmulator({ seed: 'fresh', rateLimit: 0 });
    extra.push(other);
    const config = [
      'version: 1',
      'targets:',
      ...['lojas/a', 'lojas/b'].flatMap((name) => [`  ${name}:`, `    baseUrl: ${spentAccount.baseUrl}`, '    credentials: { tokenEnv: BLING_ACCESS_TOKEN }', '    manifests: [m.yaml]', '    rate: 1000']),
      '  lojas/c:',
      `    baseUrl: ${other.baseUrl}`,
      '    credentials: { tokenEnv: OTHER_TOKEN }',
      '    manifests: [m.yaml]',
      '    rate: 1000',
    ];
    writeFileSync(path.join(dir, 'erpsync.config.yaml'), `${config.join('\n')}\n`);
    writeFileSync(path.join(dir, 'm.yaml'), groupsManifest(['Maquiagem']));
    // Each target names its own base URL: none comes from the environment.
    const { ERPSYNC_BASE_URL: _shared, ...rest } = env;
    const fleetEnv = { ...rest, OTHER_TOKEN: other.token };
    // A first run learns which account each target reaches; then the shared account's day runs out.
    expect((await runCli(['targets', '--check', '--target', 'lojas/*'], { cwd: dir, env: fleetEnv })).code).toBe(0);
    spentAccount.setDailyLimit(spentAccount.requestsToday());
    spentAccount.clearLog();

    const run = await runCli(['apply', '--all-targets', '--auto-approve', '--json'], { cwd: dir, env: fleetEnv });
    expect(run.code, run.stderr).toBe(3);
    const report = JSON.parse(run.stdout) as FleetReport;
    const rows = Object.fromEntries(report.rows.map((r) => [r.target, r]));
    expect(rows['lojas/c']).toMatchObject({ exitCode: 0, applied: 1 });
    expect(groupNamesOf(other)).toEqual(['Maquiagem']);
    // The shared account's stores: one meets the daily 429 when it reads, and from then on the count stops the other before it sends.
    for (const name of ['lojas/a', 'lojas/b']) expect(rows[name]).toMatchObject({ exitCode: 3, error: expect.stringContaining("daily request quota is used up") });
    expect(spentAccount.requestLog().filter((e) => e.status === 429).length).toBeLessThanOrEqual(2);
    expect(groupNamesOf(spentAccount)).toEqual([]);
  });
});
