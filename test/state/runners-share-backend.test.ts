// Issue 34, must show: four runners — four processes of the built CLI, each in its own empty
// working folder and HOME, sharing nothing but the PostgreSQL backend — apply overlapping parts of
// a 40-store fleet (each store in the parts of two runners), all four at once, twice (the second
// time from a new revision of the manifests). Every account is applied by one runner at a time,
// no record is created twice, and `history` from a fifth folder lists every run, each with its git
// revision and its runner. Who wrote when is seen from the accounts' side: each runner reaches the
// accounts through a recording proxy of its own (the emulator's log cannot tell clients apart).
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findDuplicates } from '../reliability/support/account.js';
import { ensureBuiltCli } from '../reliability/support/built-cli.js';
import { groupNamesOf, groupsManifest } from '../support/account.js';
import { openFleetAccounts, storeName } from '../support/fleet.js';
import type { FleetAccounts } from '../support/fleet.js';
import { freshBackend } from '../support/postgres.js';
import type { TestBackend } from '../support/postgres.js';
import { openRecordingProxy } from './support/recording-proxy.js';
import type { ProxiedRequest, RecordingProxy } from './support/recording-proxy.js';
import { openRunnerFolder } from './support/runner-folders.js';
import type { RunnerFolder } from './support/runner-folders.js';

const storeCount = 40;
const runnerCount = 4;
/** Runner r applies the 20 stores from 10·r on (wrapping): every store is in two runners' parts. */
const partOf = (runner: number): number[] => Array.from({ length: 20 }, (_, k) => (10 * runner + k) % storeCount);
const groupsOfRound = [
  ['Atacado', 'Revenda', 'Varejo'],
  ['Atacado', 'Outlet', 'Revenda', 'Sazonal', 'Varejo'],
];
/** Each round is one workflow run of GitHub Actions, each runner one of its jobs: what the journal records as the run's actor and runner. */
const ciJob = (round: number, runner: number): NodeJS.ProcessEnv => ({ GITHUB_REPOSITORY: 'agencia/lojas', GITHUB_RUN_ID: String(1000 + round), GITHUB_JOB: `runner-${runner}`, GITHUB_ACTOR: 'deployer' });
const runnerPattern = /^github agencia\/lojas run 100(\d) job runner-(\d)$/;

let root = '';
let fleet: FleetAccounts;
let backend: TestBackend;
const proxies: RecordingProxy[] = [];
const runners: RunnerFolder[] = [];

