// A fleet: the per-store workflow looped over many targets of erpsync.config.yaml, as many at a
// time as the process's request budget keeps busy (fleet-budget.ts; --parallel caps it). This file schedules and collects, nothing else (scheduleFleet is the
// one scheduler; import runs through it too): every store runs runStore with the
// same StoreSettings object a single target gets (handed through, never rebuilt), and a store
// that fails becomes a row with its error while the others go on.
import { performance } from 'node:perf_hooks';
import { selectTargets, theProcessGovernor } from '../api/index.js';
import type { ResolvedTarget, TargetsConfig } from '../api/index.js';
import type { TargetRequest } from '../target/resolve-target.js';
import type { FleetCommand, FleetReport, FleetRow } from '../model/fleet.js';
import { worstExitCode } from '../model/fleet.js';
import { ErpsyncError, exitCodes } from '../model/errors.js';
import type { FileReaders } from './file-readers.js';
import type { OpenedTarget } from '../target/open-target.js';
import { loadTargetsConfig, openResolvedTarget, readVariableScope, resolveRunTarget } from '../target/open-target.js';
import type { RunIO } from '../model/run-io.js';
import { fleetWidth } from './fleet-budget.js';
import { namesOfShard, parseShard } from './fleet-shards.js';
import { targetsChangedSince } from './changed-since.js';
import type { TouchedTarget } from '../target/changed-targets.js';
import type { Rollout } from './fleet-stages.js';
import { isFailedRow } from './fleet-stages.js';
import { countsOf, exitCodeOfBlocked, rowOfFailure, rowOfStore } from './store-outcome.js';
import type { StoreSettings } from './store-settings.js';
import type { StartSession, StoreCommand, StoreResult, StoreSource } from './store-workflow.js';
import { quietSession, runStore } from './store-workflow.js';
import type { FleetIndexEntry } from './saved-plans.js';
import { readFleetStorePlan, requireManifestsUnchanged, withOrigin } from './saved-plans.js';
import type { RevisionReader } from './git-revision.js';
import { revisionReader } from './git-revision.js';
import { newRunId } from './journal-writer.js';
import type { Plan } from '../model/plan.js';
import { actionableChanges } from '../model/plan.js';

export interface FleetStore {
  name: string;
  row: FleetRow;
  /** Absent when the store stopped with an error (the row says which). */
  result?: StoreResult;
}

export interface FleetRun {
  command: StoreCommand;
  names: readonly string[];
  /** The most stores in flight (--parallel); the budget decides below it. */
  concurrency?: number | undefined;
  settings: StoreSettings;
  /** A target by name, with the command line's target flags applied. */
  resolve(name: string): Promise<ResolvedTarget>;
  /** Each store's manifests, or the plan saved (or reviewed) for it. */
  sourceOf(name: string): Promise<StoreSource>;
  readers?: FileReaders;
  /** The run's git revisions, when the caller reads them too; absent: the fleet's own. */
  revisions?: RevisionReader;
  /** An apply's fleet id, recorded in every store's run (journal-writer newRunId). */
  fleet?: string;
  startSession(name: string): StartSession;
  /** Called as each store finishes, in the order they finish. */
  onStore?(store: FleetStore, done: number, total: number): void;
}

/** The stores a fleet run is for: the config read once, the names selected, and how to resolve each. */
export interface FleetSelection {
  config: TargetsConfig | undefined;
  names: string[];
  resolve(name: string): Promise<ResolvedTarget>;
  /** With --changed-since: why each selected store is in (the files or config entry that changed). */
  changed?: TouchedTarget[];
}

/** A fleet's target request: its `target` names or globs the stores, the rest applies to each of them. */
export interface FleetRequest extends TargetRequest {
  /** --all-targets: every target of the config. */
  allTargets?: boolean | undefined;
  /** --shard I/N: this job's part of the selection. */
  shard?: string | undefined;
  /** --changed-since REF: of the selection (every target when no other is given), those the changes since REF touch. */
  changedSince?: string | undefined;
  /** Manifest paths of the command line, read by every store: what --changed-since matches changed files against. */
  paths?: readonly string[] | undefined;
}

/**
 * `--all-targets`, or `--target` with several names or globs, or `--changed-since`; the command
 * line's other target flags apply to every store. `within` (the stores of a folder of saved plans)
 * is the whole fleet unless the request selects some of them. The shard is cut last, from what
 * the rest selected.
 */
