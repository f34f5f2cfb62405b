// Before a saved plan runs: is every precondition it recorded still true of the account? Each
// finding names what changed. Pure: compares the plan with the account as re-read.
import { fingerprintOf } from '../model/fingerprint.js';
import type { UnitKind } from '../model/kinds.js';
import type { LiveRecord, LiveState } from '../model/live.js';
import type { Plan, Precondition, ReferrersPrecondition } from '../model/plan.js';
import { indexReferrers } from '../kinds/referrers.js';
import { isActionable } from '../model/plan.js';

export function findStalePreconditions(plan: Plan, live: LiveState): string[] {
  const byId = new Map<string, LiveRecord>();
  const byIdentity = new Map<string, LiveRecord>();
  for (const [kind, records] of live.records) {
    for (const r of records) {
      byId.set(`${kind}\u0000${r.id}`, r);
      byIdentity.set(`${kind}\u0000${r.identity}`, r);
    }
  }
  const recordsOf = (kind: UnitKind) => live.records.get(kind) ?? [];
  const stale = new Set<string>();
  for (const change of plan.changes.filter(isActionable)) {
    for (const p of change.requires) {
      const finding = checkPrecondition(p, byId, byIdentity, recordsOf);
      if (finding) stale.add(finding);
    }
  }
  return [...stale];
}

function checkPrecondition(
  p: Precondition,
  byId: ReadonlyMap<string, LiveRecord>,
  byIdentity: ReadonlyMap<string, LiveRecord>,
  recordsOf: (kind: UnitKind) => readonly LiveRecord[],
): string | undefined {
  if (p.type === 'record') {
    const record = byId.get(`${p.kind}\u0000${p.id}`);
    if (!record) return `${p.kind} "${p.identity}" (id ${p.id}) no longer exists`;
    if (fingerprintOf(record.raw) !== p.fingerprint) return `${p.kind} "${p.identity}" (id ${p.id}) changed since the plan was made${record.identity === p.identity ? '' : ` (now "${record.identity}")`}`;
    return undefined;
  }
  if (p.type === 'absent') {
    const record = byIdentity.get(`${p.kind}\u0000${p.identity}`);
    return record ? `${p.kind} "${p.identity}" now exists (id ${record.id}); the plan would create it again` : undefined;
  }
  if (p.type === 'referrers') return newReferrers(p, recordsOf);
  const known = new Set(p.children.map((c) => `${c.kind}\u0000${c.id}`));
  const added = p.childKinds.flatMap((kind) => recordsOf(kind).filter((r) => r.parent === p.parent && !known.has(`${kind}\u0000${r.id}`)));
  return added.length > 0 ? `${added.map((r) => `${r.kind} "${r.identity}" (id ${r.id})`).join(', ')} was added inside ${p.kind} "${p.parent}", which the plan removes` : undefined;
}

/** Records that name what a removal removes and were not there when the plan was made (they would be removed or orphaned with it). */
function newReferrers(p: ReferrersPrecondition, recordsOf: (kind: UnitKind) => readonly LiveRecord[]): string | undefined {
  const known = new Set(p.referrers.map((r) => `${r.kind}\u0000${r.id}`));
  const added = p.namedBy.flatMap(({ kind, path }) => indexReferrers(recordsOf(kind), path)(p).filter((r) => !known.has(`${kind}\u0000${r.id}`)));
  const names = [...new Set(added.map((r) => `${r.kind} "${r.identity}" (id ${r.id})`))];
  return names.length > 0 ? `${names.join(', ')} now names ${p.kind} "${p.identity}", which the plan removes` : undefined;
}
