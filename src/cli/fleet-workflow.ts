// A fleet: one command (plan, apply --auto-approve, drift) across many targets of
// erpsync.config.yaml, concurrently but bounded. Each store is resolved, loaded (its own manifests
// and variables), opened (its own client, pacing and account) and closed on its own; a store that
// fails becomes a row with its error and the others go on. Progress and the table are the
// reporter's business: this module only runs the stores and hands back rows.
import { performance } from 'node:perf_hooks';
import { exitCodeOfApply, runApplyWorkflow } from '../apply/apply-workflow.js';
import { isFleetSelection, selectTargets } from '../api/index.js';
import type { TargetFlags } from '../api/index.js';
import { registry } from '../kinds/registry.js';
import { fetchLive } from '../live/fetch-live.js';
import type { DesiredState } from '../model/desired.js';
import { hasErrors } from '../model/diagnostics.js';
import { ErpsyncError, exitCodes, isErpsyncError } from '../model/errors.js';
import type { FleetCommand, FleetReport, FleetRow } from '../model/fleet.js';
import { worstExitCode } from '../model/fleet.js';
import { actionableChanges } from '../model/plan.js';
import type { CliIO } from './io.js';
import { loadDesired, makePlan, planTargetOf, readAccount, readAccountForDrift, readToday } from './plan-workflow.js';
import { lockAccount, lockKeyOf } from './account-lock.js';
import { findDrift } from '../drift/find-drift.js';
import { hasDrift } from '../model/drift.js';
import type { OpenedTarget } from './target.js';
import { loadTargetsConfig, openResolvedTarget, resolveCliTarget } from './target.js';

export const DEFAULT_FLEET_CONCURRENCY = 4;

/** The flags that make a command a fleet run. */
export interface FleetFlags extends TargetFlags {
  'all-targets'?: boolean;
  parallel?: string;
}

export function isFleetRun(flags: FleetFlags): boolean {
  return flags['all-targets'] === true || isFleetSelection(flags.target);
}

type StoreOutcome = Pick<FleetRow, 'changes' | 'applied' | 'failed' | 'exitCode'>;
/** `desired` is absent when the run reads no manifests (`targets --check`). */
type StoreRun = (opened: OpenedTarget, desired: DesiredState | undefined) => Promise<StoreOutcome>;

export interface FleetOptions {
  command: FleetCommand;
  flags: FleetFlags;
  /** Manifest paths for every store; empty: each target's own `manifests`. */
  paths: readonly string[];
  io: CliIO;
  /** Called as each store finishes, in the order they finish. */
  onRow?: (row: FleetRow, done: number, total: number) => void;
  /** Only open each target (and name its account): no manifests are read. */
  withoutManifests?: boolean;
}

export async function runFleet(options: FleetOptions, runStore: StoreRun): Promise<FleetReport> {
  const { flags, io } = options;
  const names = selectTargets(await loadTargetsConfig(flags, io), { patterns: flags.target, all: flags['all-targets'] });
  const concurrency = parseParallel(flags.parallel ?? io.env.ERPSYNC_PARALLEL);
  const started = performance.now();
  const rows: FleetRow[] = new Array<FleetRow>(names.length);
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < names.length; index = next++) {
      const row = await runOneStore(names[index] ?? '', options, runStore);
      rows[index] = row;
      done += 1;
      options.onRow?.(row, done, names.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, names.length) }, worker));
  return { command: options.command, rows, exitCode: worstExitCode(rows.map((r) => r.exitCode)), seconds: (performance.now() - started) / 1000 };
}

async function runOneStore(name: string, options: FleetOptions, runStore: StoreRun): Promise<FleetRow> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  let opened: OpenedTarget | undefined;
  try {
    const target = await resolveCliTarget({ ...options.flags, target: name }, options.io);
    const desired = options.withoutManifests === true ? undefined : await loadDesired(options.paths, options.io, target);
    if (!desired && options.withoutManifests !== true) throw new ErpsyncError('INVALID_MANIFEST', 'the manifests have errors (listed above)');
    opened = await openResolvedTarget(target, options.flags, options.io);
    const outcome = await runStore(opened, desired);
    return { target: name, account: opened.account, ...outcome, seconds: seconds() };
  } catch (error) {
    const message = isErpsyncError(error) ? error.message : `internal error (a bug in erpsync): ${error instanceof Error ? error.message : String(error)}`;
    const row: FleetRow = { target: name, changes: 0, error: message, exitCode: isErpsyncError(error) ? error.exitCode : exitCodes.error, seconds: seconds() };
    return opened ? { ...row, account: opened.account } : row;
  } finally {
    await opened?.close();
  }
}

