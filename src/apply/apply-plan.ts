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
import type { KindAdapter } from '../kinds/kind.js';
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
  const { client, live } = options;
  const adapters = new Map(options.adapters.map((a) => [a.kind, a]));
  const concurrency = Math.max(1, options.concurrency ?? 3);
  const ids = new Map<string, number>();
  const liveById = new Map<string, LiveRecord>();
  for (const [kind, records] of live.records) {
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

  const requestsBefore = client.stats().total;
  const requestsSent = () => client.stats().total - requestsBefore;
  const outcomes = new Map<string, ChangeOutcome>();
  const record = (change: Change, outcome: ChangeOutcome) => {
    outcomes.set(change.id, outcome);
    options.onEvent?.({ type: 'change-end', change, outcome, requests: requestsSent() });
  };

  const waves = [...new Set(plan.changes.map((c) => c.wave))].sort((a, b) => a - b);
  options.onEvent?.({ type: 'apply-start', changes: plan.changes.length, waves: waves.length });
  let interrupted = false;
  for (const wave of waves) {
    const inWave = plan.changes.filter((c) => c.wave === wave);
    options.onEvent?.({ type: 'wave-start', wave, changes: inWave.length });
    const queue = [...inWave];
    const runNext = async (): Promise<void> => {
      for (let change = queue.shift(); change; change = queue.shift()) {
        await options.hold?.();
        if (options.signal?.aborted) {
          interrupted = true;
          record(change, { status: 'skipped', because: 'interrupted' });
          continue;
        }
        if (change.action === 'blocked') {
          record(change, { status: 'blocked', because: change.note ?? change.reason });
          continue;
        }
        const failedDependency = change.dependsOn.find((id) => {
          const status = outcomes.get(id)?.status;
          return status !== undefined && status !== 'applied';
        });
        if (failedDependency) {
          record(change, { status: 'skipped', because: `${failedDependency} did not apply` });
          continue;
        }
        const adapter = adapters.get(change.kind);
        if (!adapter) {
          record(change, { status: 'failed', error: `no adapter for ${change.kind}`, code: 'INTERNAL' });
          continue;
        }
        options.onEvent?.({ type: 'change-start', change });
        try {
          const outcome = await executeChange(change, adapter, options, ids, liveById);
          if (outcome.id !== undefined) ids.set(`${change.kind}:${change.key}`, outcome.id);
          record(change, { status: 'applied', ...outcome });
        } catch (error) {
          record(change, { status: 'failed', ...describeError(error, client) });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, inWave.length) }, runNext));
  }

  const list = plan.changes.map((change) => ({ change, outcome: outcomes.get(change.id) ?? ({ status: 'skipped', because: 'not reached' } as const) }));
  const count = (status: ChangeOutcome['status']) => list.filter((o) => o.outcome.status === status).length;
  const result = { outcomes: list, applied: count('applied'), failed: count('failed'), skipped: count('skipped'), blocked: count('blocked'), interrupted };
  const { outcomes: _outcomes, ...counts } = result;
  options.onEvent?.({ type: 'apply-end', ...counts, requests: requestsSent() });
  return result;
}

async function executeChange(
  change: Change,
  adapter: KindAdapter,
  options: ApplyOptions,
  ids: Map<string, number>,
  liveById: ReadonlyMap<string, LiveRecord>,
): Promise<{ id?: number; adopted?: boolean }> {
  const live = change.liveId !== undefined ? liveById.get(`${change.kind}:${change.liveId}`) : undefined;
  const context = {
    client: options.client,
    resolveId: (kind: UnitKind, identity: string) => ids.get(`${kind}:${identity}`),
    ...(live ? { live } : {}),
  };
  if (change.action !== 'create') return adapter.execute(change, context);
  const windowMs = options.outcomeWindowMs ?? defaultOutcomeWindowMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await adapter.execute(change, context);
    } catch (error) {
      if (!(error instanceof ApiOutcomeUnknownError)) throw error;
      const found = await awaitCommittedCreate(change, adapter, options, windowMs);
      if (found !== undefined) return { id: found, adopted: true };
      // Absent for the whole window: the first request will not land any more, so one more is safe.
      if (attempt < maxCreateAttempts) continue;
      throw new ErpsyncError('API_OUTCOME_UNKNOWN', `${error.message}; it did not appear within ${Math.round(windowMs / 100) / 10} s, twice`, {
        cause: error,
        details: ['erpsync never sends a create again while an earlier one may still commit: run apply again to finish (it finds the record if it was made)'],
      });
    }
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
  const earlier = new Map(options.live.records);
  if (adapter.nestedIn) {
    const parentAdapter = options.adapters.find((a) => a.kind === adapter.nestedIn);
    if (parentAdapter) earlier.set(parentAdapter.kind, await parentAdapter.readLive(options.client, { desired: [], all: true, earlier }));
  }
  const records = await adapter.readLive(options.client, { desired: [], all: true, earlier });
  return records.find((r) => r.identity === change.key)?.id;
}
