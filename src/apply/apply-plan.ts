// applyPlan executes a given Plan: wave by wave, a bounded number of changes at a time inside a
// wave (the client paces every request), skipping the dependents of a failed change while
// independent changes go on. A create is never sent twice while the first may still commit: when
// its outcome is unknown (a timeout, a lost connection, a 5xx) it is looked up by its identity
// over a bounded window; found, it is adopted; absent for the whole window, it is sent once more
// (the first will not land any more), and after a second such window reported as outcome unknown. It decides nothing about WHAT to change (that is buildPlan's job) and prints
// nothing: progress goes to the injected listener.
import type { ApiClient } from '../api/client.js';
import { setTimeout as delay } from 'node:timers/promises';
import { ApiOutcomeUnknownError } from '../api/errors.js';
import { ErpsyncError } from '../model/errors.js';
import type { KindAdapter, WriteContext, WriteResult } from '../kinds/kind.js';
import { referencesOf } from '../kinds/kind.js';
import { isReadOnlyKind } from '../model/kinds.js';
import type { LiveRecord, LiveState } from '../model/live.js';
import type { Change, Plan } from '../model/plan.js';
import type { UnitKind } from '../model/kinds.js';
import type { ApplyEvent, ApplyResult, ChangeOutcome } from '../model/events.js';

export interface ApplyOptions {
  client: ApiClient;
  adapters: readonly KindAdapter[];
  /** The account as read for the plan: the base for PUT merges and the ids of existing records. */
  live: LiveState;
  /** Changes run at once inside a wave. */
  concurrency?: number;
  signal?: AbortSignal;
  /** Awaited before each change starts: a paused apply (the Ctrl-C question) starts none meanwhile. */
  hold?: () => Promise<void>;
  onEvent?: (event: ApplyEvent) => void;
  /**
   * How long a create whose outcome is unknown may still commit on the server: it is looked up
   * over this window (first at once, then every `lookupEveryMs`), never sent a second time.
   */
  outcomeWindowMs?: number;
  lookupEveryMs?: number;
}

/** The server may go on processing a request well after the client gave up on it (30 s: the client's own timeout). */
export const defaultOutcomeWindowMs = 30_000;
/** A create is sent again only after the previous one stayed absent for a whole window. */
const maxCreateAttempts = 2;
const defaultLookupEveryMs = 3_000;

function describeError(error: unknown, client: ApiClient): { error: string; code: string } {
  const message = error instanceof Error ? error.message : String(error);
  const details = (error as { details?: readonly string[] }).details ?? [];
  const code = (error as { code?: string }).code ?? 'INTERNAL';
  return { error: client.redact([message, ...details].join('; ')), code };
}

export async function applyPlan(plan: Plan, options: ApplyOptions): Promise<ApplyResult> {
  const run = startRun(plan, options);
  const waves = [...new Set(plan.changes.map((c) => c.wave))].sort((a, b) => a - b);
  options.onEvent?.({ type: 'apply-start', changes: plan.changes.length, waves: waves.length });
  for (const wave of waves) await runWave(run, plan.changes.filter((c) => c.wave === wave), wave);
  const list = plan.changes.map((change) => ({ change, outcome: run.outcomes.get(change.id) ?? ({ status: 'skipped', because: 'not reached' } as const) }));
  const count = (status: ChangeOutcome['status']) => list.filter((o) => o.outcome.status === status).length;
  const result = { outcomes: list, applied: count('applied'), failed: count('failed'), skipped: count('skipped'), blocked: count('blocked'), interrupted: run.interrupted };
  const { outcomes: _outcomes, ...counts } = result;
  options.onEvent?.({ type: 'apply-end', ...counts, requests: run.requestsSent() });
  return result;
}

/** One apply in progress: what it knows of the account's ids, and what each change came to. */
interface ApplyRun {
  options: ApplyOptions;
  adapters: ReadonlyMap<UnitKind, KindAdapter>;
  byId: ReadonlyMap<string, Change>;
  /** `kind:identity` → live id, for records read, renamed and created in this run. */
  ids: Map<string, number>;
  /** `kind:id` → the record as read for the plan. */
  liveById: ReadonlyMap<string, LiveRecord>;
  outcomes: Map<string, ChangeOutcome>;
  /** What the request of each change that carries others did, once it is known (see Change.carries). */
  carrierResult: (id: string) => Promise<CarrierResult>;
  settleCarrier: (id: string, result: CarrierResult) => void;
  requestsSent: () => number;
  interrupted: boolean;
  /** Set once a write was refused because another run took the account's lock, the backend holding it was lost, the account's daily quota is spent, the journal cannot record it, or the service cannot be reached: nothing more starts. */
  stopped?: string;
}

