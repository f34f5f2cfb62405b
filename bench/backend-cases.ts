// Issue 34's two measured cases for `npm run bench:fleet` (`-- --only backend`, `-- --only runners`),
// each through the built CLI as a real process against sandbox accounts hosted by this process at
// 3 req/s, judged by one ledger of the service's per-IP rules, as the fleet rows are:
// - backend: the postgres backend's overhead on a fleet plan of 100 stores (examples/loja-nova, 25
//   reads a store), local and postgres interleaved (local first in each pair), and an apply row of
//   the fleet rows' small base on fresh accounts (journal lines and leases on every store).
// - runners: four processes of 100 stores each, each in its own folder, HOME and lock folder (they
//   share nothing but the database), all naming one egress on one schema, started together, against
//   one process planning all 400; the service's windows unscaled.
// A PostgreSQL: the server of ERPSYNC_BENCH_DATABASE_URL, else a throwaway one started here and
// stopped after (scripts/test-postgres.mjs). Each case takes a fresh schema, migrated before its
// first timed run (a fleet's runs find the tables made), and drops it after. Nothing here touches
// product code; the figures are what the emulators logged and the processes' wall times.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { ipBudgetOf } from '../src/api/governor.js';
import { createIpLedger, serviceIpRules } from '../src/emulator/index.js';
import type { Emulator, IpLedger } from '../src/emulator/index.js';
import { mostInAnyWindow, openAccounts, runEnv, writeFleetFolder } from './fleet-cases.js';
import type { FleetBase } from './fleet-cases.js';
import { median, runBuiltCli } from './measure.js';
import type { CliRun } from './measure.js';

const stores = 100;
const pairs = 3;
const runners = 4;
const runnerRounds = 2;
const fleetArgs = ['--all-targets', '--parallel', '100', '--json'];
const say = (line: string) => process.stderr.write(`bench:fleet: ${line}\n`);

export interface BenchDatabase {
  url: string;
  /** Which server, for the report. */
  about: string;
  stop(): Promise<void>;
}

/** What scripts/test-postgres.mjs exports. */
interface TestPostgresScript {
  startTestPostgres(): Promise<{ url: string; dir: string }>;
  stopTestPostgres(dir: string): Promise<void>;
}

/** The server of ERPSYNC_BENCH_DATABASE_URL, or a throwaway one of this run's. */
export async function openBenchDatabase(): Promise<BenchDatabase> {
  const given = process.env.ERPSYNC_BENCH_DATABASE_URL;
  if (given) return { url: given, about: 'the PostgreSQL of ERPSYNC_BENCH_DATABASE_URL', stop: async () => undefined };
  say('starting a throwaway PostgreSQL…');
  // A plain script outside the bench's build: loaded from the repository the bench runs in.
  const script = (await import(pathToFileURL(path.join(process.cwd(), 'scripts/test-postgres.mjs')).href)) as TestPostgresScript;
  const started = await script.startTestPostgres();
  return { url: started.url, about: 'a throwaway PostgreSQL on loopback started by the bench (scripts/test-postgres.mjs: fsync and synchronous commit off)', stop: () => script.stopTestPostgres(started.dir) };
}

export interface BenchSchema {
  env: NodeJS.ProcessEnv;
  drop(): Promise<void>;
}

/** A fresh schema on the bench's server, its tables made by `erpsync backend migrate` before anything is timed. */
export async function freshSchema(database: BenchDatabase, dir: string): Promise<BenchSchema> {
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  const env = { ERPSYNC_BACKEND: 'postgres', ERPSYNC_DATABASE_URL: database.url, ERPSYNC_STATE_KEY: randomBytes(32).toString('base64'), ERPSYNC_BACKEND_SCHEMA: schema };
  mkdirSync(dir, { recursive: true });
  const migrated = await runBuiltCli(['backend', 'migrate'], env, dir);
  if (migrated.code !== 0) throw new Error(`erpsync backend migrate exited ${migrated.code}: ${migrated.stderr.slice(-600)}`);
  return {
    env,
    async drop() {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        await client.query(`drop schema if exists "${schema}" cascade`);
      } finally {
        await client.end();
      }
    },
  };
}

/** The commit the figures are of, `+changes` when src/ differs from it. */
export function benchCommit(): string {
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
  return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--', 'src') === '' ? '' : ' +changes in src/'}`;
}

export const loadAverage = () => loadavg()[0] ?? 0;

/** Every run starts with the IP's windows empty (the emulator's and the backends' books alike). */
const windowsEmpty = () => sleep(ipBudgetOf().windowMs + 1_000);

