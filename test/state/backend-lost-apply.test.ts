// Issue 34, must show: PostgreSQL stopped mid-apply. The apply's first create is in flight when
// the server is shut down (as an operator or a failover does: sessions ended); the run stops before
// its next write, saying what it wrote, and exits 1. While the server is down, an apply is refused
// (exit 3) before any request reaches the account, naming the variable. After a restart a re-run
// completes, and `history` from another folder holds every write that reached the account — the
// one answered after the server went away included (kept in the local journal, pushed by the next
// run). A private throwaway server for this file (scripts/test-postgres.mjs), since it is stopped;
// real processes of the built CLI against an emulated account whose creates are slowed.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findDuplicates } from '../reliability/support/account.js';
import { ensureBuiltCli } from '../reliability/support/built-cli.js';
import { groupNamesOf, groupsManifest } from '../support/account.js';
import { eventually } from '../support/eventually.js';
import { openFleetAccounts, storeName } from '../support/fleet.js';
import type { FleetAccounts } from '../support/fleet.js';
import { freshBackend } from '../support/postgres.js';
import type { TestBackend } from '../support/postgres.js';
// @ts-expect-error -- a plain ES module script, typed by its use here
import { haltTestPostgres, restartTestPostgres, startTestPostgres, stopTestPostgres } from '../../scripts/test-postgres.mjs';
import { openRunnerFolder } from './support/runner-folders.js';

interface TestServer {
  url: string;
  dir: string;
  port: number;
}
const server = {
  start: startTestPostgres as () => Promise<TestServer>,
  halt: haltTestPostgres as (dir: string) => Promise<void>,
  restart: restartTestPostgres as (started: TestServer) => Promise<void>,
  stop: stopTestPostgres as (dir: string) => Promise<void>,
};

const names = Array.from({ length: 8 }, (_, i) => `Grupo ${String(i + 1).padStart(2, '0')}`);

let root = '';
let fleet: FleetAccounts;
let database: TestServer;
let backend: TestBackend;

beforeAll(async () => {
  await ensureBuiltCli();
  root = mkdtempSync(path.join(tmpdir(), 'erpsync-backend-lost-'));
  fleet = await openFleetAccounts(root, 1, () => ({ manifests: ['grupos.yaml'] }));
  database = await server.start();
  backend = freshBackend(database.url);
}, 120_000);

afterAll(async () => {
  await fleet.close();
  await server.stop(database.dir);
  rmSync(root, { recursive: true, force: true });
});

interface HistoryChange {
  action: string;
  kind: string;
  key: string;
  outcome: string;
  id?: number;
}

describe('the postgres backend stopped mid-apply', () => {
  it('stops the run before its next write; a run while it is down is refused untouched; after a restart a re-run completes and the journal holds every write', async () => {
    const store = fleet.stores[0];
    if (!store) throw new Error('no store');
    const account = store.emulator;
    // One create at a time, each held 0.4 s by the account: the first is in flight when the server stops.
    account.setFaults({ probability: 1, kinds: ['latency'], methods: ['POST'], latencyMs: 400 });
    const config = readFileSync(path.join(root, 'erpsync.config.yaml'), 'utf8');
    // The re-run takes over the lease the cut run could not let go, then waits out what it may have had in
    // flight: a short lease and outcome window (the account holds a create 0.4 s) keep that wait short.
    const shared = { ...fleet.env, ...backend.env, ERPSYNC_LOCK_LEASE_MS: '3000', ERPSYNC_OUTCOME_WAIT: '2' };
    const runner = openRunnerFolder(root, 'runner', shared, { 'erpsync.config.yaml': config, 'grupos.yaml': groupsManifest(names) });
    const writes = () => account.requestLog().filter((entry) => entry.method !== 'GET');
    const apply = ['apply', '--target', storeName(1), '--auto-approve', '--concurrency', '1'];

    const cut = runner.run(apply);
    await eventually(() => expect(writes().length).toBeGreaterThan(0));
    await server.halt(database.dir);
    const writtenWhenHalted = writes().length;
    const lost = await cut.exit;
    expect(lost.code, lost.stderr).toBe(1);
    expect(lost.stderr).toMatch(/the state backend at 127\.0\.0\.1:\d+\/postgres \(ERPSYNC_DATABASE_URL\) cannot be reached: .+; this run stopped writing/);
    expect(lost.stderr).toMatch(/reach the backend with the next run/);
    // No write after the server went away; the one in flight reached the account, and the run says so.
    expect(writes()).toHaveLength(writtenWhenHalted);
    const reached = account.snapshot().gruposProdutos.map((g) => ({ id: g.id, nome: g.nome }));
    expect(reached.length).toBeGreaterThan(0);
    expect(lost.stderr).toContain(`sent before it stopped (${reached.length}):\n${reached.map((group) => `    create gruposProdutos ${group.nome}\n`).join('')}`);

    // Down at the start: refused before any request reaches the account, naming the variable.
    const requestsBefore = account.requestLog().length;
    const refused = await runner.run(apply).exit;
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toMatch(/ERPSYNC_DATABASE_URL/);
    expect(account.requestLog()).toHaveLength(requestsBefore);

    await server.restart(database);
    const rerun = await runner.run(apply).exit;
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toMatch(/took over the lock of `erpsync apply` \(pid \d+ on .+\), which stopped/);
    expect(groupNamesOf(account)).toEqual(names);
    expect(findDuplicates(account.snapshot())).toEqual([]);

    // From a folder that never ran an apply: both runs, and every create that reached the account.
    const reader = openRunnerFolder(root, 'reader', backend.env, { 'erpsync.config.yaml': config });
    const listed = await reader.run(['history', '--json']).exit;
    expect(listed.code, listed.stderr).toBe(0);
    const runs = (JSON.parse(listed.stdout) as { runs: { run: string }[] }).runs;
    expect(runs).toHaveLength(2);
    const createdBy = async (run: string): Promise<number[]> => {
      const shown = await reader.run(['history', run, '--json']).exit;
      expect(shown.code, shown.stderr).toBe(0);
      const { changes } = JSON.parse(shown.stdout) as { changes: HistoryChange[] };
      return changes.filter((c) => c.action === 'create' && c.outcome === 'applied').map((c) => c.id ?? -1);
    };
    const [cutRun, rerunRun] = runs.map((r) => r.run);
    expect((await createdBy(cutRun ?? '')).sort()).toEqual(reached.map((g) => g.id).sort());
    const all = [...(await createdBy(cutRun ?? '')), ...(await createdBy(rerunRun ?? ''))].sort();
    expect(all).toEqual(account.snapshot().gruposProdutos.map((g) => g.id).sort());
  }, 180_000);
});
