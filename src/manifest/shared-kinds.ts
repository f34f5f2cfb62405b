// The checks of one kind when a fleet's stores share most of its records: the records without
// variables (files without any, and the records of a file before its first one with a variable;
// gathered once, frozen) come first in every store's load, so what the checks find about them
// alone — overlays, identities, duplicates, pinned ids, desired records — is computed once and
// kept; each store checks only its own records against it. Whenever a store's records could
// change what the shared ones give (one replaces a shared record, or is named by a shared parent
// reference), the kind is checked whole instead.
// A kind's own checks (checkRecords) see the whole set whenever the store adds to it.
import type { KindDefinition } from '../kinds/kind.js';
import type { DesiredRecord, ManifestRecord, ToolKeys } from '../model/desired.js';
import type { Diagnostic } from '../model/diagnostics.js';
import { normalizeName } from '../model/names.js';
import { identityKeyOf } from '../model/collections.js';
import { checkPinnedIds, checkSecrets, identifyRecords, identifySharedRecords } from './check-records.js';
import type { IdentifiedBase, IdentifiedRecord, LocatedRecord } from './check-records.js';

export type LayerOf = (record: ManifestRecord) => number;

/** The records of one kind a load took from shared parts before any of its own: each part's list, in order. */
export interface SharedPrefix {
  segments: readonly (readonly LocatedRecord[])[];
  count: number;
}

export interface KindChecked {
  records: LocatedRecord[];
  identified: IdentifiedRecord[];
  /** The desired records of the first identified records, shared by the stores (frozen). */
  desired: readonly DesiredRecord[];
  /** The first records and their identified forms, shared by the stores. */
  shared: { records: readonly LocatedRecord[]; identified: readonly IdentifiedRecord[] };
}

interface SharedKindState {
  /** The shared records identified before overlays, and the top layer of each identity among them. */
  pre: IdentifiedBase;
  /** The same, without the shared records' problems: a store's records are identified against it for their identities only. */
  preIdentities: IdentifiedBase;
  top: ReadonlyMap<string, number>;
  firstAtTop: ReadonlyMap<string, IdentifiedRecord>;
  layers: ReadonlySet<number>;
  kept: readonly LocatedRecord[];
  overlayNotes: readonly Diagnostic[];
  secretDiagnostics: readonly Diagnostic[];
  post: IdentifiedBase;
  pinned: ReadonlyMap<number, IdentifiedRecord>;
  pinnedDiagnostics: readonly Diagnostic[];
  findings?: readonly Diagnostic[];
  desired: readonly DesiredRecord[];
}

/** By the prefix's first part (held by its parse, so a forgotten parse takes its states along), then by kind and the other parts. */
const states = new WeakMap<readonly LocatedRecord[], Map<string, SharedKindState>>();

let sharing = true;

/**
 * Whether a load shares work with the fleet's other loads (on by default): kinds checked against
 * their shared records, files split at their records with variables. Tests turn it off to compare
 * with each store loaded alone.
 */
export function shareAcrossLoads(on: boolean): void {
  sharing = on;
}

export function sharesAcrossLoads(): boolean {
  return sharing;
}

