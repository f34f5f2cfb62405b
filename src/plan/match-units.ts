// Pairs the desired units of one unit kind with its live records: a pinned id first; then, depth
// by depth from the root, the identity and — for units whose identity the account does not hold —
// a previous name; last, for tree kinds, a unique name elsewhere in the tree (the record was
// moved). The current name wins over a previous one: names alone cannot tell a swap from its
// result, so a swap matched by previous names would flip back on every plan (pin ids to swap). The keys tried come from
// kinds/desired-units (matchKeysOf), the same rule the reader uses to choose detail reads.
// Problems of identity are diagnostics: live records sharing one identity, one id pinned twice,
// a tombstone pinned to a record of another name.
import { isCutName, matchKeysOf, minCutLength } from '../kinds/desired-units.js';
import type { DesiredUnit } from '../model/desired.js';
import type { Diagnostic, SourcePosition } from '../model/diagnostics.js';
import { formatPosition } from '../model/diagnostics.js';
import type { UnitKind } from '../model/kinds.js';
import type { LiveRecord } from '../model/live.js';
import { pathSeparator } from '../model/names.js';
import { renameAncestors } from './canonical-units.js';
import { appendTo } from '../model/collections.js';

export interface Match {
  desired: DesiredUnit;
  live?: LiveRecord;
  /** `cut`: the live name is the desired name cut short (a service that truncates long names). */
  via: 'id' | 'identity' | 'previous-name' | 'name' | 'cut';
}

interface MatchState {
  matches: Map<DesiredUnit, Match>;
  claimed: Set<number>;
  byIdentity: Map<string, LiveRecord[]>;
  /** live identity → the identity of the desired unit that claimed it, for records moving with an ancestor. */
  treeRenames: Map<string, string>;
  /** How many times treeRenames was written: the index by identity is stale when this moved. */
  renameWrites: number;
}

/** `exact`: by pinned id and identity (and previous names) only, no cut names or moved records (PlanOptions.exactMatch). */
export function matchUnits(units: readonly DesiredUnit[], liveRecords: readonly LiveRecord[], diagnostics: Diagnostic[], kind: UnitKind, tree: boolean, exact = false): Match[] {
  const state: MatchState = { matches: new Map(), claimed: new Set(), byIdentity: new Map(), treeRenames: new Map(), renameWrites: 0 };
  // Re-indexing only matters once a claim renamed something: with no renames, the index stands.
  let indexedAt = -1;
  const reindex = () => {
    if (indexedAt === state.renameWrites) return;
    indexedAt = state.renameWrites;
    state.byIdentity.clear();
    for (const record of liveRecords) {
      const identity = state.treeRenames.size === 0 ? record.identity : renameAncestors(record.identity, state.treeRenames);
      appendTo(state.byIdentity, identity, record);
    }
  };
  reindex();
  matchPinned(units, liveRecords, state, diagnostics, kind);
  // A claim only moves the records below the claimed one, so one re-index per depth suffices.
  for (const atDepth of groupByDepth(units)) {
    reindex();
    matchIdentities(atDepth, state, diagnostics, kind);
    matchPreviousNames(atDepth, units, state);
  }
  if (!exact) matchCut(units, liveRecords, state, diagnostics, kind);
  matchMoved(units, liveRecords, state, tree && !exact);
  return units.map((u) => state.matches.get(u) as Match);
}

function claim(state: MatchState, unit: DesiredUnit, record: LiveRecord | undefined, via: Match['via']): void {
  state.matches.set(unit, { desired: unit, ...(record ? { live: record } : {}), via });
  if (!record) return;
  state.claimed.add(record.id);
  if (record.identity === unit.identity) return;
  state.treeRenames.set(record.identity, unit.identity);
  state.renameWrites += 1;
}

const unclaimedWith = (state: MatchState, identity: string) => (state.byIdentity.get(identity) ?? []).filter((r) => !state.claimed.has(r.id));