/** One store's plan: its changes, and exit 2 for changes when asked (--detailed-exitcode). */
export function planStore(detailedExitCode: boolean, today: string): StoreRun {
  return async (opened, given) => {
    const desired = required(given);
    const { plan } = planOrThrow(opened, desired, await readAccount(opened, desired), today);
    const changes = actionableChanges(plan).length;
    return { changes, exitCode: detailedExitCode && changes > 0 ? exitCodes.changes : exitCodes.ok };
  };
}

/** One store's drift: the records that drifted, and exit 2 when any did. */
export function driftStore(includeBuiltin: boolean, today: string): StoreRun {
  return async (opened, given) => {
    const desired = required(given);
    const { report, diagnostics } = findDrift({ desired, live: await readAccountForDrift(opened, desired), adapters: registry.units, target: planTargetOf(opened), includeBuiltin, today });
    const first = diagnostics.find((d) => d.severity === 'error');
    if (first) throw new ErpsyncError('INVALID_MANIFEST', `the manifests have errors: ${first.message}`);
    return { changes: report.findings.length, exitCode: hasDrift(report) ? exitCodes.changes : exitCodes.ok };
  };
}

/** What a fleet apply takes from the command line, the same for every store as for one. */
export interface StoreApplyOptions {
  concurrency: number;
  lockTimeoutMs: number;
  outcomeWindowMs: number;
}

/** One store's apply, approved in advance (a fleet never prompts): under the account's lock, plan, apply, verify. */
export function applyStore(io: CliIO, options: StoreApplyOptions): StoreRun {
  return async (opened, given) => {
    const desired = required(given);
    const lock = await lockAccount(io, { key: lockKeyOf(opened), timeoutMs: options.lockTimeoutMs, inFlightMs: options.outcomeWindowMs });
    try {
      return await applyLocked(opened, desired, io, options);
    } finally {
      await lock.release();
    }
  };
}

async function applyLocked(opened: OpenedTarget, desired: DesiredState, io: CliIO, options: StoreApplyOptions): Promise<StoreOutcome> {
  const live = await readAccount(opened, desired);
  const { plan } = planOrThrow(opened, desired, live, readToday(io.env));
  const outcome = await runApplyWorkflow(plan, {
    client: opened.client,
    target: planTargetOf(opened),
    adapters: registry.units,
    readAccount: (request) => fetchLive(opened.client, registry.units, request),
    live,
    confirm: async () => true,
    report: () => undefined,
    signal: io.signal,
    concurrency: options.concurrency,
    outcomeWindowMs: options.outcomeWindowMs,
  });
  const changes = actionableChanges(plan).length;
  if (outcome.status !== 'applied') return { changes, applied: 0, failed: 0, exitCode: exitCodeOfApply(outcome) };
  return { changes, applied: outcome.result.applied, failed: outcome.result.failed + outcome.notConverged.length, exitCode: exitCodeOfApply(outcome) };
}

function required(desired: DesiredState | undefined): DesiredState {
  if (!desired) throw new ErpsyncError('INTERNAL', 'a fleet plan ran without manifests');
  return desired;
}

function planOrThrow(opened: OpenedTarget, desired: DesiredState, live: Awaited<ReturnType<typeof readAccount>>, today: string): ReturnType<typeof makePlan> {
  const result = makePlan(desired, live, opened, { allowReplace: false, today });
  const first = result.diagnostics.find((d) => d.severity === 'error');
  if (hasErrors(result.diagnostics)) throw new ErpsyncError('INVALID_MANIFEST', `the plan has errors: ${first?.message ?? 'see above'}`);
  return result;
}

function parseParallel(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_FLEET_CONCURRENCY;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new ErpsyncError('USAGE', `--parallel takes a whole number ≥ 1, not \`${raw}\``);
  return value;
}
