// What each change relies on in the account, recorded when planning so that a saved plan can be
// re-checked against exactly that before it runs: the record it acts on, its parent and every
// record it names (as fingerprints), the absence of the identity it creates, and — for a record
// it removes — the records inside it and the records of any kind that name it (plan/referrers
// decided those). Pure.
import type { KindAdapter } from '../kinds/kind.js';
import type { DesiredUnit } from '../model/desired.js';
import { fingerprintOf } from '../model/fingerprint.js';
import type { UnitKind } from '../model/kinds.js';
import type { LiveRecord } from '../model/live.js';
import type { Change, Precondition, RecordPrecondition, ReferrersPrecondition } from '../model/plan.js';
import { removesRecord } from '../model/plan.js';
import { referencesOf } from '../kinds/kind.js';
import { readPathValues } from '../model/paths.js';

export interface PreconditionContext {
  units: readonly KindAdapter[];
  liveOf: (kind: UnitKind) => readonly LiveRecord[];
  /** The live record that holds an identity after this plan (renames applied), per kind. */
  liveAfterPlan: (kind: UnitKind, identity: string) => LiveRecord | undefined;
  /** The canonical desired unit of a change's record, per kind and identity. */
  unitOf: (kind: UnitKind, identity: string) => DesiredUnit | undefined;
  /** The records of other kinds that name what a removal removes, by change id (plan/referrers). */
  referrers?: ReadonlyMap<string, ReferrersPrecondition>;
}

export function recordPrecondition(record: LiveRecord, role: RecordPrecondition['role']): RecordPrecondition {
  return { type: 'record', role, kind: record.kind, id: record.id, identity: record.identity, fingerprint: fingerprintOf(record.raw), detail: record.detailLoaded };
}

/** Sets `requires` on every change apply would send; blocked changes rely on nothing. */
export function attachPreconditions(changes: Change[], context: PreconditionContext): void {
  const liveById = new Map<string, LiveRecord>();
  for (const unit of context.units) for (const record of context.liveOf(unit.kind)) liveById.set(`${unit.kind}\u0000${record.id}`, record);
  const childKinds = childKindsOf(context.units);
  for (const change of changes) {
    if (change.action === 'blocked') continue;
    const requires: Precondition[] = [];
    const own = change.liveId === undefined ? undefined : liveById.get(`${change.kind}\u0000${change.liveId}`);
    if (own) requires.push(recordPrecondition(own, 'self'));
    else if (change.action === 'create' && change.reason !== 'replace') requires.push({ type: 'absent', kind: change.kind, identity: change.key });
    if (!removesRecord(change)) requires.push(...namedRecords(change, context));
    else if (own) {
      requires.push(childrenOf(own, childKinds.get(change.kind) ?? [], context));
      const referrers = context.referrers?.get(change.id);
      if (referrers) requires.push(referrers);
    }
    change.requires = dedupe(requires);
  }
}

/** For each unit kind, the unit kinds whose records can sit inside one of its records. */
function childKindsOf(units: readonly KindAdapter[]): Map<UnitKind, UnitKind[]> {
  const result = new Map<UnitKind, UnitKind[]>();
  for (const unit of units) {
    const tree = unit.definition?.references.some((r) => r.parent && r.target === unit.definition?.key) ?? false;
    result.set(unit.kind, [...(result.get(unit.kind) ?? []), ...(tree ? [unit.kind] : [])]);
    if (unit.nestedIn) result.set(unit.nestedIn, [...(result.get(unit.nestedIn) ?? []), unit.kind]);
  }
  return result;
}

/** The live parent and referenced records a create or update names. */
function namedRecords(change: Change, context: PreconditionContext): RecordPrecondition[] {
  const adapter = context.units.find((u) => u.kind === change.kind);
  const unit = context.unitOf(change.kind, change.key);
  const found: RecordPrecondition[] = [];
  if (unit?.parent !== undefined) {
    const parentKind = adapter?.nestedIn ?? change.kind;
    const parent = context.liveAfterPlan(parentKind, unit.parent);
    if (parent) found.push(recordPrecondition(parent, 'parent'));
  }
  for (const ref of adapter ? referencesOf(adapter) : []) {
    if (ref.parent) continue;
    for (const target of readPathValues(change.desired ?? {}, ref.path)) {
      const record = typeof target === 'string' ? context.liveAfterPlan(ref.target, target) : undefined;
      if (record) found.push(recordPrecondition(record, 'reference'));
    }
  }
  return found;
}

function childrenOf(record: LiveRecord, kinds: readonly UnitKind[], context: PreconditionContext): Precondition {
  const children = kinds.flatMap((kind) => context.liveOf(kind).filter((r) => r.parent === record.identity).map((r) => ({ kind, id: r.id })));
  return { type: 'children', kind: record.kind, parent: record.identity, childKinds: [...kinds], children };
}

function dedupe(requires: Precondition[]): Precondition[] {
  const seen = new Set<string>();
  return requires.filter((p) => {
    const key =
      p.type === 'record' ? `r\u0000${p.kind}\u0000${p.id}` : p.type === 'absent' ? `a\u0000${p.kind}\u0000${p.identity}` : p.type === 'children' ? `c\u0000${p.kind}\u0000${p.parent}` : `n\u0000${p.kind}\u0000${p.id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
