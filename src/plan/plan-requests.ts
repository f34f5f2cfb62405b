// What apply will send for a plan, decided once here: which changes share a request (services
// nested in the create of their logistics, batches of service creates, bulk deletes), which
// changes the answer of their own request proves (the rest are read back after the writes), and
// the cost line that counts all of it — the reads of the plan, the write requests and the
// read-back. Pure; kinds say what their API takes (KindAdapter.batching, answerProves,
// writeRequests) and this module only groups. Apply executes what is recorded here and never
// decides any of it again.
import { readBackKinds } from '../kinds/desired-units.js';
import type { KindAdapter } from '../kinds/kind.js';
import type { UnitKind } from '../model/kinds.js';
import type { LiveState } from '../model/live.js';
import type { Change, PlanCost } from '../model/plan.js';
import { isActionable } from '../model/plan.js';

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

/** Marks how apply learns that each change took: its own answer, or a read-back. */
export function decideVerification(changes: readonly Change[], adapters: readonly KindAdapter[]): void {
  const byKind = new Map(adapters.map((a) => [a.kind, a]));
  for (const change of changes) {
    if (!isActionable(change)) continue;
    // A delete's success answer is the proof: a deleted record cannot be read back.
    const proven = change.action === 'delete' || (byKind.get(change.kind)?.answerProves?.(change) ?? false);
    change.verify = proven ? 'answer' : 'read-back';
  }
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
  for (const kind of readBackKinds(changes, adapters)) {
    const records = live.records.get(kind)?.length ?? 0;
    const created = changes.filter((c) => c.kind === kind && c.action === 'create').length;
    const growth = live.unpaged?.has(kind) ? 0 : Math.floor((records + created) / pageSize) - Math.floor(records / pageSize);
    verifyReads += (live.readsByKind?.get(kind) ?? 1) + growth;
  }
  const seconds = Math.ceil(((writes + verifyReads) / rate) * 10) / 10;
  return { reads: live.reads, writes, verifyReads, seconds, rate };
}
