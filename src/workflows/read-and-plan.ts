// The steps the per-store workflow is made of: load a target's manifests, read its account (and,
// when a removal needs them, the records that may name what it removes), build its plan. Each returns what it found (diagnostics included) and prints nothing; the workflow
// sequences them and the CLI shows the results.
import type { UnkeptField } from '../model/unkept-fields.js';
import type { ApiClient, ResolvedTarget } from '../api/index.js';
import { DEFAULT_RATE } from '../api/index.js';
import type { OpenedTarget } from '../target/open-target.js';
import { readVariableScope } from '../target/open-target.js';
import type { RunIO } from '../model/run-io.js';
import { registry } from '../kinds/registry.js';
import { fetchLive } from '../live/fetch-live.js';
import { loadManifests } from '../manifest/load-manifests.js';
import type { Diagnostic } from '../model/diagnostics.js';
import { ErpsyncError } from '../model/errors.js';
import { buildPlan } from '../plan/build-plan.js';
import type { PlanOptions, PlanResult } from '../plan/build-plan.js';
import type { KindMatching } from '../model/live.js';
import { selectionTargetsOf } from '../plan/select-changes.js';
import { findNameHints } from '../plan/name-hints.js';
import type { Selection } from '../model/selection.js';
import { unmatchedPatterns } from '../model/selection.js';
import { deriveDesiredUnits, namedReadOnlyKinds, readsEveryRecord, selectUnitKinds } from '../kinds/desired-units.js';
import { referencesOf } from '../kinds/kind.js';
import { isReadOnlyKind } from '../model/kinds.js';
import type { LiveState, ReadRequest } from '../model/live.js';
import { readReferrers } from '../live/read-referrers.js';
import type { DesiredState, DesiredUnit } from '../model/desired.js';
import type { UnitKind } from '../model/kinds.js';
import type { PlanTarget } from '../model/plan.js';
import type { PlanSettings } from './store-settings.js';

/** The pace a real account allows us (under its shared 3 req/s), for cost lines of unpaced runs. */
export const projectedRate = DEFAULT_RATE;

export function planTargetOf(opened: Pick<OpenedTarget, 'target' | 'account'>): PlanTarget {
  return { mode: opened.target.mode, id: opened.target.id, name: opened.target.name, account: opened.account };
}

export interface LoadedManifests {
  /** Absent when the manifests have errors. */
  desired?: DesiredState;
  /** Errors and warnings (notes are for `validate`). */
  diagnostics: Diagnostic[];
  /** Every file read, relative to the working directory. */
  files: string[];
  /** The digest of those files, errors or not (a plan's manifestDigest); absent for a template store's. */
  digest?: string;
}

/** The manifest paths a run reads: the paths given, else the target's layers, else the current folder. */
export function manifestPathsOf(paths: readonly string[], target?: Pick<ResolvedTarget, 'manifests'>): { paths: readonly string[]; layers: boolean } {
  if (paths.length > 0) return { paths, layers: false };
  if (target?.manifests) return { paths: target.manifests, layers: true };
  return { paths: ['.'], layers: false };
}

/**
 * Loads the manifests: the paths given, else the target's `manifests` (layered: an overlay's record
 * replaces the base's), else the current folder; with the variables the project declares (model/variables).
 */
export async function loadDesired(paths: readonly string[], io: RunIO, target?: Pick<ResolvedTarget, 'name' | 'manifests' | 'envFile' | 'variables'>, offline = false): Promise<LoadedManifests> {
  const chosen = manifestPathsOf(paths, target);
  const scope = await readVariableScope(target, io);
  const result = await loadManifests(chosen.paths, { cwd: io.cwd, env: scope.env, ...(scope.declared ? { variables: scope.declared } : {}), registry, layers: chosen.layers, offline });
  const diagnostics = result.diagnostics.filter((d) => d.severity !== 'note');
  return { ...(result.desired ? { desired: result.desired } : {}), diagnostics, files: [...result.files], digest: result.digest };
}