/** Failures after which no change may start: what follows them would meet the same refusal. */
const stoppingCodes: Readonly<Record<string, string>> = {
  LOCK_LOST: 'the account lock was lost: not sent',
  DAILY_QUOTA: "the account's daily request quota is used up: not sent",
  BACKEND_LOST: 'the state backend was lost, so the account lease cannot be confirmed: not sent',
  FILE_UNWRITABLE: 'the journal could not record the write before it: not sent',
  API_UNREACHABLE: 'the service could not be reached: not sent',
};

function startRun(plan: Plan, options: ApplyOptions): ApplyRun {
  const ids = new Map<string, number>();
  const liveById = new Map<string, LiveRecord>();
  for (const [kind, records] of options.live.records) {
    for (const record of records) {
      ids.set(`${kind}:${record.identity}`, record.id);
      liveById.set(`${kind}:${record.id}`, record);
    }
  }
  // Records this plan renames or moves (and the records below them) answer to their new
  // identity too: a child may be created under a record whose parent this plan renames.
  for (const rename of plan.renames) ids.set(`${rename.kind}:${rename.to}`, rename.liveId);
  for (const change of plan.changes) {
    if (change.liveId !== undefined && change.action !== 'delete') ids.set(`${change.kind}:${change.key}`, change.liveId);
  }
  const sentWith = new Map<string, { promise: Promise<CarrierResult>; settle: (result: CarrierResult) => void }>();
  const entry = (id: string) => {
    let found = sentWith.get(id);
    if (!found) {
      let settle: (result: CarrierResult) => void = () => {};
      const promise = new Promise<CarrierResult>((resolve) => (settle = resolve));
      found = { promise, settle };
      sentWith.set(id, found);
    }
    return found;
  };
  const requestsBefore = options.client.stats().total;
  return {
    options,
    adapters: new Map(options.adapters.map((a) => [a.kind, a])),
    byId: new Map(plan.changes.map((c) => [c.id, c])),
    ids,
    liveById,
    outcomes: new Map(),
    carrierResult: (id) => entry(id).promise,
    settleCarrier: (id, result) => entry(id).settle(result),
    requestsSent: () => options.client.stats().total - requestsBefore,
    interrupted: false,
  };
}

/** Runs a wave's changes, a bounded number at once. */
async function runWave(run: ApplyRun, inWave: readonly Change[], wave: number): Promise<void> {
  run.options.onEvent?.({ type: 'wave-start', wave, changes: inWave.length });
  // Plan order puts a carrier before the changes it carries, so one worker never waits on itself.
  const queue = [...inWave];
  const runNext = async (): Promise<void> => {
    for (let change = queue.shift(); change; change = queue.shift()) {
      // A paused run (Ctrl-C asking) starts nothing until the person answers.
      await run.options.hold?.();
      await runChange(run, change);
    }
  };
  const concurrency = Math.max(1, run.options.concurrency ?? 3);
  await Promise.all(Array.from({ length: Math.min(concurrency, inWave.length) }, runNext));
}

function recordOutcome(run: ApplyRun, change: Change, outcome: ChangeOutcome, result: CarrierResult = { outcome, included: new Set() }): void {
  run.outcomes.set(change.id, outcome);
  if (outcome.status === 'failed') run.stopped ??= stoppingCodes[outcome.code];
  if (change.carries) run.settleCarrier(change.id, result);
  run.options.onEvent?.({ type: 'change-end', change, outcome, requests: run.requestsSent() });
}

function failedDependencyOf(run: ApplyRun, change: Change, except?: string): string | undefined {
  return change.dependsOn.find((id) => {
    if (id === except) return false;
    const status = run.outcomes.get(id)?.status;
    return status !== undefined && status !== 'applied';
  });
}

/** Why a change does not run at all (interrupted, blocked, a failed dependency), or undefined. */
function outcomeWithoutRunning(run: ApplyRun, change: Change): ChangeOutcome | undefined {
  if (run.options.signal?.aborted) {
    run.interrupted = true;
    return { status: 'skipped', because: 'interrupted' };
  }
  if (run.stopped !== undefined) return { status: 'skipped', because: run.stopped };
  if (change.action === 'blocked') return { status: 'blocked', because: change.note ?? change.reason };
  const failedDependency = failedDependencyOf(run, change);
  if (failedDependency) return { status: 'skipped', because: `${failedDependency} did not apply` };
  if (!run.adapters.has(change.kind)) return { status: 'failed', error: `no adapter for ${change.kind}`, code: 'INTERNAL' };
  return undefined;
}

