// The read a plan asks for after its first one: when it removes records that kinds not read (or
// not read in full) may name (PlanResult.unreadReferrers), those kinds are read — only then, so a
// run that removes nothing reads nothing more — for those removals, with every kind read before
// taken as known. The result is one LiveState: the records of both reads, and their costs summed,
// so the plan's cost line counts these requests too.
import type { ApiClient } from '../api/client.js';
import type { KindAdapter } from '../kinds/kind.js';
import { referencesOf } from '../kinds/kind.js';
import { isReadOnlyKind } from '../model/kinds.js';
import type { UnitKind } from '../model/kinds.js';
import type { LiveRecord, LiveState, ReadRequest, RemovedRecord, WholeRead } from '../model/live.js';
import { fetchLive } from './fetch-live.js';

/** Kinds to read again, and the removals they are read for (plan/referrers ReferrerRead). */
export interface ReferrerReadRequest {
  kinds: readonly UnitKind[];
  removing: ReadonlyMap<UnitKind, readonly RemovedRecord[]>;
}

export async function readReferrers(client: ApiClient, adapters: readonly KindAdapter[], first: ReadRequest, live: LiveState, wanted: ReferrerReadRequest): Promise<LiveState> {
  const known = new Map<UnitKind, readonly LiveRecord[]>([...live.records].filter(([kind]) => !wanted.kinds.includes(kind)));
  const scopes = scopeKinds(adapters, wanted.kinds).filter((kind) => !live.records.has(kind));
  // A kind read again reads what it read the first time as well (same desired units, same
  // completeness), so its new records replace the old ones whole; a kind read only now reads only
  // what the removals need.
  const request: ReadRequest = {
    ...first,
    kinds: [...new Set([...first.kinds, ...wanted.kinds, ...scopes])],
    complete: (kind) => first.kinds.includes(kind) && first.complete(kind),
    known,
    removing: wanted.removing,
  };
  const more = await fetchLive(client, adapters, request);
  return mergeLive(live, more, wanted.kinds);
}

/**
 * The read-only kinds that name the scope of these kinds' records (the store of a store link, the
 * module of a transition): read with them, so a plan names the records it finds by their names, not ids.
 */
function scopeKinds(adapters: readonly KindAdapter[], kinds: readonly UnitKind[]): UnitKind[] {
  return adapters
    .filter((unit) => kinds.includes(unit.kind))
    .flatMap((unit) => referencesOf(unit).filter((r) => isReadOnlyKind(r.target) && r.path.length === 1 && r.path[0] === unit.definition?.scopeField))
    .map((r) => r.target);
}

function mergeLive(first: LiveState, second: LiveState, reread: readonly UnitKind[]): LiveState {
  const readsByKind = new Map(first.readsByKind ?? []);
  for (const [kind, reads] of second.readsByKind ?? []) readsByKind.set(kind, (readsByKind.get(kind) ?? 0) + reads);
  const whole = new Map<UnitKind, WholeRead>([...(first.whole ?? [])].filter(([kind]) => !reread.includes(kind)));
  for (const [kind, held] of second.whole ?? []) if (reread.includes(kind)) whole.set(kind, held);
  return { records: second.records, reads: first.reads + second.reads, readsByKind, whole };
}