/** The units of each depth of the tree, shallowest first, in their order. */
function groupByDepth(units: readonly DesiredUnit[]): DesiredUnit[][] {
  const byDepth = new Map<number, DesiredUnit[]>();
  for (const unit of units) {
    appendTo(byDepth, unit.identity.split(pathSeparator).length, unit);
  }
  return [...byDepth.keys()].sort((a, b) => a - b).map((depth) => byDepth.get(depth) ?? []);
}

function matchPinned(units: readonly DesiredUnit[], liveRecords: readonly LiveRecord[], state: MatchState, diagnostics: Diagnostic[], kind: UnitKind): void {
  const liveById = new Map(liveRecords.map((r) => [r.id, r]));
  const pinnedBy = new Map<number, DesiredUnit>();
  const declared = new Map(units.map((u) => [u.identity, u]));
  for (const unit of units) {
    const id = unit.tool.id;
    if (id === undefined) continue;
    const first = pinnedBy.get(id);
    if (first) {
      diagnostics.push(pinnedTwice(unit, first, id, kind));
      claim(state, unit, undefined, 'id');
      continue;
    }
    pinnedBy.set(id, unit);
    const record = liveById.get(id);
    if (!record) {
      diagnostics.push({ severity: 'error', code: 'pinned-id-not-found', message: `no ${kind} record with id ${id} exists in the account`, position: unit.locate(['id']) });
      claim(state, unit, undefined, 'id');
      continue;
    }
    const keys = matchKeysOf(unit, false);
    if (unit.tool.ensure === 'absent' && record.identity !== unit.identity && !keys.previousIdentities.includes(record.identity)) {
      diagnostics.push(tombstoneOfAnother(unit, record, declared.get(record.identity), kind));
      claim(state, unit, undefined, 'id');
      continue;
    }
    claim(state, unit, record, 'id');
  }
}

function pinnedTwice(unit: DesiredUnit, first: DesiredUnit, id: number, kind: UnitKind): Diagnostic {
  return {
    severity: 'error',
    code: 'duplicate-pinned-id',
    message: `id ${id} is pinned by two ${kind} records: \`${unit.identity}\` here and \`${first.identity}\` at ${where(first.locate(['id']))}`,
    hint: 'a live record can be managed by one manifest record only; remove one of the pins',
    position: unit.locate(['id']),
  };
}

function tombstoneOfAnother(unit: DesiredUnit, record: LiveRecord, declaredThere: DesiredUnit | undefined, kind: UnitKind): Diagnostic {
  const also = declaredThere ? `, which the manifests declare at ${where(declaredThere.locate([]))}` : '';
  return {
    severity: 'error',
    code: 'pinned-tombstone-mismatch',
    message: `\`${unit.identity}\` is to be removed (ensure: absent), but its id ${record.id} is the ${kind} record \`${record.identity}\`${also}`,
    hint: 'a tombstone removes only the record it names: fix the id, or name the record it pins',
    position: unit.locate(['id']),
  };
}

function where(position: SourcePosition): string {
  return formatPosition(position);
}

/**
 * Renames, for units the identity did not match: a previous name is taken unless a declared record
 * keeps that name and is not itself moving away.
 */
function matchPreviousNames(atDepth: readonly DesiredUnit[], units: readonly DesiredUnit[], state: MatchState): void {
  const proposals = new Map<DesiredUnit, LiveRecord>();
  for (const unit of atDepth.filter((u) => !state.matches.has(u))) {
    for (const previous of matchKeysOf(unit, false).previousIdentities) {
      const candidates = unclaimedWith(state, previous);
      if (candidates.length === 1 && candidates[0]) {
        proposals.set(unit, candidates[0]);
        break;
      }
    }
  }
  for (const [unit, record] of proposals) {
    const current = renameAncestors(record.identity, state.treeRenames);
    const keeper = units.find((u) => u.identity === current && u !== unit);
    if (keeper && !proposals.has(keeper)) continue;
    claim(state, unit, record, 'previous-name');
  }
}