async function runChange(run: ApplyRun, change: Change): Promise<void> {
  const early = outcomeWithoutRunning(run, change);
  if (early) {
    recordOutcome(run, change, early);
    return;
  }
  if (change.carriedBy !== undefined) {
    const sent = await run.carrierResult(change.carriedBy);
    if (sent.included.has(change.id)) {
      const outcome = carriedOutcome(change, sent);
      if (outcome.status === 'applied' && outcome.id !== undefined) run.ids.set(`${change.kind}:${change.key}`, outcome.id);
      run.options.onEvent?.({ type: 'change-start', change });
      recordOutcome(run, change, outcome);
      return;
    }
    // Left out of its carrier's request (a dependency was not settled then): sent on its own.
  }
  await sendChange(run, change, run.adapters.get(change.kind) as KindAdapter);
}

/** Sends a change's own request, with the carried changes whose own dependencies went through. */
async function sendChange(run: ApplyRun, change: Change, adapter: KindAdapter): Promise<void> {
  const carried = (change.carries ?? []).flatMap((id) => {
    const other = run.byId.get(id);
    if (!other || failedDependencyOf(run, other, change.id) !== undefined || other.dependsOn.some((d) => d !== change.id && run.outcomes.get(d) === undefined)) return [];
    const live = other.liveId !== undefined ? run.liveById.get(`${other.kind}:${other.liveId}`) : undefined;
    return [{ change: other, ...(live ? { live } : {}) }];
  });
  const included = new Set(carried.map((c) => c.change.id));
  try {
    // A listener that cannot take the start (the journal cannot record the intent) keeps the write from being sent.
    run.options.onEvent?.({ type: 'change-start', change });
  } catch (error) {
    recordOutcome(run, change, { status: 'failed', ...describeError(error, run.options.client) });
    return;
  }
  try {
    const { carriedIds, carriedFailures, refused, ...outcome } = await executeChange(change, adapter, run.options, run.ids, run.liveById, carried);
    if (outcome.id !== undefined) run.ids.set(`${change.kind}:${change.key}`, outcome.id);
    const applied: ChangeOutcome = { status: 'applied', ...outcome };
    // The request went through even when the service kept this change's own record: the carried changes take the request's outcome.
    const own: ChangeOutcome = refused === undefined ? applied : { status: 'failed', error: refused, code: 'API_ERROR' };
    recordOutcome(run, change, own, { outcome: applied, included, ...(carriedIds ? { carriedIds } : {}), ...(carriedFailures ? { carriedFailures } : {}) });
  } catch (error) {
    const failed: ChangeOutcome = { status: 'failed', ...describeError(error, run.options.client) };
    recordOutcome(run, change, failed, { outcome: failed, included });
  }
}

/** What the request of a change that carries others did, for the changes it carried. */
interface CarrierResult {
  outcome: ChangeOutcome;
  /** The carried changes that were in the request. */
  included: ReadonlySet<string>;
  carriedIds?: Readonly<Record<string, number>>;
  carriedFailures?: Readonly<Record<string, string>>;
}

/** A carried change shares its carrier's outcome, unless the answer refused it in particular. */
function carriedOutcome(change: Change, sent: CarrierResult): ChangeOutcome {
  const { outcome } = sent;
  if (outcome.status === 'failed') return { status: 'failed', error: `sent with ${change.carriedBy ?? '?'}: ${outcome.error}`, code: outcome.code };
  if (outcome.status !== 'applied') return { status: 'skipped', because: `${change.carriedBy ?? '?'} did not apply` };
  const refused = sent.carriedFailures?.[change.id];
  if (refused !== undefined) return { status: 'failed', error: refused, code: 'API_ERROR' };
  const id = sent.carriedIds?.[change.id];
  return { status: 'applied', ...(id === undefined ? {} : { id }), ...(outcome.adopted ? { adopted: true } : {}) };
}