export async function selectFleet(request: FleetRequest, io: RunIO, within?: readonly string[]): Promise<FleetSelection> {
  const config = await loadTargetsConfig(request, io);
  const everyTarget = request.allTargets === true || (request.changedSince !== undefined && request.target === undefined);
  const selecting = request.target !== undefined || everyTarget;
  const selected = selecting ? selectTargets(config, { patterns: request.target, all: everyTarget }) : undefined;
  const all = within ? within.filter((name) => selected?.includes(name) ?? true) : (selected ?? []);
  const changed = request.changedSince === undefined || !config ? undefined : await targetsChangedSince({ ref: request.changedSince, configFile: request.config, paths: request.paths ?? [] }, config, all, io);
  const touched = changed ? all.filter((name) => changed.some((c) => c.target === name)) : all;
  // `--shard I/N`: this job's part of the selection, cut as `targets --json` planned it.
  const names = request.shard === undefined ? touched : namesOfShard(touched, parseShard(request.shard), config?.concurrency?.groups);
  return { config, names, resolve: (name) => resolveRunTarget({ ...request, target: name }, io, config), ...(changed ? { changed: changed.filter((c) => names.includes(c.target)) } : {}) };
}

export interface FleetOutcome {
  stores: FleetStore[];
  report: FleetReport;
}

export async function runFleet(run: FleetRun, io: RunIO): Promise<FleetOutcome> {
  const started = performance.now();
  const revisions = run.revisions ?? revisionReader(io.cwd);
  const stores = await scheduleFleet(run.names, run.resolve, run.concurrency, async (target, name) => {
    const began = performance.now();
    const seconds = () => (performance.now() - began) / 1000;
    const deadline = storeDeadline(io, run.settings.storeTimeoutMs);
    try {
      const job = { command: run.command, target: await target, source: await run.sourceOf(name), settings: run.settings, revisions, ...(run.readers ? { readers: run.readers } : {}), ...(run.fleet === undefined ? {} : { fleet: run.fleet }) };
      const running = runStore(job, deadline.io, run.startSession(name));
      // A read-only run is left behind at its deadline; an apply is waited for, as it stops starting
      // changes at once and its requests in flight are bounded by --request-timeout.
      const result = await (run.command === 'apply' ? running : Promise.race([running, deadline.expired]));
      if (deadline.fired()) throw deadline.error();
      return { name, row: rowOfStore(name, result, run.settings, seconds()), result };
    } catch (error) {
      return { name, row: rowOfFailure(name, deadline.fired() ? deadline.error() : error, seconds()) };
    } finally {
      deadline.clear();
    }
  }, run.onStore);
  return { stores, report: reportOf(run.command, stores, started) };
}

/** One store's deadline: its own abort signal (beside Ctrl-C's), and the timeout it ends in. */
function storeDeadline(io: RunIO, ms: number): { io: RunIO; expired: Promise<never>; fired: () => boolean; error: () => ErpsyncError; clear: () => void } {
  const controller = new AbortController();
  let reject: (error: unknown) => void = () => undefined;
  const expired = new Promise<never>((_, fail) => (reject = fail));
  expired.catch(() => undefined);
  const error = () => new ErpsyncError('API_TIMEOUT', `the store did not finish within ${Math.round(ms / 1000)} s (--store-timeout): stopped`);
  const timer = setTimeout(() => {
    controller.abort();
    reject(error());
  }, ms);
  timer.unref();
  return { io: { ...io, signal: AbortSignal.any([io.signal, controller.signal]) }, expired, fired: () => controller.signal.aborted, error, clear: () => clearTimeout(timer) };
}

/** `targets --check`: opens each target and names its account, nothing more. */
export async function checkFleet(names: readonly string[], concurrency: number | undefined, resolve: (name: string) => Promise<ResolvedTarget>, io: RunIO, onStore?: FleetRun['onStore']): Promise<FleetOutcome> {
  const started = performance.now();
  const stores = await scheduleFleet(names, resolve, concurrency, async (target, name) => {
    const began = performance.now();
    let opened: OpenedTarget | undefined;
    try {
      opened = await openResolvedTarget(await target, { debug: false }, io);
      return { name, row: { target: name, account: opened.account, changes: 0, exitCode: exitCodes.ok, seconds: (performance.now() - began) / 1000 } };
    } catch (error) {
      return { name, row: rowOfFailure(name, error, (performance.now() - began) / 1000) };
    } finally {
      await opened?.close();
    }
  }, onStore);
  return { stores, report: reportOf('check', stores, started) };
}