export function reportFailure(label: string, run: CliRun): void {
  if (run.code !== 0) say(`${label} exited ${run.code}: ${run.stderr.slice(-600)}`);
}

export interface BackendRun {
  wallMs: number;
  requests: number;
  exit: number | null;
  loadAverage: number;
}

export interface BackendPair {
  local: BackendRun;
  postgres: BackendRun;
}

/** One kind of run, measured in interleaved pairs. */
export interface BackendRows {
  command: 'plan' | 'apply';
  base: FleetBase;
  /** The row's name in the table. */
  title: string;
  pairs: BackendPair[];
}

export interface BackendOverheadResult {
  rows: BackendRows[];
  violations: number;
  refused: number;
  commit: string;
  database: string;
}

type BackendName = keyof BackendPair;

/** One pair: local, then postgres. */
async function interleaved(label: string, run: (backend: BackendName) => Promise<BackendRun>): Promise<BackendPair> {
  say(`backend: ${label}, local…`);
  const local = await run('local');
  say(`backend: ${label}, postgres…`);
  return { local, postgres: await run('postgres') };
}

/** One run of `command` on `accounts` from a new copy of the fleet's folder, with the backend's env. */
async function backendRun(command: 'plan' | 'apply', dir: string, accounts: readonly Emulator[], base: FleetBase, backendEnv: NodeJS.ProcessEnv): Promise<BackendRun> {
  writeFleetFolder(dir, accounts, base);
  await windowsEmpty();
  for (const account of accounts) account.clearLog();
  const started = loadAverage();
  const args = command === 'plan' ? ['plan', ...fleetArgs] : ['apply', ...fleetArgs, '--auto-approve'];
  const run = await runBuiltCli(args, { ...runEnv(dir, accounts), ...backendEnv }, dir);
  reportFailure(`${command} in ${path.basename(dir)}`, run);
  return { wallMs: run.wallMs, requests: accounts.reduce((sum, a) => sum + a.requestLog().length, 0), exit: run.code, loadAverage: started };
}

/**
 * The fleet plan of 100 stores, local and postgres interleaved: of loja-nova (bound by the IP's
 * budget, as a fleet of real stores is) and of the fleet rows' small base (300 requests, under the
 * budget: start-up and the stores' own work, where the backend's cost cannot hide in a wait); and
 * the small base's apply on fresh accounts each run.
 */
export async function measureBackendOverhead(dir: string, database: BenchDatabase): Promise<BackendOverheadResult> {
  const ledger = createIpLedger();
  const schema = await freshSchema(database, path.join(dir, 'migrate'));
  const envOf = (backend: BackendName): NodeJS.ProcessEnv => (backend === 'postgres' ? schema.env : {});
  const rows: BackendRows[] = [
    { command: 'plan', base: 'loja-nova', title: 'plan, `examples/loja-nova`', pairs: [] },
    { command: 'plan', base: 'small', title: "plan, the fleet rows' base", pairs: [] },
    { command: 'apply', base: 'small', title: "apply, the fleet rows' base, fresh accounts", pairs: [] },
  ];
  // Plans change nothing: their accounts serve every plan run.
  const planned = await openAccounts(stores, ledger);
  const accountsFor = async (command: 'plan' | 'apply') => (command === 'plan' ? { accounts: planned, close: async () => undefined } : await freshAccounts(ledger));
  try {
    for (const { command, base, pairs: measured } of rows) {
      for (let pair = 0; pair < pairs; pair += 1) {
        measured.push(
          await interleaved(`${command} of ${stores} stores (${base}), pair ${pair + 1}`, async (backend) => {
            const { accounts, close } = await accountsFor(command);
            try {
              return await backendRun(command, path.join(dir, `${command}-${base}-${pair}-${backend}`), accounts, base, envOf(backend));
            } finally {
              await close();
            }
          }),
        );
      }
    }
  } finally {
    await Promise.all(planned.map((a) => a.close()));
  }
  await schema.drop();
  return { rows, violations: ledger.violations().length, refused: ledger.refused(), commit: benchCommit(), database: database.about };
}

