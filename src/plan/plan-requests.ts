// What apply will send for a plan, decided once here: which changes share a request (services
// nested in the create of their logistics, batches of service creates, bulk deletes), which
// changes the answer of their own request proves (the rest are read back after the writes), and
// the cost line that counts all of it — the reads of the plan, the write requests and the
// read-back. Pure; kinds say what their API takes (KindAdapter.batching, readBackDetail,
// writeRequests) and this module only groups. Apply executes what is recorded here and never
// decides any of it again.
import { readBackKinds } from '../kinds/desired-units.js';
import type { KindAdapter } from '../kinds/kind.js';
import type { UnitKind } from '../model/kinds.js';
import type { LiveState } from '../model/live.js';
import type { Change, PlanCost } from '../model/plan.js';
import { isActionable, needsReadBack } from '../model/plan.js';

/** List pages the API serves (`limite` 100): a kind's read grows by one page per hundred records. */
const pageSize = 100;

/** The identity of the record a unit sits in (a service's logistics), when it has one. */
export type ParentOf = (kind: UnitKind, identity: string) => string | undefined;

function carry(lead: Change, carried: Change): void {
  lead.carries = [...(lead.carries ?? []), carried.id];
  carried.carriedBy = lead.id;
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let at = 0; at < items.length; at += size) chunks.push(items.slice(at, at + size));
  return chunks;
}

/** Groups the writes a kind's API takes together; records the grouping in the changes. */
export function planBatches(changes: readonly Change[], adapters: readonly KindAdapter[], parentOf: ParentOf): void {
  for (const adapter of adapters) {
    const batching = adapter.batching;
    if (!batching) continue;
    const ofKind = changes.filter((c) => c.kind === adapter.kind && isActionable(c) && c.carriedBy === undefined);
    const creates = ofKind.filter((c) => c.action === 'create');
    const loose: Change[] = [];
    for (const create of creates) {
      const parent = parentOf(adapter.kind, create.key);
      const parentCreate = batching.createsInParent && adapter.nestedIn && parent !== undefined
        ? changes.find((c) => c.kind === adapter.nestedIn && c.key === parent && c.action === 'create')
        : undefined;
      if (parentCreate) carry(parentCreate, create);
      else loose.push(create);
    }
    if (batching.createsPerRequest !== undefined && batching.createsPerRequest > 1) {
      groupAndCarry(loose, (c) => `${c.wave}\u0000${parentOf(adapter.kind, c.key) ?? ''}`, batching.createsPerRequest);
    }
    if (batching.deletesPerRequest !== undefined && batching.deletesPerRequest > 1) {
      // One wave at a time: a parent's delete waits for its children's, which sit in earlier waves.
      groupAndCarry(ofKind.filter((c) => c.action === 'delete'), (c) => String(c.wave), batching.deletesPerRequest);
    }
  }
}

function groupAndCarry(changes: readonly Change[], groupOf: (change: Change) => string, size: number): void {
  const groups = new Map<string, Change[]>();
  for (const change of changes) {
    const key = groupOf(change);
    const group = groups.get(key);
    if (group) group.push(change);
    else groups.set(key, [change]);
  }
  for (const group of groups.values()) {
    for (const [lead, ...rest] of chunk(group, size)) if (lead) for (const carried of rest) carry(lead, carried);
  }
}

/**
 * Marks how apply learns that each change took: every write is read back (a success answer proves
 * no field: the service may drop or reformat what it was sent), but a delete, whose success answer
 * is the proof — a deleted record cannot be read back.
 */
export function decideVerification(changes: readonly Change[], live: LiveState, adapters: readonly KindAdapter[]): void {
  for (const change of changes) if (isActionable(change)) change.verify = change.action === 'delete' ? 'answer' : 'read-back';
  for (const [kind, readBack] of planReadBack(changes, live, adapters)) {
    if (readBack.byIds) for (const change of changes) if (change.kind === kind && change.verify === 'read-back') change.verify = 'read-by-id';
  }
}

/** How one kind is read back after apply: its records by id (one detail each), or its usual read; and what that costs. */
export interface KindReadBack {
  byIds: boolean;
  reads: number;
}

/**
 * The read-back of every kind it reads, decided once for the cost line and for apply
 * (apply/read-requests verifyRequest): the kind's usual read — what it cost for the plan, without
 * the details the plan read, plus a list page per hundred records the creates add and a detail
 * per record whose written fields the list lacks (KindAdapter.readBackDetail) — or, where the kind
 * reads by id and that is cheaper, one detail GET per record written and no list at all.
 */
export function planReadBack(changes: readonly Change[], live: LiveState, adapters: readonly KindAdapter[]): Map<UnitKind, KindReadBack> {
  const byKind = new Map(adapters.map((a) => [a.kind, a]));
  const plans = new Map<UnitKind, KindReadBack>();
  for (const kind of readBackKinds(changes, adapters)) {
    const adapter = byKind.get(kind);
    const touched = changes.filter((c) => c.kind === kind && needsReadBack(c));
    const records = new Set(touched.map((c) => c.key));
    const detailed = new Set(touched.filter((c) => adapter?.readBackDetail?.(c) === true).map((c) => c.key));
    const liveRecords = live.records.get(kind) ?? [];
    const planDetails = adapter?.readBackDetail ? liveRecords.filter((r) => r.detailLoaded).length : 0;
    const created = touched.filter((c) => c.action === 'create').length;
    const growth = live.unpaged?.has(kind) ? 0 : Math.floor((liveRecords.length + created) / pageSize) - Math.floor(liveRecords.length / pageSize);
    // A kind the plan's read skipped (nothing of it could exist yet) or found in another's pages
    // is read back with one request at least.
    const lookups = live.lookupsByKind?.get(kind) ?? 0;
    const usual = Math.max(1, (live.readsByKind?.get(kind) ?? 1) - planDetails - lookups) + growth + detailed.size;
    const byIds = adapter?.readsById === true && records.size > 0 && records.size <= usual;
    plans.set(kind, { byIds, reads: byIds ? records.size : usual });
  }
  return plans;
}

/**
 * The cost line: reads as spent, write requests (one per request, however many changes ride in
 * it), and the read-back — per kind, what reading it cost for the plan, plus the list pages the
 * creates add. Not counted, because it happens only when the service refuses: a bulk delete
 * whose answer carries alerts reads each of its ids back to learn which records went (one GET
 * per id; kinds/live-helpers bulkDeleteOperation).
 */
export function estimateCost(changes: readonly Change[], live: LiveState, adapters: readonly KindAdapter[], rate: number): PlanCost {
  const byKind = new Map(adapters.map((a) => [a.kind, a]));
  const sent = changes.filter((c) => isActionable(c) && c.carriedBy === undefined);
  const writes = sent.reduce((sum, c) => sum + (byKind.get(c.kind)?.writeRequests?.(c) ?? 1), 0);
  let verifyReads = 0;
  for (const { reads } of planReadBack(changes, live, adapters).values()) verifyReads += reads;
  const seconds = Math.ceil(((writes + verifyReads) / rate) * 10) / 10;
  return { reads: live.reads, writes, verifyReads, seconds, rate };
}