/** What a plan reads of the account for these manifests. */
function planReadRequest(desired: DesiredState): ReadRequest {
  return {
    kinds: selectUnitKinds(desired, registry.units),
    desired: deriveDesiredUnits(desired, registry.units),
    complete: (kind) => {
      const unit = registry.unit(kind);
      return unit ? readsEveryRecord(unit, desired) : false;
    },
  };
}

/**
 * Records to read without manifests — what a revert checks before it undoes anything: desired
 * units (which records, and the references they name) and the records whose detail is read
 * whatever they set.
 */
export interface RecordsToRead {
  desired: ReadonlyMap<UnitKind, readonly DesiredUnit[]>;
  detailIds: ReadonlyMap<UnitKind, ReadonlySet<number>>;
}

/**
 * The read of these records, as a plan of them would read: their kinds and the kinds these nest in,
 * every record of the kinds they refer to (so references read as names), the read-only records they name.
 */
function recordsRequest(wanted: RecordsToRead): ReadRequest {
  const own = new Set(wanted.desired.keys());
  for (const unit of registry.units) if (own.has(unit.kind) && unit.nestedIn) own.add(unit.nestedIn);
  const referred = new Set<UnitKind>(registry.units.filter((u) => own.has(u.kind)).flatMap((u) => referencesOf(u).filter((r) => !r.parent && !isReadOnlyKind(r.target)).map((r) => r.target)));
  const named = namedReadOnlyKinds(wanted.desired, registry.units);
  return {
    kinds: registry.units.filter((u) => own.has(u.kind) || referred.has(u.kind) || named.has(u.kind)).map((u) => u.kind),
    desired: wanted.desired,
    complete: (kind) => !own.has(kind) && !isReadOnlyKind(kind),
    detailIds: wanted.detailIds,
  };
}

/** An account read and what it asked for: a later read for the same plan asks the same (details included). */
export interface AccountRead {
  live: LiveState;
  request: ReadRequest;
}

/** Reads these records of the account (and what they name); plan on the read with planOnRead. */
export async function readRecords(opened: OpenedTarget, wanted: RecordsToRead): Promise<AccountRead> {
  const request = recordsRequest(wanted);
  return { live: await fetchLive(opened.client, registry.units, request), request };
}

/**
 * Plans `desired` (no more than the read was made for) on an account read (readRecords); where
 * its removals need the records that may name them, those are read as the first read was made.
 */
export async function planOnRead(opened: OpenedTarget, desired: DesiredState, settings: PlanSettings, read: AccountRead, options: Pick<PlanOptions, 'exactMatch'> = {}): Promise<{ live: LiveState; result: PlanResult }> {
  return readSettlingReferrers(opened.client, read.request, (live) => makePlan(desired, live, opened, settings, undefined, options), read.live);
}

/**
 * Reads the account and plans. A plan that removes records that kinds it did not read in full may
 * name says which (PlanResult.unreadReferrers): those are read — only then — and the plan is made
 * again, until nothing is missing (a round reads kinds the one before lacked, so it ends within
 * the registry's length).
 */
/** `unkept`: fields the service did not keep on earlier runs (workflows/read-back-memory), not sent again. */
export async function readAndPlan(opened: OpenedTarget, desired: DesiredState, settings: PlanSettings, unkept?: readonly UnkeptField[]): Promise<{ live: LiveState; result: PlanResult }> {
  return readAndPlanWith(opened.client, desired, (live) => makePlan(desired, live, opened, settings, unkept));
}

/** readAndPlan with the client and the planning step given (in-process pipelines with a client of their own). */
export async function readAndPlanWith(client: ApiClient, desired: DesiredState, plan: (live: LiveState) => PlanResult): Promise<{ live: LiveState; result: PlanResult }> {
  return readSettlingReferrers(client, planReadRequest(desired), plan);
}