beforeAll(async () => {
  await ensureBuiltCli();
  root = mkdtempSync(path.join(tmpdir(), 'erpsync-runners-'));
  fleet = await openFleetAccounts(root, storeCount, () => ({ manifests: ['grupos.yaml'] }));
  backend = freshBackend();
  const config = readFileSync(path.join(root, 'erpsync.config.yaml'), 'utf8');
  const upstreams = fleet.stores.map((store) => store.emulator.baseUrl);
  const tokens = Object.fromEntries(Object.entries(fleet.env).filter(([name]) => name.endsWith('_TOKEN')));
  for (let r = 0; r < runnerCount; r += 1) {
    const proxy = await openRecordingProxy(upstreams);
    proxies.push(proxy);
    const throughProxy = upstreams.reduce((text, url, i) => text.replace(`baseUrl: ${url}\n`, `baseUrl: ${proxy.baseUrlOf(i)}\n`), config);
    runners.push(openRunnerFolder(root, `runner-${r}`, { ...tokens, ...backend.env }, { 'erpsync.config.yaml': throughProxy }));
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  await fleet.close();
  await backend.drop();
  rmSync(root, { recursive: true, force: true });
});

interface StoreRow {
  target: string;
  changes: number;
  applied?: number;
  error?: string;
  exitCode: number;
}

interface Round {
  /** Each runner's revision of the manifests in this round. */
  revisions: string[];
  /** Where each proxy's log stood when the round started. */
  logStart: number[];
  /** Each runner's row of each store of its part. */
  rows: StoreRow[][];
}

/**
 * All four runners apply their parts at once, from a new commit of the round's manifests. A fleet
 * apply plans every store first, then applies each plan under the account's lease, re-checked
 * there: a store another runner changed meanwhile is refused (exit 3, "plan again") and left to it.
 */
async function applyRound(round: number): Promise<Round> {
  const revisions = runners.map((runner) => runner.commit({ 'grupos.yaml': groupsManifest(groupsOfRound[round] ?? []) }, `round ${round}`));
  const logStart = proxies.map((proxy) => proxy.log.length);
  const runs = runners.map((runner, r) =>
    runner.run(['apply', '--target', partOf(r).map((i) => storeName(i + 1)).join(','), '--auto-approve', '--lock-timeout', '300', '--parallel', '20', '--json'], ciJob(round, r)),
  );
  const exits = await Promise.all(runs.map((run) => run.exit));
  // Every record once, on every account, whatever each runner said.
  for (const store of fleet.stores) expect(findDuplicates(store.emulator.snapshot()), `${store.name} after round ${round}`).toEqual([]);
  const rows = exits.map((exit) => {
    const report = JSON.parse(exit.stdout || '{"rows": []}') as { rows: StoreRow[] };
    expect([0, 3], `${JSON.stringify(report.rows.filter((row) => row.exitCode !== 0))}\n${exit.stderr.slice(-2000)}`).toContain(exit.code);
    return report.rows;
  });
  for (const row of rows.flat()) {
    if (row.exitCode !== 0) expect(row.error, `round ${round}: ${JSON.stringify(row)}`).toMatch(/^the account changed since the plan was made; plan again/);
  }
  return { revisions, logStart, rows };
}

/** Each proxy's requests in `round` (the next round's start bounds it). */
function requestsOf(rounds: readonly Round[], round: number, runner: number): ProxiedRequest[] {
  const log = proxies[runner]?.log ?? [];
  return log.slice(rounds[round]?.logStart[runner] ?? 0, rounds[round + 1]?.logStart[runner] ?? log.length);
}

interface WriteSpan {
  who: string;
  from: number;
  to: number;
}

/** Per account, the span of each runner's writes in each round, as the account saw them. */
function writeSpans(rounds: readonly Round[]): Map<number, WriteSpan[]> {
  const spans = new Map<number, WriteSpan[]>();
  rounds.forEach((_, round) => {
    for (let r = 0; r < runnerCount; r += 1) {
      const byAccount = new Map<number, WriteSpan>();
      for (const request of requestsOf(rounds, round, r).filter((q) => q.method !== 'GET')) {
        expect(request.answeredAt, `a write of runner ${r} to store ${request.account} never answered`).toBeDefined();
        const span = byAccount.get(request.account) ?? { who: `round ${round} runner ${r}`, from: request.arrivedAt, to: 0 };
        byAccount.set(request.account, { ...span, from: Math.min(span.from, request.arrivedAt), to: Math.max(span.to, request.answeredAt ?? Infinity) });
      }
      for (const [account, span] of byAccount) spans.set(account, [...(spans.get(account) ?? []), span]);
    }
  });
  return spans;
}

/** The runs a runner's local journal holds: none when every store it planned had nothing left to change (the others had applied it). */
const runIdsOfFolder = (runner: RunnerFolder): string[] => {
  const dir = path.join(runner.dir, '.erpsync', 'journal');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) => name.slice(0, -'.jsonl'.length));
};

interface HistoryRun {
  run: string;
  source: string;
  target: string;
  applied: number;
  git: { revision: string; dirty: boolean } | null;
  actor: { type: string; url?: string; user?: string };
  runner?: string;
  /** The fleet apply the run was one store of. */
  fleet?: string;
}