/** New accounts for one apply, closed after it. */
async function freshAccounts(ledger: IpLedger): Promise<{ accounts: Emulator[]; close: () => Promise<void> }> {
  const accounts = await openAccounts(stores, ledger);
  return { accounts, close: async () => void (await Promise.all(accounts.map((a) => a.close()))) };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const ratioOf = (p: BackendPair) => p.postgres.wallMs / p.local.wallMs;

/** The case's block in bench/results.md. */
export function backendLines(r: BackendOverheadResult): string[] {
  const row = (rows: BackendRows) => (p: BackendPair, i: number) =>
    `| ${rows.title} | ${i + 1} | ${p.local.requests} / ${p.postgres.requests} | ${seconds(p.local.wallMs)} | ${seconds(p.postgres.wallMs)} | ${ratioOf(p).toFixed(3)}× | ${p.local.loadAverage.toFixed(1)} / ${p.postgres.loadAverage.toFixed(1)} | ${p.local.exit}, ${p.postgres.exit} |`;
  const summary = (rows: BackendRows) => `${rows.title} ${median(rows.pairs.map(ratioOf)).toFixed(3)}× (overhead ${((median(rows.pairs.map(ratioOf)) - 1) * 100).toFixed(1)}%)`;
  const perStore = (rows: BackendRows | undefined) => ((rows?.pairs[0]?.local.requests ?? 0) / stores).toFixed(0);
  const [lojaNova, small, apply] = [r.rows[0], r.rows[1], r.rows[2]];
  return [
    "### The PostgreSQL backend's overhead at 100 stores (issue 34, `-- --only backend`)",
    '',
    `${new Date().toISOString().slice(0, 10)} · commit ${r.commit} · ${r.database} · ${stores} sandbox accounts in the bench process (3 req/s each, one blocking ledger of the per-IP rules) · the built CLI with \`--parallel 100\`, paced as the fleet rows (2.9 req/s a store, ${ipBudgetOf().requests} requests per ${ipBudgetOf().windowMs / 1000} s for the IP). Local and postgres interleaved, local first in each pair, each run ${ipBudgetOf().windowMs / 1000 + 1} s after the one before (the IP's windows empty) in a new working folder, HOME and lock folder; the postgres runs share one schema, migrated before the first. Plans: \`examples/loja-nova\` (${perStore(lojaNova)} requests a store, so the IP's budget bounds the run, as it bounds a fleet of real stores) and the fleet rows' base (three groups and two categories, ${perStore(small)} requests a store: under the budget, so the wall is start-up and the stores' own work, where the backend's cost cannot hide in a wait). Apply: the fleet rows' base on fresh accounts each run (${perStore(apply)} requests a store, 5 of them journalled writes; bound by the budget, as the loja-nova plan): every store takes its lease and writes its journal.`,
    '',
    '| run | pair | requests, local / postgres | local wall | postgres wall | postgres ÷ local (target ≤ 1.05) | 1-min load average at the start, local / postgres | exits |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...r.rows.flatMap((rows) => rows.pairs.map(row(rows))),
    '',
    `Median of the pairs' ratios: ${r.rows.map(summary).join('; ')}. Per-IP violations recorded by the emulator over every run: ${r.violations} (requests refused as blocked: ${r.refused}).`,
  ];
}

export interface RunnersRound {
  /** Which went first in the round. */
  first: 'one' | 'four';
  one: RunnersRun;
  four: RunnersRun;
}

export interface RunnersRun {
  /** From the first spawn to the last exit. */
  wallMs: number;
  /** First to last request the accounts received. */
  spanMs: number;
  requests: number;
  mostInWindow: number;
  violations: number;
  exits: (number | null)[];
  loadAverage: { start: number; end: number };
}

export interface RunnersResult {
  rounds: RunnersRound[];
  budget: number;
  limit: number;
  windowMs: number;
  commit: string;
  database: string;
}

/** Started together, each in its own folder; resolves when the last exits. */
async function runTogether(folders: readonly { dir: string; env: NodeJS.ProcessEnv }[], accounts: readonly Emulator[], ledger: IpLedger, windowMs: number): Promise<RunnersRun> {
  await windowsEmpty();
  for (const account of accounts) account.clearLog();
  ledger.reset();
  const start = loadAverage();
  const started = performance.now();
  const runs = await Promise.all(folders.map((f) => runBuiltCli(['plan', ...fleetArgs], f.env, f.dir)));
  const wallMs = performance.now() - started;
  runs.forEach((run, i) => reportFailure(`runner ${i + 1} of ${folders.length}`, run));
  const times = accounts.flatMap((a) => a.requestLog().map((entry) => entry.at));
  return { wallMs, spanMs: Math.max(...times) - Math.min(...times), requests: times.length, mostInWindow: mostInAnyWindow(times, windowMs), violations: ledger.violations().length, exits: runs.map((run) => run.code), loadAverage: { start, end: loadAverage() } };
}

/** Four processes of 100 stores each on one egress and schema against one process of all 400, rounds alternating which goes first. */
export async function measureRunners(dir: string, database: BenchDatabase): Promise<RunnersResult> {
  // Counted, not enforced: a violation would block the IP and stop every later request; here each one is recorded.
  const ledger = createIpLedger({ enforce: false });
  const rule = serviceIpRules.find((r) => r.name === 'requests') ?? serviceIpRules[0]!;
  const schema = await freshSchema(database, path.join(dir, 'migrate'));
  const accounts = await openAccounts(runners * stores, ledger);
  const shared = { ...schema.env, ERPSYNC_EGRESS: 'bench' };
  const folder = (name: string, from: number, count: number) => {
    const at = path.join(dir, name);
    const own = accounts.slice(from, from + count);
    writeFleetFolder(at, own, 'loja-nova', from);
    return { dir: at, env: { ...runEnv(at, own, from), ...shared } };
  };
  const one = [folder('one', 0, runners * stores)];
  const four = Array.from({ length: runners }, (_, r) => folder(`runner-${r + 1}`, r * stores, stores));
  const rounds: RunnersRound[] = [];
  try {
    for (let round = 0; round < runnerRounds; round += 1) {
      const first = round % 2 === 0 ? 'one' : 'four';
      const measured: Partial<Record<'one' | 'four', RunnersRun>> = {};
      for (const which of first === 'one' ? (['one', 'four'] as const) : (['four', 'one'] as const)) {
        say(`runners: round ${round + 1}, ${which === 'one' ? `one process of ${runners * stores} stores` : `${runners} processes of ${stores} stores`}…`);
        measured[which] = await runTogether(which === 'one' ? one : four, accounts, ledger, rule.windowMs);
      }
      rounds.push({ first, one: measured.one!, four: measured.four! });
    }
  } finally {
    await Promise.all(accounts.map((a) => a.close()));
  }
  await schema.drop();
  return { rounds, budget: ipBudgetOf().requests, limit: rule.limit, windowMs: rule.windowMs, commit: benchCommit(), database: database.about };
}

/** The case's block in bench/results.md. */
export function runnersLines(r: RunnersResult): string[] {
  const requests = r.rounds[0]?.one.requests ?? 0;
  // The first window's budget goes at once; each further one a window later.
  const floorMs = Math.max(0, Math.ceil(requests / r.budget) - 1) * r.windowMs;
  const rows = r.rounds.map(
    (x, i) =>
      `| ${i + 1} (${x.first} first) | ${x.one.requests} / ${x.four.requests} | ${seconds(x.one.wallMs)} (${seconds(x.one.spanMs)}) | ${seconds(x.four.wallMs)} (${seconds(x.four.spanMs)}) | ${(x.four.wallMs / x.one.wallMs).toFixed(3)}× (${(x.four.spanMs / x.one.spanMs).toFixed(3)}×) | ${x.four.mostInWindow} / ${x.one.mostInWindow} | ${x.four.violations} / ${x.one.violations} | ${x.one.loadAverage.start.toFixed(1)}→${x.one.loadAverage.end.toFixed(1)} / ${x.four.loadAverage.start.toFixed(1)}→${x.four.loadAverage.end.toFixed(1)} | ${x.one.exits.join(', ')} / ${x.four.exits.join(', ')} |`,
  );
  return [
    '### Four runners on one egress name (issue 34, `-- --only runners`)',
    '',
    `${new Date().toISOString().slice(0, 10)} · commit ${r.commit} · ${r.database} · ${runners * stores} sandbox accounts in the bench process (3 req/s each), one ledger of the service's per-IP rules, unscaled (${r.limit} requests per ${r.windowMs / 1000} s; counting every violation rather than blocking) · ${runners} built-CLI processes \`plan --all-targets --parallel 100\` of ${stores} stores each (\`examples/loja-nova\`, ${((r.rounds[0]?.one.requests ?? 0) / (runners * stores)).toFixed(0)} requests a store), each in its own working folder, HOME and lock folder, all with ERPSYNC_EGRESS=bench on one postgres schema, started together; against one process planning all ${runners * stores} on the same schema and egress. Wall: first spawn to last exit (span: first to last request at the accounts). erpsync's budget ${r.budget} per ${r.windowMs / 1000} s: floor ${seconds(floorMs)} (the first window's budget at once, each further one a window later).`,
    '',
    `| round | requests, one / four | one process, wall (span) | ${runners} at once, wall (span) | ${runners} ÷ one, wall (span) (target ≤ 1.1) | most in one ${r.windowMs / 1000} s window, ${runners} / one (budget ${r.budget}, rule ${r.limit}) | per-IP violations, ${runners} / one (target 0) | 1-min load average, start→end, one / ${runners} | exits, one / ${runners} |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ];
}
