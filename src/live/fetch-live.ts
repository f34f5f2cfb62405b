// Reads the live account for the kinds a run touches, through the kinds' adapters, with the
// fewest requests: each adapter reads list pages and fetches details only where a managed
// record's manifest sets a detail-only field. Reading never writes.
import type { ApiClient } from '../api/client.js';
import type { DesiredUnit, KindAdapter, LiveRecord } from '../kinds/adapter.js';
import type { UnitKind } from '../plan/model.js';
import type { LiveState } from './model.js';

export interface FetchScope {
  kinds: readonly UnitKind[];
  desired: ReadonlyMap<UnitKind, readonly DesiredUnit[]>;
  /** Kinds whose every record is needed (pruned kinds; drift and export read all). */
  complete: (kind: UnitKind) => boolean;
  /** Read detail-only fields of every record too (export; drift's snippets of unmanaged records). */
  everyField?: boolean;
}

export async function fetchLive(client: ApiClient, adapters: readonly KindAdapter[], scope: FetchScope): Promise<LiveState> {
  const before = client.stats().total;
  const records = new Map<UnitKind, readonly LiveRecord[]>();
  for (const adapter of adapters) {
    if (!scope.kinds.includes(adapter.kind)) continue;
    const read = await adapter.readLive(client, {
      desired: scope.desired.get(adapter.kind) ?? [],
      all: scope.complete(adapter.kind),
      earlier: records,
      ...(scope.everyField ? { everyField: true } : {}),
    });
    records.set(adapter.kind, read);
  }
  return { records, reads: client.stats().total - before };
}
