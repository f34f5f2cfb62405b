// Manifest records → desired units, derived once and shared by reading (which kinds to read,
// which records deserve a detail GET) and planning (what to match and compare). The rule for
// which live records a unit could pair with is written here, once: the reader uses it to pick
// detail reads, the planner's matcher proposes pairs from the same keys.
import type { DesiredRecord, DesiredState, DesiredUnit } from '../model/desired.js';
import { prunesKind } from '../model/desired.js';
import type { UnitKind } from '../model/kinds.js';
import type { Change } from '../model/plan.js';
import { needsReadBack } from '../model/plan.js';
import { isReadOnlyKind } from '../model/kinds.js';
import { composeIdentity, lastSegment, normalizeName, withLastSegment } from '../model/names.js';
import { readPathValues } from '../model/paths.js';
import type { LiveRecord } from '../model/live.js';
import type { KindAdapter } from './kind.js';
import { referencesOf } from './kind.js';

export function toDesiredUnit(record: DesiredRecord): DesiredUnit {
  return {
    kind: record.kind,
    identity: record.identity,
    name: record.name,
    fields: record.fields,
    tool: record.tool,
    secretVariables: record.secretVariables,
    locate: (path) => record.locate(path),
  };
}

/** Unit kinds a run plans, in dependency order: declared or pruned kinds, and the units nested in them. */
export function plannedUnitKinds(desired: Pick<DesiredState, 'declaredKinds' | 'policy'>, units: readonly KindAdapter[]): UnitKind[] {
  const selected: UnitKind[] = [];
  for (const unit of units) {
    const key = unit.definition?.key;
    const touched = key ? desired.declaredKinds.has(key) || desired.policy.prune.includes(key) : unit.nestedIn !== undefined && selected.includes(unit.nestedIn);
    if (touched) selected.push(unit.kind);
  }
  return selected;
}

/**
 * Unit kinds a run reads, in dependency order: the planned kinds, the manifest kinds they refer
 * to (a transition names situations the manifests may not declare), and the read-only kinds
 * their desired records name (an id alone needs no list). Referred-to kinds are read, not planned.
 */
export function selectUnitKinds(desired: Pick<DesiredState, 'declaredKinds' | 'policy' | 'records'>, units: readonly KindAdapter[]): UnitKind[] {
  const planned = plannedUnitKinds(desired, units);
  const referred = new Set(units.filter((u) => planned.includes(u.kind)).flatMap((u) => referencesOf(u).filter((r) => !r.parent && !isReadOnlyKind(r.target)).map((r) => r.target as UnitKind)));
  const named = namedReadOnlyKinds(deriveDesiredUnits(desired, units.filter((u) => planned.includes(u.kind))), units);
  return units.filter((u) => planned.includes(u.kind) || referred.has(u.kind) || named.has(u.kind)).map((u) => u.kind);
}

/**
 * The read-only kinds (or, with `manifestKinds`, every kind but the units' own parents) that some
 * of these desired units name by a name (a string) in a reference.
 */
export function namedReadOnlyKinds(desiredByKind: ReadonlyMap<UnitKind, readonly Pick<DesiredUnit, 'fields'>[]>, units: readonly KindAdapter[], manifestKinds = false): Set<UnitKind> {
  const named = new Set<UnitKind>();
  for (const unit of units) {
    for (const ref of referencesOf(unit)) {
      if (ref.parent || (!manifestKinds && !isReadOnlyKind(ref.target)) || named.has(ref.target)) continue;
      const names = (desiredByKind.get(unit.kind) ?? []).some((u) => readPathValues(u.fields, ref.path).some((v) => typeof v === 'string'));
      if (names) named.add(ref.target);
    }
  }
  return named;
}

/**
 * The identities desired units name in each read-only kind (`scope > name` where the reference is
 * scoped, e.g. a transition's actions within its module): what a read-only kind must find.
 */
