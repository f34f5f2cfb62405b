// Reads the live account for the kinds a run touches, through the kinds' adapters, with the
// fewest requests: each adapter reads list pages and fetches details only where a managed
// record's manifest sets a detail-only field (or a saved plan read the detail). Reading never
// writes, and sends each GET once (api/read-memo). Kinds come in registry order, so a nested kind
// finds its parents already read; a kind the request already knows (read-only records read
// earlier in the run) is taken as given, not read again. Each kind says what its read holds in
// full (LiveState.whole), so a plan knows whether it has every record naming one it removes.
import type { ApiClient } from '../api/client.js';
import { describeListNote } from '../api/client.js';
import { memoizeReads } from '../api/read-memo.js';
import { mayBeInAccount, namedReadOnlyIdentities } from '../kinds/desired-units.js';
import type { KindAdapter, ReadScope } from '../kinds/kind.js';
import type { UnitKind } from '../model/kinds.js';
import type { LiveRecord, LiveState, ReadRequest, WholeRead } from '../model/live.js';

export async function fetchLive(account: ApiClient, adapters: readonly KindAdapter[], request: ReadRequest): Promise<LiveState> {
  const client = memoizeReads(account);
  const before = client.stats().total;
  const records = new Map<UnitKind, readonly LiveRecord[]>();
  const readsByKind = new Map<UnitKind, number>();
  const whole = new Map<UnitKind, WholeRead>();
  const named = namedReadOnlyIdentities(request.desired, adapters);
  const notesBefore = account.listNotes().length;
  const unpaged = new Set<UnitKind>();
  const lookupsByKind = new Map<UnitKind, number>();
  for (const adapter of adapters) {
    if (!request.kinds.includes(adapter.kind)) continue;
    const known = request.known?.get(adapter.kind);
    if (known) {
      records.set(adapter.kind, known);
      continue;
    }
    const kindBefore = client.stats().total;
    const detailIds = request.detailIds?.get(adapter.kind);
    const byIds = adapter.readsById ? request.byIds?.get(adapter.kind) : undefined;
    const scope: ReadScope = {
      desired: request.desired.get(adapter.kind) ?? [],
      all: request.complete(adapter.kind),
      earlier: records,
      ...(request.everyField ? { everyField: true } : {}),
      ...(detailIds ? { detailIds } : {}),
      ...(byIds ? { byIds } : {}),
      // What manifests name there, and what a saved plan's re-check asks for by identity.
      mayBeInAccount: (kind: UnitKind, reference: string) => mayBeInAccount(kind, reference, request.desired, records),
      ...(adapter.nestedIn ? { parents: request.desired.get(adapter.nestedIn) ?? [] } : {}),
      ...(adapter.readOnly ? { named: new Set([...(named.get(adapter.kind) ?? []), ...(request.desired.get(adapter.kind) ?? []).map((u) => u.identity)]) } : {}),
      ...(request.removing ? { removing: request.removing } : {}),
      lookup: async <T>(read: () => Promise<T>): Promise<T> => {
        const lookupBefore = client.stats().total;
        try {
          return await read();
        } finally {
          lookupsByKind.set(adapter.kind, (lookupsByKind.get(adapter.kind) ?? 0) + client.stats().total - lookupBefore);
        }
      },
    };
    const kindNotes = account.listNotes().length;
    const read = await adapter.readLive(client, scope);
    records.set(adapter.kind, read);
    if (account.listNotes().length > kindNotes) unpaged.add(adapter.kind);
    readsByKind.set(adapter.kind, client.stats().total - kindBefore);
    const held = adapter.wholeRead ? adapter.wholeRead(scope, read) : scope.all && read.every((r) => r.detailLoaded) ? true : undefined;
    if (held !== undefined) whole.set(adapter.kind, held);
  }
  const notes = [...new Set(account.listNotes().slice(notesBefore).map(describeListNote))];
  return { records, reads: client.stats().total - before, readsByKind, whole, ...(lookupsByKind.size > 0 ? { lookupsByKind } : {}), ...(notes.length > 0 ? { notes, unpaged } : {}) };
}
