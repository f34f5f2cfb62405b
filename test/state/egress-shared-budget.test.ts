// Issue 34, must show: four runners × 100 stores behind one egress IP, each runner a process of the
// built CLI in its own folder and HOME, sharing the IP's budget live through the postgres backend
// (one egress name) and nothing else: the emulators, judging the IP as the service does, record no
// violation. (How long the four take against one process planning all 400 is a speed target:
// `npm run bench:fleet -- --only runners` measures it; this test prints the two times.)
// Accounts are only read (a fleet plan), so the four and the one do the same work. The rules and
// the governor are scaled alike, as in test/cli/ip-ledger-concurrent.test.ts: a tenth of the
// thresholds (`--ip-runners 10` keeps the governor's margin under them) and a fifth of the windows
// (ERPSYNC_IP_WINDOW_SCALE=0.2): one window is 2 s and 60 requests, so the budget (48 a window, 24
// a second) binds one runner alone, below what a busy machine sends — four runners that did not
// share it would break the rule (measured: each runner naming an egress of its own, 12 violations).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIpLedger, serviceIpRules } from '../../src/emulator/index.js';
import type { IpLedger } from '../../src/emulator/index.js';
import { ensureBuiltCli } from '../reliability/support/built-cli.js';
import type { Exit } from '../reliability/support/built-cli.js';
import { openFleetAccounts, storeName } from '../support/fleet.js';
import type { FleetAccounts } from '../support/fleet.js';
import { freshBackend } from '../support/postgres.js';
import type { TestBackend } from '../support/postgres.js';
import { mostInWindow } from '../support/windows.js';
import { openRunnerFolder } from './support/runner-folders.js';
import type { RunnerFolder } from './support/runner-folders.js';

const runnerCount = 4;
const perRunner = 100;
const thresholdScale = 10;
const windowScale = 5;
const rules = serviceIpRules.map((rule) => ({ ...rule, limit: rule.limit / thresholdScale, windowMs: rule.windowMs / windowScale }));
const runEnv = { ERPSYNC_IP_WINDOW_SCALE: String(1 / windowScale), ERPSYNC_IP_RUNNERS: String(thresholdScale), ERPSYNC_EGRESS: 'escritorio' };

let root = '';
let ledger: IpLedger;
let fleet: FleetAccounts;
let backend: TestBackend;
const runners: RunnerFolder[] = [];

beforeAll(async () => {
  await ensureBuiltCli();
  root = mkdtempSync(path.join(tmpdir(), 'erpsync-egress-'));
  // Violations are recorded, not enforced: a failure shows every rule broken, not the first block.
  ledger = createIpLedger({ rules, enforce: false });
  fleet = await openFleetAccounts(root, runnerCount * perRunner, () => ({ manifests: ['grupos.yaml'] }), { ipRules: ledger });
  backend = freshBackend();
  const files = { 'erpsync.config.yaml': readFileSync(path.join(root, 'erpsync.config.yaml'), 'utf8'), 'grupos.yaml': 'version: 1\ngruposProdutos:\n  - nome: Revenda\n' };
  for (const name of ['one', ...Array.from({ length: runnerCount }, (_, r) => `runner-${r}`)]) runners.push(openRunnerFolder(root, name, { ...fleet.env, ...backend.env, ...runEnv }, files));
}, 180_000);

afterAll(async () => {
  await fleet.close();
  await backend.drop();
  rmSync(root, { recursive: true, force: true });
});

/** Runs `plans` at once; resolves to their exits and the wall time from the first start to the last exit. */
async function timed(plans: { runner: RunnerFolder; targets: string }[]): Promise<{ exits: Exit[]; ms: number }> {
  const started = performance.now();
  const exits = await Promise.all(plans.map(({ runner, targets }) => runner.run(['plan', '--target', targets, '--json']).exit));
  return { exits, ms: performance.now() - started };
}

const arrivals = (): number[] => fleet.stores.flatMap((store) => store.emulator.requestLog().map((entry) => entry.at));

describe('four runners × 100 stores on one egress name, sharing its budget through postgres', () => {
  it('break no per-IP rule, doing the work of one process running all 400 stores', async () => {
    const [one, ...four] = runners;
    if (!one) throw new Error('no runners');
    const alone = await timed([{ runner: one, targets: 'lojas/*' }]);
    for (const exit of alone.exits) expect(exit.code, exit.stderr).toBe(0);
    const aloneRequests = arrivals().length;
    for (const store of fleet.stores) store.emulator.clearLog();

    const together = await timed(four.map((runner, r) => ({ runner, targets: Array.from({ length: perRunner }, (_, k) => storeName(r * perRunner + k + 1)).join(',') })));
    for (const exit of together.exits) expect(exit.code, exit.stderr).toBe(0);
    const times = arrivals();
    // The same work both times, each more than a few windows' worth of the IP's budget.
    expect(times.length).toBe(aloneRequests);
    expect(times.length).toBeGreaterThan(5 * (rules[0]?.limit ?? 0));
    expect(ledger.violations()).toEqual([]);
    expect(mostInWindow(times, rules[0]?.windowMs ?? 0)).toBeLessThanOrEqual(rules[0]?.limit ?? 0);
    console.log(`four runners on one egress: ${Math.round(together.ms)} ms; one process with all 400 stores: ${Math.round(alone.ms)} ms (${(together.ms / alone.ms).toFixed(2)}x)`);
  }, 600_000);
});