export function namedReadOnlyIdentities(desiredByKind: ReadonlyMap<UnitKind, readonly DesiredUnit[]>, units: readonly KindAdapter[]): Map<UnitKind, Set<string>> {
  const named = new Map<UnitKind, Set<string>>();
  for (const unit of units) {
    for (const ref of referencesOf(unit)) {
      if (ref.parent || !isReadOnlyKind(ref.target)) continue;
      for (const desired of desiredByKind.get(unit.kind) ?? []) {
        const scopeValue = ref.scope ? readPathValues(desired.fields, ref.scope)[0] : undefined;
        const scope = typeof scopeValue === 'string' ? normalizeName(scopeValue) : undefined;
        for (const value of readPathValues(desired.fields, ref.path)) {
          if (typeof value !== 'string' || value.trim() === '') continue;
          const identities = named.get(ref.target) ?? new Set<string>();
          identities.add(composeIdentity({ ...(scope ? { scope } : {}), name: normalizeName(value) }));
          named.set(ref.target, identities);
        }
      }
    }
  }
  return named;
}

/**
 * The kinds a read-back after apply reads, decided once for the plan's cost line and for apply:
 * those of the changes marked for read-back, the kinds they nest in, and the manifest kinds their
 * desired fields name (so references read back as names). Read-only kinds they name are not read
 * again — the plan's read of them stands (apply/read-requests verifyRequest).
 */
export function readBackKinds(changes: readonly Pick<Change, 'kind' | 'action' | 'verify' | 'desired'>[], units: readonly KindAdapter[]): Set<UnitKind> {
  const kinds = new Set<UnitKind>();
  const desired = new Map<UnitKind, Pick<DesiredUnit, 'fields'>[]>();
  for (const change of changes.filter(needsReadBack)) {
    kinds.add(change.kind);
    desired.set(change.kind, [...(desired.get(change.kind) ?? []), { fields: change.desired ?? {} }]);
  }
  for (const unit of units) if (kinds.has(unit.kind) && unit.nestedIn) kinds.add(unit.nestedIn);
  for (const kind of namedReadOnlyKinds(desired, units, true)) if (!isReadOnlyKind(kind)) kinds.add(kind);
  return kinds;
}

/** The kinds these unit kinds refer to, read-only ones included: what export reads to write names instead of ids. */
export function referredKinds(kinds: readonly UnitKind[], units: readonly KindAdapter[]): UnitKind[] {
  const targets = new Set<UnitKind>(units.filter((u) => kinds.includes(u.kind)).flatMap((u) => referencesOf(u).map((r) => r.target)));
  return units.filter((u) => targets.has(u.kind)).map((u) => u.kind);
}

/**
 * Whether every live record of the unit kind is needed: the kind it belongs to is pruned, or it is
 * read only because other kinds refer to it (no desired unit says which of its records matter).
 * A read-only kind's records that matter are the ones manifests name (ReadScope.named).
 */
export function readsEveryRecord(unit: KindAdapter, desired: Pick<DesiredState, 'declaredKinds' | 'policy'>): boolean {
  if (unit.readOnly) return false;
  const key = unit.definition?.key ?? unit.nestedIn;
  if (key === undefined) return true;
  return prunesKind(desired, key) || !(desired.declaredKinds.has(key) || desired.policy.prune.includes(key));
}

/** Desired units of every unit kind, nested ones derived from their (present) parents. */
export function deriveDesiredUnits(desired: Pick<DesiredState, 'records'>, units: readonly KindAdapter[]): Map<UnitKind, DesiredUnit[]> {
  const byKind = new Map<UnitKind, DesiredUnit[]>();
  for (const unit of units) {
    if (unit.definition) byKind.set(unit.kind, (desired.records.get(unit.definition.key) ?? []).map(toDesiredUnit));
    else if (unit.nestedIn) byKind.set(unit.kind, deriveNestedUnits(unit, byKind.get(unit.nestedIn) ?? []));
  }
  return byKind;
}

