// Reads the live account for the kinds a run touches, through the kinds' adapters, with the
// fewest requests: each adapter reads list pages and fetches details only where a managed
// record's manifest sets a detail-only field (or a saved plan read the detail). Reading never
// writes. Kinds come in registry order, so a nested kind finds its parents already read.
import type { ApiClient } from '../api/client.js';
import type { KindAdapter } from '../kinds/kind.js';
import type { UnitKind } from '../model/kinds.js';
import type { LiveRecord, LiveState, ReadRequest } from '../model/live.js';

export async function fetchLive(client: ApiClient, adapters: readonly KindAdapter[], request: ReadRequest): Promise<LiveState> {
  const before = client.stats().total;
  const records = new Map<UnitKind, readonly LiveRecord[]>();
  const readsByKind = new Map<UnitKind, number>();
  for (const adapter of adapters) {
    if (!request.kinds.includes(adapter.kind)) continue;
    const kindBefore = client.stats().total;
    const detailIds = request.detailIds?.get(adapter.kind);
    const read = await adapter.readLive(client, {
      desired: request.desired.get(adapter.kind) ?? [],
      all: request.complete(adapter.kind),
      earlier: records,
      ...(request.everyField ? { everyField: true } : {}),
      ...(detailIds ? { detailIds } : {}),
    });
    records.set(adapter.kind, read);
    readsByKind.set(adapter.kind, client.stats().total - kindBefore);
  }
  return { records, reads: client.stats().total - before, readsByKind };
}