function reportOf(command: FleetCommand, stores: readonly FleetStore[], started: number): FleetReport {
  const rows = stores.map((s) => s.row);
  return { command, rows, exitCode: worstExitCode(rows.map((r) => r.exitCode)), seconds: (performance.now() - started) / 1000 };
}

/** Every store's target, resolved before any runs (a failure stays with its store): their rates decide the width. */
async function resolveAll(names: readonly string[], resolve: (name: string) => Promise<ResolvedTarget>): Promise<Promise<ResolvedTarget>[]> {
  const targets = names.map((name) => resolve(name));
  await Promise.allSettled(targets);
  return targets;
}

async function widthOf(targets: readonly Promise<ResolvedTarget>[], cap: number | undefined): Promise<number> {
  const rates = await Promise.all(targets.map((t) => t.then((target) => target.rate, () => Number.POSITIVE_INFINITY)));
  return fleetWidth(rates, theProcessGovernor().requestRate(), cap);
}

/**
 * The fleet's one scheduler, for every command that runs store by store (plan, apply, drift,
 * `targets --check`, import): every target resolved first, then `work` for each store, as many at a
 * time as the request budget keeps busy (`cap`, --parallel, only lowers it); results in the names' order.
 */
export async function scheduleFleet<T>(
  names: readonly string[],
  resolve: (name: string) => Promise<ResolvedTarget>,
  cap: number | undefined,
  work: (target: Promise<ResolvedTarget>, name: string) => Promise<T>,
  onDone?: (item: T, done: number, total: number) => void,
): Promise<T[]> {
  const targets = await resolveAll(names, resolve);
  return forEachStore(names, widthOf(targets, cap), (name, index) => work(targets[index] as Promise<ResolvedTarget>, name), onDone);
}

/** `work` for every name, at most `width` at once; results in the names' order, `onStore` as each finishes. */
export async function forEachStore<T>(names: readonly string[], width: Promise<number>, work: (name: string, index: number) => Promise<T>, onStore?: (item: T, done: number, total: number) => void): Promise<T[]> {
  const concurrency = await width;
  const stores = new Array<T>(names.length);
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < names.length; index = next++) {
      const store = await work(names[index] ?? '', index);
      stores[index] = store;
      done += 1;
      onStore?.(store, done, names.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, concurrency), names.length) }, worker));
  return stores;
}

/** Where a fleet apply's plans come from: planned now (from the manifests, or a template store), or saved by `plan --out DIR`. */
export type FleetPlans = { type: 'planned'; source: StoreSource } | { type: 'saved'; folder: string; shown: string; entries: readonly FleetIndexEntry[] };

export interface FleetApplyRun {
  from: FleetPlans;
  fleet: FleetSelection;
  /** Stages to apply in, halting after failures (fleet-stages.ts); absent: every store at once. */
  rollout?: Rollout | undefined;
  concurrency?: number | undefined;
  settings: StoreSettings;
  /** Shown every store's plan before anything is written; true to apply them all. Asked only when some store has changes. */
  review(stores: readonly FleetStore[]): Promise<boolean>;
  onStore?: FleetRun['onStore'];
}

/**
 * A fleet apply: every store's plan first (planned now, or read from the folder), one review of
 * them all, then each store's reviewed plan applied as a saved plan — re-checked against its own
 * account under its lock, so a store changed since its plan is refused while the others apply.
 */
