// Issue 35's nightly case for `npm run bench:fleet` (`-- --only nightly [--stores N]`): a fleet's
// nightly drift on one egress, with the service's per-IP rules on and unscaled.
// - 1,000 sandbox accounts hosted by this process (3 req/s each), each opened from an account that
//   erpsync brought to `examples/loja-nova` (so a store in sync reads like a real one), judged by
//   one ledger of the per-IP rules, blocking, as `erpsync sandbox` is. Three stores get a record
//   made by hand (drift).
// - Their logins in the postgres backend (ERPSYNC_BACKEND=postgres, one schema, one egress name),
//   each authorized once as `erpsync login` does, with 1 h left on its access token; then the token
//   upkeep (`erpsync login --refresh --all-targets`, the built CLI) refreshes every one. The upkeep
//   is set-up, not measured: it runs with the windows scaled (ERPSYNC_IP_WINDOW_SCALE, and the
//   counting ledger alike), since at the service's 20 token calls a minute 1,000 logins take an
//   hour, which the hourly upkeep spreads over five runs (src/workflows/login-upkeep.ts).
// - Measured, the built CLI: `drift --all-targets --json` with every login fresh (no token call
//   expected), then the same with every login's access token expired (the drift refreshes each):
//   wall time, requests, token calls, the most requests in any 10 s, per-IP violations, stores that
//   ran and drifted, the load average. Each run starts with the IP's windows empty.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { defaultTargetCredentialsFile } from '../src/api/index.js';
import type { StoredCredentials } from '../src/api/index.js';
import { createIpLedger, defaultOAuthClient, serviceIpRules } from '../src/emulator/index.js';
import type { Emulator } from '../src/emulator/index.js';
import { sealingKeyFrom } from '../src/state/crypto.js';
import { connectPostgres } from '../src/state/postgres/connect.js';
import { postgresLogins } from '../src/state/postgres/logins.js';
import type { LoginStore } from '../src/state/state-store.js';
import { backendChoiceOf } from '../src/target/resolve-target.js';
import { benchCommit, freshSchema, loadAverage, reportFailure } from './backend-cases.js';
import type { BenchDatabase } from './backend-cases.js';
import { authorizeAccount, mostInAnyWindow, openAccounts, runEnv, switchableLedger, writeFleetFolder } from './fleet-cases.js';
import { runBuiltCli } from './measure.js';
import { buildAccountSeed } from './workloads.js';

export const nightlyStores = 1_000;
/** The 20-minute target of issue 35 for the nightly drift with fresh logins. */
const targetMs = 20 * 60_000;
/** The upkeep's windows in set-up: 60 s → 3 s. */
const upkeepScale = 0.05;
const handEdited = 3;
const egress = 'nightly';
const say = (line: string) => process.stderr.write(`bench:fleet: ${line}\n`);

export interface NightlyRun {
  label: string;
  wallMs: number;
  requests: number;
  tokenCalls: number;
  /** The most requests at the accounts in any window of the service's request rule. */
  mostInWindow: number;
  violations: number;
  refused: number;
  storesRan: number;
  storesDrifted: number;
  exit: number | null;
  loadAverage: { start: number; end: number };
}

export interface NightlyResult {
  stores: number;
  requestsPerStore: number;
  upkeep: { refreshed: number; wallMs: number; exit: number | null };
  runs: NightlyRun[];
  commit: string;
  database: string;
}

/** A login per account in the backend, with 1 h left (the upkeep's `--within 2h` finds each due). */
async function storeLogins(logins: LoginStore, accounts: readonly Emulator[], names: readonly string[], dir: string): Promise<void> {
  for (const [i, account] of accounts.entries()) {
    const login = await authorizeAccount(account);
    await logins.write(refOf(names[i] ?? '', account, dir), { ...login, expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
  }
}

const refOf = (target: string, account: Emulator, dir: string) => ({ target, baseUrl: account.baseUrl, file: path.join(dir, defaultTargetCredentialsFile(target)) });

/** Every login's access token said to have expired: the next run must refresh each. */
async function expireLogins(logins: LoginStore, accounts: readonly Emulator[], names: readonly string[], dir: string): Promise<void> {
  for (const [i, account] of accounts.entries()) {
    const ref = refOf(names[i] ?? '', account, dir);
    const current: StoredCredentials = await logins.slot(ref).read();
    await logins.write(ref, { ...current, expiresAt: new Date(0).toISOString() });
  }
}

/** A record made by hand in the account: drift for a store whose manifests prune product groups. */
async function editByHand(account: Emulator): Promise<void> {
  const answer = await fetch(`${account.baseUrl}/grupos-produtos`, { method: 'POST', headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ nome: 'Feito à mão' }) });
  if (!answer.ok) throw new Error(`the hand edit was refused (${answer.status})`);
}