/** Units found under their own identity; a previous name that names another live record then only warns. */
function matchIdentities(atDepth: readonly DesiredUnit[], state: MatchState, diagnostics: Diagnostic[], kind: UnitKind): void {
  for (const unit of atDepth.filter((u) => !state.matches.has(u))) {
    const candidates = unclaimedWith(state, unit.identity);
    if (candidates.length > 1) {
      diagnostics.push({
        severity: 'error',
        code: 'duplicate-live-records',
        message: `the account holds ${candidates.length} ${kind} records named \`${unit.identity}\` (ids ${candidates.map((c) => c.id).join(', ')})`,
        hint: 'pin the one to manage with `id:`, and remove or rename the others',
        position: unit.locate([]),
      });
      claim(state, unit, undefined, 'identity');
      continue;
    }
    if (!candidates[0]) continue;
    claim(state, unit, candidates[0], 'identity');
    const shadowed = matchKeysOf(unit, false).previousIdentities.find((previous) => (state.byIdentity.get(previous) ?? []).length > 0);
    if (shadowed !== undefined) {
      diagnostics.push({
        severity: 'warning',
        code: 'previous-name-in-use',
        message: `\`${unit.identity}\` is in the account under its own name, so it is managed as that record; its previous name \`${shadowed}\` names another record there`,
        hint: 'names alone cannot tell a swap from its result: to swap two names, pin each record with `id:`',
        position: unit.locate(['previousNames']),
      });
    }
  }
}

/**
 * A long name the service stored cut short (whether it cuts is unknown; real-observations): an
 * unmatched unit whose name starts with the whole name of exactly one unclaimed live record under
 * the same parent is that record, with a warning, rather than a twin created again on every run.
 */
function matchCut(units: readonly DesiredUnit[], liveRecords: readonly LiveRecord[], state: MatchState, diagnostics: Diagnostic[], kind: UnitKind): void {
  // By parent and the first characters every cut keeps, once: a scan of every live record per
  // unmatched unit would make large kinds quadratic.
  const keyOf = (parent: string | undefined, name: string) => `${parent ?? ''}\u0000${name.slice(0, minCutLength)}`;
  const byStart = new Map<string, LiveRecord[]>();
  for (const record of liveRecords) if (!state.claimed.has(record.id) && record.name.length >= minCutLength) appendTo(byStart, keyOf(record.parent, record.name), record);
  for (const unit of units.filter((u) => !state.matches.has(u) && u.tool.ensure === 'present' && u.name.length > minCutLength)) {
    const cut = (byStart.get(keyOf(unit.parent, unit.name)) ?? []).filter((r) => !state.claimed.has(r.id) && isCutName(r.name, unit.name));
    if (cut.length !== 1 || !cut[0]) continue;
    const record = cut[0];
    claim(state, unit, record, 'cut');
    diagnostics.push({
      severity: 'warning',
      code: 'name-cut-by-service',
      message: `${kind} \`${unit.name}\` is stored by the service cut to ${record.name.length} characters (\`${record.name}\`, id ${record.id}); managed as that record`,
      hint: `shorten the name in the manifest to at most ${record.name.length} characters`,
      position: unit.locate([]),
    });
  }
}

/** Moved to another parent: the same name, found exactly once among unclaimed live records. */
function matchMoved(units: readonly DesiredUnit[], liveRecords: readonly LiveRecord[], state: MatchState, tree: boolean): void {
  const desiredIdentities = new Set(units.map((u) => u.identity));
  // By name, once: scanning every live record per unmatched unit made large trees quadratic.
  const byName = new Map<string, LiveRecord[]>();
  if (tree) {
    for (const record of liveRecords) {
      if (!desiredIdentities.has(record.identity)) appendTo(byName, record.name, record);
    }
  }
  for (const unit of units.filter((u) => !state.matches.has(u))) {
    if (!tree || unit.tool.ensure === 'absent') {
      claim(state, unit, undefined, 'identity');
      continue;
    }
    const sameName = (byName.get(unit.name) ?? []).filter((r) => !state.claimed.has(r.id));
    claim(state, unit, sameName.length === 1 ? sameName[0] : undefined, 'name');
  }
}