/**
 * Reads the account and runs a step over it (a plan, a drift report); while the step says removals
 * wait for kinds that may name what they remove (`unreadReferrers`), those are read — only then —
 * and the step runs again (on `read`, when the account was read already). The one loop plan and drift share.
 */
async function readSettlingReferrers<T extends Pick<PlanResult, 'unreadReferrers'>>(client: ApiClient, request: ReadRequest, step: (live: LiveState) => T, read?: LiveState): Promise<{ live: LiveState; result: T }> {
  let live = read ?? (await fetchLive(client, registry.units, request));
  let result = step(live);
  for (let round = 0; result.unreadReferrers && round < registry.units.length; round += 1) {
    live = await readReferrers(client, registry.units, request, live, result.unreadReferrers);
    result = step(live);
  }
  return { live, result };
}

/**
 * Reads the account as drift needs it — every record of the touched kinds, with every field (for
 * snippets) — and finds the drift; removals the manifests intend read the kinds that may name
 * what they remove as a plan does (counted in the report's reads).
 */
export async function readAndFindDrift<T extends Pick<PlanResult, 'unreadReferrers'>>(opened: OpenedTarget, desired: DesiredState, find: (live: LiveState) => T): Promise<{ live: LiveState; result: T }> {
  return readSettlingReferrers(
    opened.client,
    {
      kinds: selectUnitKinds(desired, registry.units),
      desired: deriveDesiredUnits(desired, registry.units),
      // Unmanaged records are found only by reading every record, and their snippets need every field.
      complete: () => true,
      everyField: true,
    },
    find,
  );
}

/**
 * Today on this machine's calendar (YYYY-MM-DD), the day policy.ignore `until` is compared with:
 * read here, at the edge, so planning and drift stay pure. `ERPSYNC_TODAY` fixes it (reproducible runs).
 */
export function readToday(env: NodeJS.ProcessEnv, now = new Date()): string {
  const fixed = env.ERPSYNC_TODAY;
  if (fixed) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(fixed)) throw new ErpsyncError('USAGE', `ERPSYNC_TODAY takes a date as YYYY-MM-DD, not \`${fixed}\``);
    return fixed;
  }
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

export function makePlan(desired: DesiredState, live: LiveState, opened: OpenedTarget, settings: PlanSettings, unkept?: readonly UnkeptField[], options: Pick<PlanOptions, 'exactMatch'> = {}): PlanResult {
  const rate = Number.isFinite(opened.target.rate) ? opened.target.rate : projectedRate;
  // Naming the account cost requests too: the plan's read cost counts them.
  const result = buildPlan(desired, { ...live, reads: live.reads + opened.identityReads }, registry.units, {
    target: planTargetOf(opened),
    allowReplace: settings.allowReplace,
    allowCascade: settings.allowCascade,
    ...(settings.maxDeletes !== undefined ? { maxDeletes: settings.maxDeletes } : {}),
    rate,
    today: settings.today,
    ...(settings.selection ? { selection: settings.selection } : {}),
    ...(unkept && unkept.length > 0 ? { unkept } : {}),
    ...options,
  });
  // Names the planner cannot judge by identity alone: a likely rename, a twin of a live record.
  return { ...result, diagnostics: [...result.diagnostics, ...findNameHints(result.plan, desired, live, registry.units)] };
}

/**
 * A targeted run (--only / --exclude) whose patterns each take in some record the manifests
 * declare or the account holds: a pattern that names nothing is a mistake (exit 1, with the
 * closest identities), not a partial plan of nothing that reads like "no changes".
 */
export function requireSelectionMatches(selection: Selection | undefined, matching: readonly KindMatching[]): void {
  if (!selection) return;
  const unmatched = unmatchedPatterns(selection, selectionTargetsOf(matching, registry.units));
  if (unmatched.length === 0) return;
  const [first, ...rest] = unmatched;
  throw new ErpsyncError('USAGE', first ?? '', { details: [...rest, 'patterns are KIND[/IDENTITY] (globs allowed), matched against identities as plans show them'] });
}