export async function applyFleet(run: FleetApplyRun, io: RunIO): Promise<FleetOutcome & { reviewed: FleetStore[]; declined: boolean }> {
  const started = performance.now();
  const revisions = revisionReader(io.cwd);
  const reviewed = run.from.type === 'planned' ? await planFleetStores(run, run.from.source, revisions, io) : await readFleetStores(run, run.from, io);
  if (run.from.type === 'saved') await requireManifestsUnchanged(reviewed.flatMap((s) => (s.result?.status === 'planned' ? [{ plan: s.result.plan, target: s.result.target }] : [])), io);
  const toApply = reviewed.filter((s) => s.result?.status === 'planned' && actionableChanges(s.result.plan).length > 0);
  const declined = toApply.length > 0 && !(await run.review(reviewed));
  if (declined || toApply.length === 0) return { reviewed, declined, stores: reviewed, report: reportOf('apply', reviewed, started) };
  const plans = new Map(toApply.map((s) => [s.name, s.result?.status === 'planned' ? s.result.plan : undefined]));
  const stages = run.rollout?.stages ?? [{ label: '', names: run.fleet.names }];
  // One id for the runs of every store, across the stages: the journal ties them together.
  const fleet = newRunId(new Date());
  const byName = new Map(reviewed.map((s) => [s.name, s]));
  let failed = 0;
  let halted: string | undefined;
  for (const stage of stages) {
    if (halted !== undefined) {
      for (const name of stage.names) byName.set(name, skippedStore(byName.get(name), name, stage.label, halted));
      continue;
    }
    const applied = await runFleet(
      {
        command: 'apply',
        fleet,
        names: stage.names.filter((name) => plans.has(name)),
        concurrency: run.concurrency,
        settings: run.settings,
        resolve: run.fleet.resolve,
        sourceOf: async (name) => ({ type: 'saved-plan', plan: plans.get(name) as Plan }),
        revisions,
        startSession: () => approvedSession,
        ...(run.onStore ? { onStore: run.onStore } : {}),
      },
      io,
    );
    for (const store of applied.stores) byName.set(store.name, store);
    const rows = stage.names.flatMap((name) => byName.get(name)?.row ?? []);
    if (run.rollout) for (const row of rows) row.stage = stage.label;
    failed += rows.filter(isFailedRow).length;
    if (run.rollout && failed >= run.rollout.haltAfter) halted = `halted after ${failed} failed store(s) in the ${stage.label} stage`;
  }
  const stores = reviewed.map((s) => byName.get(s.name) ?? s);
  const report = reportOf('apply', stores, started);
  return { reviewed, declined, stores, report: halted === undefined ? report : { ...report, exitCode: exitCodes.error } };
}

/** A store a halted rollout did not reach: its plan was made and reviewed, and nothing was written. */
function skippedStore(store: FleetStore | undefined, name: string, stage: string, why: string): FleetStore {
  const row = store?.row ?? { target: name, changes: 0, exitCode: exitCodes.ok, seconds: 0 };
  return { name, row: { ...row, applied: 0, stage, skipped: why, exitCode: exitCodes.error } };
}

/** Each store was reviewed with the whole fleet before any was applied: its own run asks no more. */
const approvedSession: StartSession = () => ({ report: () => undefined, confirm: async () => true, stop: new AbortController().signal, close: async () => undefined });

/** Every store planned now; each plan records its origin, as a saved one does, for the journal. */
async function planFleetStores(run: FleetApplyRun, source: StoreSource, revisions: RevisionReader, io: RunIO): Promise<FleetStore[]> {
  const planned = await runFleet(
    { command: 'plan', names: run.fleet.names, concurrency: run.concurrency, settings: run.settings, resolve: run.fleet.resolve, sourceOf: async () => source, revisions, startSession: () => quietSession },
    io,
  );
  return Promise.all(
    planned.stores.map(async (s): Promise<FleetStore> => {
      if (s.result?.status !== 'planned') return s;
      const plan = await withOrigin(s.result.plan, source, s.result.target, revisions);
      // A store's plan is reviewed like `plan`'s, so its row counts changes, not an exit 2.
      return { ...s, result: { ...s.result, plan }, row: { ...s.row, exitCode: exitCodeOfBlocked(plan) } };
    }),
  );
}

async function readFleetStores(run: FleetApplyRun, from: Extract<FleetPlans, { type: 'saved' }>, io: RunIO): Promise<FleetStore[]> {
  const entries = new Map(from.entries.map((e) => [e.target, e]));
  const names = run.fleet.names.filter((name) => entries.has(name));
  return Promise.all(
    names.map(async (name): Promise<FleetStore> => {
      try {
        const target = await run.fleet.resolve(name);
        const plan = await readFleetStorePlan(from.folder, from.shown, entries.get(name) as FleetIndexEntry, await readVariableScope(target, io));
        const result: StoreResult = { target, status: 'planned', plan, diagnostics: [] };
        return { name, result, row: { target: name, account: plan.target.account, ...countsOf(plan), exitCode: exitCodeOfBlocked(plan), seconds: 0 } };
      } catch (error) {
        return { name, row: rowOfFailure(name, error, 0) };
      }
    }),
  );
}
