// `erpsync login --refresh`: token upkeep for the targets the flags select (--target PATTERNS,
// --all-targets, else the default login). Flags → each target's login, read through the login
// store → the plan (login-upkeep.ts) → the refreshes, or with --dry-run the plan alone → one line
// per target, or --json. Exit 0 when every due login was refreshed, 1 when one failed or is
// missing. It never prints a token; the refreshing itself is the workflow's.
import { configureProcessGovernor, readProxySettings } from '../api/index.js';
import type { Governor } from '../api/index.js';
import { backendChoiceOf, egressOf } from '../target/resolve-target.js';
import { ErpsyncError, exitCodes } from '../model/errors.js';
import { formatDuration } from '../report/apply-progress.js';
import { selectFleet } from '../workflows/fleet-workflow.js';
import { loginStoreFor } from '../target/login-store.js';
import type { OpenedLogins } from '../target/login-store.js';
import type { LoginDescription, UpkeepPlan, UpkeepResult } from '../workflows/login-upkeep.js';
import { DEFAULT_UPKEEP_WITHIN_MS, describeLogin, planLoginUpkeep, runLoginUpkeep } from '../workflows/login-upkeep.js';
import type { RunIO } from '../model/run-io.js';
import { writeLine } from '../model/run-io.js';
import type { TargetLogin } from '../workflows/target-logins.js';
import { readTargetLogins, upkeepLoginsOf } from '../workflows/target-logins.js';
import type { loginFlags, ParsedFlags } from './flags.js';
import { readTargetRequest } from './target-request.js';

type LoginValues = ParsedFlags<(typeof loginFlags)[number]>;

/** One target's line: what the upkeep did (or, with --dry-run, would do) with its login. */
export type UpkeepRow =
  | UpkeepResult
  | { target: string; outcome: 'fresh' | 'due'; expiresAt: string | null; expiresInMs: number | null; login?: LoginDescription }
  | { target: string; outcome: 'missing'; hint: string }
  | { target: string; outcome: 'skipped'; reason: string };

export async function runLoginRefresh(values: LoginValues, io: RunIO): Promise<number> {
  const withinMs = values.within ?? DEFAULT_UPKEEP_WITHIN_MS;
  const dryRun = values['dry-run'];
  const request = readTargetRequest(values);
  const selection = await selectFleet(request, io);
  // No --target nor --all-targets: the default login, the one `erpsync login` alone stores.
  const names = selection.names.length > 0 ? selection.names : [undefined];
  const governor = configureProcessGovernor(request.ipRunners, io.env.ERPSYNC_IP_WINDOW_SCALE);
  const opened = await loginStoreFor(backendChoiceOf(selection.config, io.env), io);
  const found = await readTargetLogins(names, request, selection.config, opened.logins, io);
  const now = Date.now();
  const plan = planLoginUpkeep(upkeepLoginsOf(found), { now, withinMs });
  const callsBefore = governor.stats().tokenCalls;
  const results = dryRun || plan.due.length === 0 ? [] : await refreshDue(plan, found, opened, egressOf(selection.config, io.env), governor, io);
  const rows = rowsOf(found, plan, results, dryRun ? now : undefined);
  const about = { dryRun, withinMs, where: opened.where, tokenCalls: governor.stats().tokenCalls - callsBefore };
  if (values.json) io.stdout.write(`${JSON.stringify({ ...about, targets: rows }, null, 2)}\n`);
  else printRows(rows, about, io);
  return rows.some((row) => row.outcome === 'failed' || row.outcome === 'missing') ? exitCodes.error : exitCodes.ok;
}

/** The plan's due logins refreshed, each through the login store that holds it and its target's client. */
async function refreshDue(plan: UpkeepPlan, found: readonly TargetLogin[], opened: OpenedLogins, egress: string, governor: Governor, io: RunIO): Promise<UpkeepResult[]> {
  const logins = opened.logins;
  const stored = new Map(found.flatMap((login) => (login.status === 'stored' ? [[login.target, login] as const] : [])));
  const storedLogin = (target: string) => stored.get(target) ?? notPlanned(target);
  // Token calls count against the egress name's budget, shared with every runner naming it.
  await opened.ipBudget.share(governor, egress);
  try {
    return await runLoginUpkeep(plan, {
      slotOf: (target) => logins.slot(storedLogin(target).ref),
      clientOf: (target) => storedLogin(target).client,
      governor,
      proxy: readProxySettings(io.env),
      signal: io.signal,
    });
  } finally {
    await opened.ipBudget.handOn(governor);
  }
}