/** The units a nested kind declares inside its parents (only parents that stay in the account). */
export function deriveNestedUnits(unit: KindAdapter, parents: readonly DesiredUnit[]): DesiredUnit[] {
  return parents.filter((p) => p.tool.ensure === 'present').flatMap((p) => unit.deriveDesired?.(p) ?? []);
}

/** What a live record is known by before its detail is read. */
export interface LiveKey {
  id: number;
  identity: string;
  name: string;
}

/** The keys a desired unit may pair with a live record by, in the order the planner tries them. */
export interface MatchKeys {
  /** A pinned id: the only key when present. */
  id?: number;
  /** Identities it had before (previousNames), each under its current parent path. */
  previousIdentities: string[];
  identity: string;
  /**
   * Tree kinds only: bare names (its own and previous ones) it may be found under elsewhere in the
   * tree — it was moved, or its parent is a live-only record named by its bare name.
   */
  anyParentNames: string[];
}

export function matchKeysOf(unit: DesiredUnit, tree: boolean): MatchKeys {
  return {
    ...(unit.tool.id === undefined ? {} : { id: unit.tool.id }),
    previousIdentities: unit.tool.previousNames.map((previous) => withLastSegment(unit.identity, previous)),
    identity: unit.identity,
    anyParentNames: tree ? [lastSegment(unit.identity), ...unit.tool.previousNames] : [],
  };
}

/** A live name shorter than this is never taken for a cut one: short names are too often prefixes of others. */
export const minCutLength = 20;

/**
 * Whether a live name (or identity) may be the desired one as a service that cuts long names
 * stored it: a strict prefix of it, long enough not to be a name of its own by chance.
 */
export function isCutName(live: string, desired: string): boolean {
  return live.length >= minCutLength && live.length < desired.length && desired.startsWith(live);
}

/** Whether the planner could pair this live record with a unit that has these keys. */
export function couldMatch(record: LiveKey, keys: MatchKeys): boolean {
  if (keys.id !== undefined) return keys.id === record.id;
  return record.identity === keys.identity || keys.previousIdentities.includes(record.identity) || keys.anyParentNames.includes(record.name) || isCutName(record.identity, keys.identity);
}

/**
 * Whether a record of `kind` that a reference names may be in the account, from what this run
 * read of that kind: false only when the name is a record the manifests declare (so the read
 * sought it, and a read that seeks a record does not stop before finding it or listing every
 * page) and no live record could pair with it — not under its name, a previous name, a pinned id,
 * nor its bare name anywhere in a tree. A record that names one the account lacks cannot be in the
 * account either, which spares reading kinds whose every declared record names something new
 * (a new store's transitions between new situations). Unread kinds and unknown names: true.
 */
export function mayBeInAccount(
  kind: UnitKind,
  reference: string,
  desired: ReadonlyMap<UnitKind, readonly DesiredUnit[]>,
  live: ReadonlyMap<UnitKind, readonly LiveRecord[]>,
): boolean {
  const records = live.get(kind);
  if (!records) return true;
  const name = normalizeName(reference);
  const bare = lastSegment(name);
  if (records.some((record) => record.identity === name || record.name === bare)) return true;
  const declared = (desired.get(kind) ?? []).filter((unit) => unit.identity === name || lastSegment(unit.identity) === bare);
  if (declared.length === 0) return true;
  return declared.some((unit) => records.some((record) => couldMatch(record, matchKeysOf(unit, true))));
}

/**
 * The live records worth a detail GET: those some present unit that `needsDetail` could match,
 * and those a caller names (a saved plan re-reads what it read).
 */
export function selectDetailReads<T extends LiveKey>(
  records: readonly T[],
  desired: readonly DesiredUnit[],
  needsDetail: (unit: DesiredUnit) => boolean,
  tree: boolean,
  detailIds?: ReadonlySet<number>,
): T[] {
  const wanting = desired.filter((unit) => unit.tool.ensure === 'present' && needsDetail(unit)).map((unit) => matchKeysOf(unit, tree));
  return records.filter((record) => detailIds?.has(record.id) === true || wanting.some((keys) => couldMatch(record, keys)));
}