export async function measureNightly(dir: string, database: BenchDatabase, stores = nightlyStores): Promise<NightlyResult> {
  const env = { NFSE_SENHA_PREFEITURA: 'demo' };
  say('nightly: the loja-nova account every store starts from…');
  const seed = await buildAccountSeed('fresh', path.join(process.cwd(), 'examples/loja-nova'), path.join(dir, 'loja-nova.seed.json'), env);
  const schema = await freshSchema(database, path.join(dir, 'migrate'));
  const upkeepRules = serviceIpRules.map((rule) => ({ ...rule, windowMs: rule.windowMs * upkeepScale, blockMs: rule.blockMs * upkeepScale }));
  const ledger = switchableLedger(createIpLedger({ rules: upkeepRules, enforce: false }));
  say(`nightly: ${stores} accounts and their logins…`);
  const accounts = await openAccounts(stores, ledger, 0, seed);
  const choice = backendChoiceOf(undefined, schema.env);
  if (choice.kind !== 'postgres') throw new Error('the nightly case runs on the postgres backend');
  const connection = await connectPostgres(choice, { ...process.env, ...schema.env });
  try {
    const fleetDir = path.join(dir, 'fleet');
    mkdirSync(fleetDir, { recursive: true });
    writeFleetFolder(fleetDir, accounts, 'loja-nova');
    const names = accounts.map((_, i) => `lojas/loja-${String(i).padStart(3, '0')}`);
    const logins = postgresLogins(connection, sealingKeyFrom(schema.env, choice.keyEnv));
    await storeLogins(logins, accounts, names, fleetDir);
    for (const account of accounts.slice(0, handEdited)) await editByHand(account);
    // No TOKEN_i: each target's login is the backend's (OAuth); the app's id and secret from the environment.
    const runEnvironment = { ...runEnv(fleetDir, []), ...schema.env, ERPSYNC_EGRESS: egress, BLING_CLIENT_ID: defaultOAuthClient.clientId, BLING_CLIENT_SECRET: defaultOAuthClient.clientSecret };
    say(`nightly: token upkeep of ${stores} logins (set-up, windows scaled by ${upkeepScale})…`);
    const upkeep = await runBuiltCli(['login', '--refresh', '--all-targets', '--json'], { ...runEnvironment, ERPSYNC_IP_WINDOW_SCALE: String(upkeepScale) }, fleetDir);
    reportFailure('the upkeep', upkeep);
    const refreshed = (JSON.parse(upkeep.stdout) as { targets: { outcome: string }[] }).targets.filter((t) => t.outcome === 'refreshed').length;
    const runs: NightlyRun[] = [];
    runs.push(await nightlyRun('logins kept fresh by the upkeep', accounts, ledger, fleetDir, runEnvironment));
    await expireLogins(logins, accounts, names, fleetDir);
    runs.push(await nightlyRun('every login expired', accounts, ledger, fleetDir, runEnvironment));
    const requestsPerStore = (runs[0]?.requests ?? 0) / stores;
    return { stores, requestsPerStore, upkeep: { refreshed, wallMs: upkeep.wallMs, exit: upkeep.code }, runs, commit: benchCommit(), database: database.about };
  } finally {
    await connection.close();
    await Promise.all(accounts.map((a) => a.close()));
    await schema.drop();
  }
}

