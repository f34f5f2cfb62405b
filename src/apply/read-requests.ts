// What apply reads of the account around a plan: before a saved plan runs, exactly the records
// its changes rely on (with the details the plan read); after the writes, the records written.
// Pure: the reads themselves go through the injected AccountReader.
import type { KindAdapter } from '../kinds/kind.js';
import { namedReadOnlyKinds, readBackKinds } from '../kinds/desired-units.js';
import type { DesiredUnit } from '../model/desired.js';
import type { UnitKind } from '../model/kinds.js';
import type { LiveRecord, LiveState, ReadRequest, RemovedRecord } from '../model/live.js';
import { lastSegment } from '../model/names.js';
import type { Change, Plan } from '../model/plan.js';
import { isActionable, needsReadBack } from '../model/plan.js';
import { appendTo } from '../model/collections.js';

function unitAt(kind: UnitKind, identity: string, fields: Record<string, unknown>, id?: number): DesiredUnit {
  return {
    kind,
    identity,
    name: lastSegment(identity),
    fields,
    tool: { ...(id === undefined ? {} : { id }), ensure: 'present', protect: false, previousNames: [] },
    locate: () => ({ file: 'plan', line: 1, col: 1 }),
  };
}

/** The kinds in registry order, with the kinds they nest in (their records give nested units their identity). */
function orderKinds(kinds: ReadonlySet<UnitKind>, adapters: readonly KindAdapter[]): UnitKind[] {
  const needed = new Set(kinds);
  for (const adapter of adapters) if (needed.has(adapter.kind) && adapter.nestedIn) needed.add(adapter.nestedIn);
  return adapters.filter((a) => needed.has(a.kind)).map((a) => a.kind);
}

/** The read that re-checks a saved plan's preconditions: every record they name (and every record that may name what it removes), nothing more. */
export function recheckRequest(plan: Plan, adapters: readonly KindAdapter[]): ReadRequest {
  const kinds = new Set<UnitKind>();
  const complete = new Set<UnitKind>();
  const desired = new Map<UnitKind, DesiredUnit[]>();
  const detailIds = new Map<UnitKind, Set<number>>();
  const removing = new Map<UnitKind, RemovedRecord[]>();
  for (const change of plan.changes.filter(isActionable)) {
    for (const p of change.requires) {
      if (p.type === 'children') {
        for (const kind of p.childKinds) {
          kinds.add(kind);
          complete.add(kind);
        }
        continue;
      }
      if (p.type === 'referrers') {
        // The kinds that can name the removed record read every record that may (ReadRequest.removing).
        for (const { kind } of p.namedBy) kinds.add(kind);
        appendTo(removing, p.kind, { id: p.id, identity: p.identity });
        continue;
      }
      kinds.add(p.kind);
      // No desired fields: which details to read is the plan's record of what it read, not a guess.
      appendTo(desired, p.kind, unitAt(p.kind, p.identity, {}, p.type === 'record' ? p.id : undefined));
      if (p.type === 'record' && p.detail) detailIds.set(p.kind, new Set([...(detailIds.get(p.kind) ?? []), p.id]));
    }
  }
  return { kinds: orderKinds(kinds, adapters), desired, complete: (kind) => complete.has(kind), detailIds, ...(removing.size > 0 ? { removing } : {}) };
}

/** The fields a change wrote, as the desired record holds them: all of a create's, the changed ones of any other. */
function writtenFields(change: Change): Record<string, unknown> {
  if (change.action === 'create' || !change.desired) return change.desired ?? {};
  const written = new Set(change.fields.map((f) => f.path.split('.')[0] ?? ''));
  return Object.fromEntries(Object.entries(change.desired).filter(([key]) => written.has(key)));
}

/**
 * The read after apply: the records the plan changed and marked for read-back (every write but
 * deletes), each with the fields it wrote, so a kind reads a detail only where its list lacks one
 * of them — or, for changes marked `read-by-id` (decided with the plan's cost line), exactly those
 * records; `idOf` gives the id of each (a created record's comes from apply).
 * Also the records they name, so references read back as names. Read-only records named are taken
 * from the plan's read (`before`): nothing this run wrote can have changed them.
 */
export function verifyRequest(plan: Plan, adapters: readonly KindAdapter[], before: LiveState | undefined, idOf: (change: Change) => number | undefined): ReadRequest {
  const desired = new Map<UnitKind, DesiredUnit[]>();
  const byIds = new Map<UnitKind, Set<number>>();
  for (const change of plan.changes.filter(needsReadBack)) {
    const id = idOf(change);
    if (!change.desired && id === undefined) continue;
    // Removals carry no desired fields; a unit with none still tells the kind where to read.
    appendTo(desired, change.kind, unitAt(change.kind, change.key, writtenFields(change), id));
    if (change.verify === 'read-by-id' && id !== undefined) byIds.set(change.kind, new Set([...(byIds.get(change.kind) ?? []), id]));
  }
  const kinds = readBackKinds(plan.changes, adapters);
  const known = new Map<UnitKind, readonly LiveRecord[]>();
  for (const kind of namedReadOnlyKinds(desired, adapters)) {
    const records = before?.records.get(kind);
    if (records) known.set(kind, records);
    kinds.add(kind);
  }
  return { kinds: orderKinds(kinds, adapters), desired, complete: () => false, known, byIds };
}

/**
 * The read before the first write of the records a plan deletes whose list lacks fields their
 * detail holds (kinds that read back from the detail, KindAdapter.readBackDetail, and read by id),
 * when the plan's read did not hold that detail: each by id, so that the journal keeps the whole
 * record a revert creates again. The records they name come from the plan's read. Undefined when
 * there are none.
 */
export function removalsRequest(plan: Plan, adapters: readonly KindAdapter[], before: LiveState): ReadRequest | undefined {
  const desired = new Map<UnitKind, DesiredUnit[]>();
  const byIds = new Map<UnitKind, Set<number>>();
  for (const change of plan.changes.filter((c) => c.action === 'delete')) {
    const adapter = adapters.find((a) => a.kind === change.kind);
    const record = (before.records.get(change.kind) ?? []).find((r) => r.id === change.liveId);
    if (!adapter?.readsById || !adapter.readBackDetail || !record || record.detailLoaded) continue;
    appendTo(desired, change.kind, unitAt(change.kind, record.identity, record.fields, record.id));
    byIds.set(change.kind, new Set([...(byIds.get(change.kind) ?? []), record.id]));
  }
  if (byIds.size === 0) return undefined;
  const known = new Map([...before.records].filter(([kind]) => !byIds.has(kind)));
  return { kinds: orderKinds(new Set([...byIds.keys(), ...known.keys()]), adapters), desired, complete: () => false, known, byIds };
}