async function executeChange(
  change: Change,
  adapter: KindAdapter,
  options: ApplyOptions,
  ids: Map<string, number>,
  liveById: ReadonlyMap<string, LiveRecord>,
  carried: WriteContext['carried'] = [],
): Promise<WriteResult & { adopted?: boolean }> {
  const live = change.liveId !== undefined ? liveById.get(`${change.kind}:${change.liveId}`) : undefined;
  const context: WriteContext = {
    client: options.client,
    resolveId: (kind: UnitKind, identity: string) => ids.get(`${kind}:${identity}`),
    ...(live ? { live } : {}),
    ...(carried.length > 0 ? { carried } : {}),
  };
  if (change.action !== 'create') return adapter.execute(change, context);
  const windowMs = options.outcomeWindowMs ?? defaultOutcomeWindowMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await adapter.execute(change, context);
    } catch (error) {
      if (!(error instanceof ApiOutcomeUnknownError)) throw error;
      const found = await awaitCommittedCreate(change, adapter, options, windowMs).catch((lookup: unknown) => {
        // The lookup failed too (the service went away): what the create did is still unknown, never `failed`.
        throw new ErpsyncError('API_OUTCOME_UNKNOWN', `${error.message}; looking it up failed: ${lookup instanceof Error ? lookup.message : String(lookup)}`, {
          cause: error,
          details: ['erpsync never sends a create again while an earlier one may still commit: run apply again to finish (it finds the record if it was made)'],
        });
      });
      if (found !== undefined) {
        await completeAdopted(change, adapter, found, context);
        return { id: found, adopted: true };
      }
      // Absent for the whole window: the first request will not land any more, so one more is safe.
      if (attempt < maxCreateAttempts) continue;
      throw new ErpsyncError('API_OUTCOME_UNKNOWN', `${error.message}; it did not appear within ${Math.round(windowMs / 100) / 10} s, twice`, {
        cause: error,
        details: ['erpsync never sends a create again while an earlier one may still commit: run apply again to finish (it finds the record if it was made)'],
      });
    }
  }
}

/**
 * A create whose POST committed unseen is done only once its follow-up requests are: they are sent
 * on the record found. When one fails, the change fails saying what was done and what was not.
 */
async function completeAdopted(change: Change, adapter: KindAdapter, id: number, context: WriteContext): Promise<void> {
  if (!adapter.completeCreate) return;
  try {
    await adapter.completeCreate(change, id, context);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ErpsyncError((error as { code?: ErpsyncError['code'] }).code ?? 'API_ERROR', `created (id ${id}, found after its answer was lost), but what follows the create failed: ${message}`, {
      cause: error,
      details: ['run apply again to finish it'],
    });
  }
}

/** Looks the record up by its identity until it appears or the window ends; undefined when it never did. */
async function awaitCommittedCreate(change: Change, adapter: KindAdapter, options: ApplyOptions, windowMs: number): Promise<number | undefined> {
  const deadline = Date.now() + windowMs;
  for (;;) {
    const found = await findByIdentity(change, adapter, options);
    const left = deadline - Date.now();
    if (found !== undefined || left <= 0) return found;
    await delay(Math.min(left, options.lookupEveryMs ?? defaultLookupEveryMs));
  }
}

async function findByIdentity(change: Change, adapter: KindAdapter, options: ApplyOptions): Promise<number | undefined> {
  return (await readForIdentity(adapter, options)).find((r) => r.identity === change.key)?.id;
}

/**
 * Every record of a kind with its identity as the account makes it now, for a lookup by identity
 * (here, and when the journal settles an outcome it left unknown). The identity may be made of
 * records created in this run (a service's logistics, a store link's category): those kinds are
 * read again first. Read-only kinds do not change: read only when `live` lacks them.
 */
export async function readForIdentity(adapter: KindAdapter, options: Pick<ApplyOptions, 'client' | 'adapters' | 'live'>): Promise<LiveRecord[]> {
  const earlier = new Map(options.live.records);
  const stale = (kind: UnitKind) => !isReadOnlyKind(kind) || !options.live.records.has(kind);
  const context = new Set<UnitKind>([...(adapter.nestedIn ? [adapter.nestedIn] : []), ...referencesOf(adapter).filter((r) => !r.parent && stale(r.target)).map((r) => r.target)]);
  for (const kind of context) {
    const contextAdapter = options.adapters.find((a) => a.kind === kind);
    if (contextAdapter) earlier.set(kind, await contextAdapter.readLive(options.client, { desired: [], all: true, earlier }));
  }
  return adapter.readLive(options.client, { desired: [], all: true, earlier });
}