/** One measured `drift --all-targets`, its own blocking ledger of the unscaled rules, after the token window has emptied. */
async function nightlyRun(label: string, accounts: readonly Emulator[], ledger: ReturnType<typeof switchableLedger>, dir: string, env: NodeJS.ProcessEnv): Promise<NightlyRun> {
  const tokenRule = serviceIpRules.find((r) => r.name === 'token-calls');
  await sleep((tokenRule?.windowMs ?? 60_000) + 1_000);
  const measured = createIpLedger();
  ledger.use(measured);
  for (const account of accounts) account.clearLog();
  say(`nightly: drift --all-targets, ${label}…`);
  const start = loadAverage();
  const run = await runBuiltCli(['drift', '--all-targets', '--json'], env, dir);
  const end = loadAverage();
  // A fleet's drift exits 2 when a store drifted.
  if (run.code !== 0 && run.code !== 2) reportFailure(`the drift (${label})`, run);
  const log = accounts.flatMap((a) => a.requestLog());
  const requestRule = serviceIpRules.find((r) => r.name === 'requests');
  const rows = fleetRows(run.stdout, label);
  writeFileSync(path.join(dir, `drift-${label.replaceAll(' ', '-')}.json`), run.stdout);
  return {
    label,
    wallMs: run.wallMs,
    requests: log.length,
    tokenCalls: log.filter((e) => e.path === '/oauth/token').length,
    mostInWindow: mostInAnyWindow(log.map((e) => e.at), requestRule?.windowMs ?? 10_000),
    violations: measured.violations().length,
    refused: measured.refused(),
    storesRan: rows.filter((row) => row.exitCode === 0 || row.exitCode === 2).length,
    storesDrifted: rows.filter((row) => row.exitCode === 2).length,
    exit: run.code,
    loadAverage: { start, end },
  };
}

/** The fleet table of a `--json` fleet run; none when the run printed no report. */
function fleetRows(stdout: string, label: string): { exitCode: number }[] {
  try {
    return (JSON.parse(stdout) as { rows?: { exitCode: number }[] }).rows ?? [];
  } catch {
    say(`the drift (${label}) printed no fleet report`);
    return [];
  }
}

const minutes = (ms: number) => `${(ms / 60_000).toFixed(1)} min`;

/** The least time `count` marks take under a budget of `budget` per `windowMs`: the first window's at once, each further one a window later. */
const floorMs = (count: number, budget: number, windowMs: number) => Math.max(0, Math.ceil(count / budget) - 1) * windowMs;

/** The case's block in bench/results.md. */
export function nightlyLines(r: NightlyResult): string[] {
  const row = (x: NightlyRun) =>
    `| ${x.label} | ${minutes(x.wallMs)} | ${x.requests} | ${x.tokenCalls} | ${x.mostInWindow} | ${x.violations} (${x.refused} refused) | ${x.storesRan} / ${x.storesDrifted} | ${x.exit} | ${x.loadAverage.start.toFixed(1)}→${x.loadAverage.end.toFixed(1)} |`;
  const fresh = r.runs[0];
  return [
    `### Nightly drift of ${r.stores} stores on one egress (issue 35, \`-- --only nightly\`)`,
    '',
    `${new Date().toISOString().slice(0, 10)} · commit ${r.commit} · ${r.database} · ${r.stores} sandbox accounts in the bench process (3 req/s each), each opened from an account erpsync brought to \`examples/loja-nova\` (${r.requestsPerStore.toFixed(1)} requests a store in the first run), ${handEdited} of them with a product group made by hand; one ledger of the service's per-IP rules, unscaled and blocking (600 requests and 300 errors per 10 s, 20 token calls per 60 s), a new one for each run · logins in the postgres backend (one schema, ERPSYNC_EGRESS=${egress}), each authorized once and then refreshed by the token upkeep, \`login --refresh --all-targets\` (set-up, not timed here: ${r.upkeep.refreshed} of ${r.stores} refreshed, exit ${r.upkeep.exit}, ${minutes(r.upkeep.wallMs)} with the windows scaled by ${upkeepScale}, as at the service's 20 token calls a minute it takes an hour, which the hourly upkeep spreads over five runs) · the built CLI, \`drift --all-targets --json\`, its parallelism the budget's; each run after the token window emptied.`,
    '',
    `| run | wall (target ≤ ${minutes(targetMs)} with fresh logins) | requests | token calls | most requests in one 10 s window (erpsync's budget 480, rule 600) | per-IP violations (target 0) | stores ran / drifted | exit | 1-min load average, start→end |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...r.runs.map(row),
    '',
    // Each window's budget goes at once, the next a window later.
    fresh ? `With fresh logins the floor is the request budget's: ${fresh.requests} requests at 480 per 10 s, ${minutes(floorMs(fresh.requests, 480, 10_000))}. With every login expired it is the token budget's: ${r.stores} token calls at erpsync's 16 per 60 s, ${minutes(floorMs(r.stores, 16, 60_000))}, whatever the requests.` : '',
  ];
}