describe('four runners sharing a postgres backend, twice at once', () => {
  it('apply each account one at a time, duplicate nothing, and every run is in `history` from a fifth folder with its revision and runner', async () => {
    const rounds = [await applyRound(0)];
    rounds.push(await applyRound(1));

    for (const store of fleet.stores) expect(groupNamesOf(store.emulator), store.name).toEqual(groupsOfRound[1]);
    // Each round, each store was changed by one of its two runners; the other found it done or changed.
    // How often they met (both planned a store at once, and the one that got the lease second refused
    // its plan) depends on the machine: printed, not asserted (measured on a quiet machine: all 40
    // shared stores, each round).
    for (const [round, { rows }] of rounds.entries()) {
      console.log(`round ${round}: ${rows.flat().filter((row) => row.exitCode === 3).length} stale plans refused`);
      for (const store of fleet.stores) {
        const appliers = rows.flat().filter((row) => row.target === store.name && (row.applied ?? 0) > 0);
        expect(appliers.map((row) => row.applied), `${store.name} in round ${round}`).toEqual([round === 0 ? 3 : 2]);
      }
    }
    // Both runners of each store's part reached it in each round: they met there.
    rounds.forEach((_, round) => {
      for (let r = 0; r < runnerCount; r += 1) {
        const reached = new Set(requestsOf(rounds, round, r).map((q) => q.account));
        expect([...reached].sort((a, b) => a - b), `round ${round} runner ${r}`).toEqual([...partOf(r)].sort((a, b) => a - b));
      }
    });
    // One runner at a time: on each account, one runner's writes end before another's begin.
    const spans = writeSpans(rounds);
    expect([...spans.keys()].sort((a, b) => a - b)).toEqual(fleet.stores.map((_, i) => i));
    for (const [account, list] of spans) {
      const ordered = [...list].sort((a, b) => a.from - b.from);
      for (let k = 1; k < ordered.length; k += 1) {
        const [before, after] = [ordered[k - 1] as WriteSpan, ordered[k] as WriteSpan];
        expect(after.from, `store ${account}: ${after.who} wrote while ${before.who} was writing`).toBeGreaterThanOrEqual(before.to);
      }
    }

    // `history` from a fifth folder, which never ran anything: every run of the four folders' journals.
    const reader = openRunnerFolder(root, 'reader', backend.env, { 'erpsync.config.yaml': readFileSync(path.join(root, 'erpsync.config.yaml'), 'utf8') });
    const listed = await reader.run(['history', '--json']).exit;
    expect(listed.code, listed.stderr).toBe(0);
    const history = (JSON.parse(listed.stdout) as { runs: HistoryRun[] }).runs;
    expect(history.map((run) => run.run).sort()).toEqual(runners.flatMap(runIdsOfFolder).sort());
    const text = await reader.run(['history']).exit;
    expect(text.code, text.stderr).toBe(0);
    /** The round and the runner a listed run names. */
    const jobOf = (run: HistoryRun): { round: number; runner: number } => {
      const job = runnerPattern.exec(run.runner ?? '');
      expect(job, `run ${run.run}'s runner: ${run.runner}`).not.toBeNull();
      return { round: Number(job?.[1]), runner: Number(job?.[2]) };
    };
    for (const run of history) {
      const { round, runner } = jobOf(run);
      expect(run.actor).toEqual({ type: 'ci', url: `https://github.com/agencia/lojas/actions/runs/${1000 + round}`, user: 'deployer' });
      const revision = rounds[round]?.revisions[runner] ?? '';
      expect(run.git, `run ${run.run} (${run.source})'s revision`).toEqual({ revision, dirty: false });
      // The text list says the same: one line a run, with its revision, its actor and its runner.
      expect(text.stdout).toMatch(new RegExp(`^${run.run} .* ${revision.slice(0, 12)}  by deployer ${run.actor.url ?? '-'}  on ${run.runner ?? '-'}${run.fleet === undefined ? '' : `  fleet ${run.fleet}`}$`, 'm'));
    }
    // Each store changed once a round, by the runner whose writes the account saw.
    rounds.forEach((_, round) => {
      for (const [account, store] of fleet.stores.entries()) {
        const changed = history.filter((run) => run.target === store.name && run.applied > 0 && jobOf(run).round === round);
        expect(changed.map((run) => run.applied), `${store.name} in round ${round}`).toEqual([round === 0 ? 3 : 2]);
        const writer = spans.get(account)?.find((span) => span.who.startsWith(`round ${round} `))?.who;
        expect(`round ${round} runner ${changed[0] ? jobOf(changed[0]).runner : '?'}`).toBe(writer);
      }
    });
  }, 600_000);
});