/** The plan's due logins are stored ones: another is a bug, not a login. */
function notPlanned(target: string): never {
  throw new ErpsyncError('INTERNAL', `the upkeep planned to refresh ${target}, which holds no stored login`);
}

/** One row per target, in the selection's order; `describedAt` adds each stored login's description (--dry-run). */
export function rowsOf(found: readonly TargetLogin[], plan: UpkeepPlan, results: readonly UpkeepResult[], describedAt?: number): UpkeepRow[] {
  const done = new Map(results.map((result) => [result.target, result]));
  const due = new Map(plan.due.map((login) => [login.target, login]));
  const fresh = new Map(plan.fresh.map((login) => [login.target, login]));
  const missing = new Map(plan.missing.map((login) => [login.target, login]));
  return found.map((login): UpkeepRow => {
    if (login.status === 'none') return { target: login.target, outcome: 'skipped', reason: login.reason };
    if (login.status === 'failed') return { target: login.target, outcome: 'failed', code: login.code, message: login.message };
    const result = done.get(login.target);
    if (result) return result;
    const gap = missing.get(login.target);
    if (gap) return { target: gap.target, outcome: 'missing', hint: gap.hint };
    const expiry = due.get(login.target) ?? fresh.get(login.target);
    const outcome = due.has(login.target) ? 'due' : 'fresh';
    const described = describedAt !== undefined && login.status === 'stored' ? { login: describeLogin(login.credentials, describedAt) } : {};
    return { target: login.target, outcome, expiresAt: expiry?.expiresAt ?? null, expiresInMs: expiry?.expiresInMs ?? null, ...described };
  });
}

function printRows(rows: readonly UpkeepRow[], about: { withinMs: number; where: string; tokenCalls: number; dryRun: boolean }, io: RunIO): void {
  writeLine(io.stdout, `Token upkeep of ${rows.length} ${rows.length === 1 ? 'login' : 'logins'} in ${about.where}: ${about.dryRun ? 'would refresh' : 'refreshing'} those whose access token expires within ${formatDuration(about.withinMs)}`);
  const width = Math.max(...rows.map((row) => row.target.length));
  for (const row of rows) writeLine(io.stdout, `${row.target.padEnd(width)}  ${describeRow(row)}`);
  const count = (outcome: UpkeepRow['outcome']) => rows.filter((row) => row.outcome === outcome).length;
  const summary = about.dryRun ? [`${count('due')} due`] : [`${count('refreshed')} refreshed`, `${count('already-fresh')} refreshed by another runner`];
  writeLine(io.stdout, [...summary, `${count('fresh')} fresh`, `${count('missing')} missing`, `${count('failed')} failed`, `${count('skipped')} skipped`, `${about.tokenCalls} token calls`].join(', '));
}

/** The row's outcome in words, and what follows it on the line. */
function describeRow(row: UpkeepRow): string {
  const [label, detail] = ((): [string, string] => {
    switch (row.outcome) {
      case 'refreshed':
        return ['refreshed', until(row.expiresAt)];
      case 'already-fresh':
        return ['already fresh', `refreshed by another runner meanwhile; ${until(row.expiresAt)}`];
      case 'fresh':
      case 'due':
        return [row.outcome, expiresIn(row.expiresInMs)];
      case 'missing':
        return ['missing', `no login stored: ${row.hint}`];
      case 'failed':
        return ['failed', `${row.code}: ${row.message}`];
      case 'skipped':
        return ['skipped', row.reason];
    }
  })();
  return `${label.padEnd(13)}  ${detail}`;
}

function expiresIn(ms: number | null): string {
  if (ms === null) return 'no known expiry';
  return ms <= 0 ? `expired ${formatDuration(-ms)} ago` : `expires in ${formatDuration(ms)}`;
}

function until(expiresAt: string | null): string {
  return expiresAt === null ? 'no known expiry' : `valid until ${expiresAt}`;
}