/** The kind's checks for a load whose first records are shared; undefined when the whole kind must be checked. */
export function checkAgainstShared(definition: KindDefinition, records: readonly LocatedRecord[], prefix: SharedPrefix, layerOf: LayerOf, diagnostics: Diagnostic[]): KindChecked | undefined {
  if (!sharing || definition.shape !== 'list' || prefix.count === 0) return undefined;
  const state = stateOf(definition, prefix, records.slice(0, prefix.count), layerOf);
  const own = records.slice(prefix.count);
  const ownIds = identifyRecords(definition, own, [], state.preIdentities);
  if (ownIds.some((r) => state.pre.parentNames.has(r.name))) return undefined;
  const ownTop = new Map<string, number>();
  for (const r of ownIds) ownTop.set(r.identity, Math.max(ownTop.get(r.identity) ?? 0, layerOf(r.record)));
  // A store's record that replaces a shared one changes what the shared records give: checked whole.
  for (const [identity, layer] of ownTop) if (layer > (state.top.get(identity) ?? Infinity)) return undefined;
  const ownNotes: Diagnostic[] = [];
  const layered = new Set([...state.layers, ...own.map((r) => layerOf(r.record))]).size >= 2;
  const keptOwn = layered ? own.filter((record, index) => !replacedOwn(record, ownIds, index, ownTop, state, layerOf, ownNotes)) : own;
  diagnostics.push(...state.overlayNotes, ...ownNotes, ...state.secretDiagnostics);
  checkSecrets(definition, keptOwn, diagnostics);
  const identifiedOwn = identifyRecords(definition, keptOwn, diagnostics, state.post);
  diagnostics.push(...state.pinnedDiagnostics);
  checkPinnedIds(definition, identifiedOwn, diagnostics, state.pinned);
  const kept = [...state.kept, ...keptOwn];
  if (keptOwn.length > 0) diagnostics.push(...findingsOf(definition, kept));
  else diagnostics.push(...(state.findings ??= findingsOf(definition, state.kept)));
  return { records: kept, identified: [...state.post.identified, ...identifiedOwn], desired: state.desired, shared: { records: state.kept, identified: state.post.identified } };
}

/** Whether a store's record is replaced by a later layer's (applyOverlays' rule, the shared records' top layers known). */
function replacedOwn(
  record: LocatedRecord,
  ownIds: readonly IdentifiedRecord[],
  index: number,
  ownTop: ReadonlyMap<string, number>,
  state: SharedKindState,
  layerOf: LayerOf,
  notes: Diagnostic[],
): boolean {
  const identity = ownIds[index]?.identity ?? '';
  const sharedTop = state.top.get(identity);
  const top = Math.max(sharedTop ?? 0, ownTop.get(identity) ?? 0);
  if (layerOf(record.record) >= top) return false;
  const by = sharedTop === top ? state.firstAtTop.get(identity) : ownIds.find((r) => r.identity === identity && layerOf(r.record) === top);
  notes.push(replacedNote(identity, record, by));
  return true;
}

function stateOf(definition: KindDefinition, prefix: SharedPrefix, shared: readonly LocatedRecord[], layerOf: LayerOf): SharedKindState {
  const [first = [], ...rest] = prefix.segments;
  let ofFirst = states.get(first);
  if (!ofFirst) states.set(first, (ofFirst = new Map()));
  const key = `${definition.key}\u0000${rest.map(identityKeyOf).join(',')}`;
  const known = ofFirst.get(key);
  if (known) return known;
  const pre = identifySharedRecords(definition, shared);
  const top = new Map<string, number>();
  for (const r of pre.identified) top.set(r.identity, Math.max(top.get(r.identity) ?? 0, layerOf(r.record)));
  const firstAtTop = new Map<string, IdentifiedRecord>();
  for (const r of pre.identified) if (!firstAtTop.has(r.identity) && layerOf(r.record) === top.get(r.identity)) firstAtTop.set(r.identity, r);
  const overlayNotes: Diagnostic[] = [];
  const kept = applyOverlays(definition, shared, layerOf, overlayNotes, pre.identified);
  const secretDiagnostics: Diagnostic[] = [];
  checkSecrets(definition, kept, secretDiagnostics);
  // Nothing replaced (one layer, as a base usually is): the records kept are identified as before, so the same base serves.
  const post = kept.length === shared.length ? pre : identifySharedRecords(definition, kept);
  const pinnedDiagnostics: Diagnostic[] = [];
  const pinned = checkPinnedIds(definition, post.identified, pinnedDiagnostics);
  const secretPaths = definition.secretFields.map((p) => p.join('.'));
  // Every store of the fleet holds these very records: frozen, so no stage can change one store's through another's.
  const desired = post.identified.map((r) => deepFreeze(toDesiredRecord(r, secretPaths)));
  const layers = new Set(shared.map((r) => layerOf(r.record)));
  const preIdentities: IdentifiedBase = { ...pre, unresolved: new Map(), unresolvedNotes: [], diagnostics: [] };
  const state: SharedKindState = { pre, preIdentities, top, firstAtTop, layers, kept, overlayNotes, secretDiagnostics, post, pinned, pinnedDiagnostics, desired };
  ofFirst.set(key, state);
  return state;
}

