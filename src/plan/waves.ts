// Dependencies and waves. What depends on what:
//
//   creates and updates                      removals (after every other change)
//   ───────────────────                      ───────────────────────────────────
//   parent record ──▶ child record            child removed ──▶ parent removed
//   logistics     ──▶ its services            service retired ──▶ logistics removed
//   referenced    ──▶ referencing record      referencing removed ──▶ referenced removed
//   (a situation's base; situations ──▶        (transitions ──▶ their situations;
//    their transitions; a category ──▶         store links, custom fields' groupings ──▶ a category,
//    its store links and custom fields)        declared or cascaded: plan/referrers)
//                                             (a replacement's delete ──▶ its create)
//   read-only records (natures, channels, actions) are never changed: nothing waits for them.
//   updates of a kind ──▶ a default given within it (each PUT carries its record's default as read)
//
// A change waits for the creates it depends on; a wave is the set of changes whose dependencies
// all ran in earlier waves. Removals of records no change recreates run last, children first.
import type { KindAdapter } from '../kinds/kind.js';
import type { DesiredUnit } from '../model/desired.js';
import type { Diagnostic } from '../model/diagnostics.js';
import type { UnitKind } from '../model/kinds.js';
import type { LiveRecord, LiveState } from '../model/live.js';
import type { Change } from '../model/plan.js';
import { countsAgainstBudget, removesRecord } from '../model/plan.js';
import { referencesOf } from '../kinds/kind.js';
import { readPathValues } from '../model/paths.js';
import { appendTo } from '../model/collections.js';

export function assignWaves(
  changes: Change[],
  adapters: readonly KindAdapter[],
  desiredByKind: ReadonlyMap<UnitKind, readonly DesiredUnit[]>,
  live: LiveState,
  diagnostics: Diagnostic[],
): void {
  linkCreatesAndUpdates(changes, adapters, desiredByKind);
  linkRemovals(changes, live, adapters);
  const byId = new Map(changes.map((c) => [c.id, c]));
  const visiting = new Set<string>();
  const waveOf = (change: Change): number => {
    if (change.wave > 0) return change.wave;
    if (visiting.has(change.id)) {
      diagnostics.push({ severity: 'error', code: 'dependency-cycle', message: `changes depend on each other in a loop around ${change.id}` });
      return 1;
    }
    visiting.add(change.id);
    const depWaves = change.dependsOn.map((id) => byId.get(id)).filter((c): c is Change => c !== undefined).map(waveOf);
    visiting.delete(change.id);
    change.wave = Math.max(0, ...depWaves) + 1;
    return change.wave;
  };
  const ordinary = changes.filter((c) => !countsAgainstBudget(c));
  for (const c of ordinary) waveOf(c);
  const lastOrdinary = Math.max(0, ...ordinary.map((c) => c.wave));
  const removals = changes.filter(countsAgainstBudget);
  for (const c of removals) waveOf(c);
  for (const c of removals) c.wave += lastOrdinary;
}

/** Creates and updates wait for the creates of their parent and of the records they name. */
function linkCreatesAndUpdates(changes: Change[], adapters: readonly KindAdapter[], desiredByKind: ReadonlyMap<UnitKind, readonly DesiredUnit[]>): void {
  const creates = new Map<string, Change>();
  for (const c of changes) if (c.action === 'create') creates.set(`${c.kind}\u0000${c.key}`, c);
  const adapterOf = new Map(adapters.map((a) => [a.kind, a]));
  const changeIds = new Set(changes.map((c) => c.id));
  // Lookups by key, not scans: plans of ten thousand records must stay well under a second.
  const unitsByKey = new Map<string, DesiredUnit>();
  for (const [kind, units] of desiredByKind) {
    for (const u of units) if (!unitsByKey.has(`${kind}\u0000${u.identity}`)) unitsByKey.set(`${kind}\u0000${u.identity}`, u);
  }
  for (const change of changes) {
    if (removesRecord(change) || change.action === 'blocked') continue;
    const adapter = adapterOf.get(change.kind);
    const unit = unitsByKey.get(`${change.kind}\u0000${change.key}`);
    const deps = new Set<string>();
    if (unit?.parent) {
      const parentCreate = creates.get(`${adapter?.nestedIn ?? change.kind}\u0000${unit.parent}`);
      if (parentCreate) deps.add(parentCreate.id);
    }
    for (const ref of adapter ? referencesOf(adapter) : []) {
      if (ref.parent) continue;
      for (const target of readPathValues(change.desired ?? {}, ref.path)) {
        const create = typeof target === 'string' ? creates.get(`${ref.target}\u0000${target}`) : undefined;
        if (create) deps.add(create.id);
      }
    }
    if (change.reason === 'replace' && change.action === 'create') deps.add(`${change.kind}:${change.key}:delete`);
    // A PUT sends the record whole, its default flag as read included: a default given to another
    // record of the kind is given after those PUTs, so none of them takes it back.
    if (change.action === 'set-default') for (const other of changes) if (other.kind === change.kind && other.action === 'update' && other.key !== change.key) deps.add(other.id);
    change.dependsOn = [...deps].filter((d) => changeIds.has(d)).sort();
  }
}

/** A removal waits for the removals of the records inside it, and of the records that name it. */
function linkRemovals(changes: Change[], live: LiveState, adapters: readonly KindAdapter[]): void {
  const parentOf = new Map<string, string | undefined>();
  const liveById = new Map<string, LiveRecord>();
  for (const [kind, records] of live.records) {
    for (const r of records) {
      parentOf.set(`${kind}\u0000${r.id}`, r.parent);
      liveById.set(`${kind}\u0000${r.id}`, r);
    }
  }
  const adapterOf = new Map(adapters.map((a) => [a.kind, a]));
  const waitingFor = new Map<string, Change[]>();
  const add = (key: string, change: Change) => appendTo(waitingFor, key, change);
  for (const c of changes) {
    if (!removesRecord(c)) continue;
    const adapter = adapterOf.get(c.kind);
    const parent = parentOf.get(`${c.kind}\u0000${c.liveId}`);
    if (parent !== undefined) add(`${adapter?.nestedIn ?? c.kind}\u0000${parent}`, c);
    const record = liveById.get(`${c.kind}\u0000${c.liveId}`);
    for (const ref of adapter && record ? referencesOf(adapter) : []) {
      if (ref.parent) continue;
      for (const target of readPathValues(record?.fields, ref.path)) if (typeof target === 'string') add(`${ref.target}\u0000${target}`, c);
    }
  }
  for (const change of changes) {
    if (!countsAgainstBudget(change)) continue;
    const before = (waitingFor.get(`${change.kind}\u0000${change.key}`) ?? []).filter((c) => c !== change);
    // What plan/referrers ordered first (a referrer's delete or update, a cascade) stays.
    change.dependsOn = [...new Set([...change.dependsOn, ...before.map((c) => c.id)])].sort();
  }
}

export function sortChanges(changes: Change[], adapters: readonly KindAdapter[]): Change[] {
  const kindOrder = new Map(adapters.map((a, i) => [a.kind, i]));
  const actionOrder: Record<Change['action'], number> = { delete: 0, retire: 1, create: 2, update: 3, 'set-status': 4, 'set-default': 5, blocked: 6 };
  return [...changes].sort(
    (a, b) =>
      a.wave - b.wave ||
      (kindOrder.get(a.kind) ?? 0) - (kindOrder.get(b.kind) ?? 0) ||
      (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) ||
      actionOrder[a.action] - actionOrder[b.action],
  );
}