/** A kind's own checks (checkRecords in its adapter) on the records of a load, as diagnostics. */
export function findingsOf(definition: KindDefinition, records: readonly LocatedRecord[]): Diagnostic[] {
  const findings = definition.checkRecords?.(records.map((r) => r.record)) ?? [];
  if (findings.length === 0) return [];
  const located = new Map<ManifestRecord, LocatedRecord>();
  for (const r of records) if (!located.has(r.record)) located.set(r.record, r);
  return findings.map((finding) => {
    const at = located.get(finding.record);
    return {
      severity: finding.severity,
      code: finding.code,
      message: finding.message,
      ...(finding.hint ? { hint: finding.hint } : {}),
      position: at ? at.locate(finding.path ?? []) : { file: finding.record.file, line: 1, col: 1 },
      path: `${finding.record.pointer}${finding.path?.length ? `/${finding.path.join('/')}` : ''}`,
    };
  });
}

/**
 * Layers: a record of a later layer replaces every record with the same identity (the planner's
 * rule: scope, parent path, name; the kind itself for a singleton) of the earlier layers. Within
 * one layer, the same identity twice stays an error.
 */
export function applyOverlays(definition: KindDefinition, records: readonly LocatedRecord[], layerOf: LayerOf, diagnostics: Diagnostic[], known?: readonly IdentifiedRecord[]): LocatedRecord[] {
  const layerOfRecord = (r: LocatedRecord): number => layerOf(r.record);
  if (new Set(records.map(layerOfRecord)).size < 2) return [...records];
  // Identities only: the problems identifying finds are reported once, on the records kept.
  const identities = known ?? identifyRecords(definition, records, []);
  const top = new Map<string, number>();
  for (const r of identities) top.set(r.identity, Math.max(top.get(r.identity) ?? 0, layerOfRecord(r)));
  return records.filter((record, index) => {
    const identity = identities[index]?.identity ?? '';
    const replaced = layerOfRecord(record) < (top.get(identity) ?? 0);
    if (replaced) diagnostics.push(replacedNote(identity, record, identities.find((r) => r.identity === identity && layerOfRecord(r) === top.get(identity))));
    return !replaced;
  });
}

function replacedNote(identity: string, record: LocatedRecord, by: IdentifiedRecord | undefined): Diagnostic {
  return {
    severity: 'note',
    code: 'overlay-replaces',
    message: `\`${identity}\` is replaced by the overlay's declaration${by ? ` at ${by.record.file}` : ''}`,
    position: record.locate([]),
    path: record.record.pointer,
  };
}

const toolKeys = new Set(['id', 'ensure', 'protect', 'previousNames']);

export function toDesiredRecord(r: IdentifiedRecord, secretPaths: readonly string[]): DesiredRecord {
  const { value } = r.record;
  const fields = Object.fromEntries(Object.entries(value).filter(([key]) => !toolKeys.has(key)));
  const tool: ToolKeys = {
    ...(typeof value.id === 'number' ? { id: value.id } : {}),
    ensure: value.ensure === 'absent' ? 'absent' : 'present',
    protect: value.protect === true,
    previousNames: Array.isArray(value.previousNames) ? value.previousNames.map((n) => normalizeName(String(n))) : [],
  };
  const secretVariables = Object.fromEntries(secretPaths.flatMap((p) => (r.variables.has(p) ? [[p, r.variables.get(p) as string]] : [])));
  return { kind: r.record.kind, identity: r.identity, name: r.name, fields, tool, secretVariables, position: r.locate([]), source: r.record, locate: r.locate };
}

export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const item of Object.values(value)) deepFreeze(item);
  return value;
}
