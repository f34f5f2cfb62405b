// Canonical desired units: identities completed against the account (a parent named by a bare
// name that only the account holds gets its full path), references rewritten to the identity of
// their target (through the renames this plan makes), and live records seen through the same
// renames. Pure; problems become diagnostics at the manifest position. References to read-only
// records (see kinds/kind.ts) resolve the same way; a number there is an id, and becomes the
// record's identity when that list was read, as the live side's references do.
import type { KindAdapter, ReferenceField } from '../kinds/kind.js';
import { referenceScopePath, referencesOf } from '../kinds/kind.js';
import type { DesiredUnit } from '../model/desired.js';
import type { Diagnostic } from '../model/diagnostics.js';
import type { UnitKind } from '../model/kinds.js';
import { isReadOnlyKind } from '../model/kinds.js';
import type { LiveRecord } from '../model/live.js';
import { composeIdentity, lastSegment, normalizeName, pathSeparator } from '../model/names.js';
import { mapPath, readPath, writePath } from '../model/paths.js';
import { didYouMean, suggestClose } from '../model/suggest.js';
import { appendTo } from '../model/collections.js';

/** live identity → identity after this plan, per unit kind, for records the plan renames or moves. */
export type Renames = ReadonlyMap<UnitKind, ReadonlyMap<string, string>>;

export interface Resolution {
  identity?: string;
  candidates: string[];
  /** Close names (within the scope) when nothing matched: likely typos. */
  suggestions?: string[];
  /** What the records of a read-only kind are called ("operation natures"), for its diagnostics. */
  readOnlyTitle?: string;
}

/**
 * Resolves a name or path to the identity of a record of `kind`, declared or live; a number is
 * the id of a live record (no identity when no record read has it).
 */
export type Resolver = (kind: UnitKind, value: string | number, scope: string | undefined) => Resolution;

export function readName(fields: Record<string, unknown>, path: readonly string[]): string | undefined {
  const value = readPath(fields, path);
  return typeof value === 'string' && value.trim() !== '' ? normalizeName(value) : undefined;
}

/**
 * A resolver over the desired units and live records of every kind. Indexes are rebuilt only
 * when a kind's desired units change (they do once, when canonicalized), so plans of ten
 * thousand records stay linear.
 */
export function createResolver(
  desiredOf: (kind: UnitKind) => readonly DesiredUnit[] | undefined,
  liveOf: (kind: UnitKind) => readonly LiveRecord[],
  readOnlyTitleOf: (kind: UnitKind) => string | undefined = () => undefined,
): Resolver {
  const indexes = new Map<UnitKind, { units: readonly DesiredUnit[] | undefined; identities: Set<string>; byName: Map<string, string[]>; byId: Map<number, string> }>();
  const indexOf = (kind: UnitKind) => {
    const units = desiredOf(kind);
    const cached = indexes.get(kind);
    if (cached && cached.units === units) return cached;
    const identities = new Set<string>([...(units ?? []).filter((u) => u.tool.ensure === 'present').map((u) => u.identity), ...liveOf(kind).map((r) => r.identity)]);
    const byName = new Map<string, string[]>();
    for (const id of identities) appendTo(byName, lastSegment(id), id);
    const byId = new Map(liveOf(kind).map((r) => [r.id, r.identity]));
    const index = { units, identities, byName, byId };
    indexes.set(kind, index);
    return index;
  };
  return (kind, value, scope) => {
    const index = indexOf(kind);
    if (typeof value === 'number') {
      const identity = index.byId.get(value);
      return identity === undefined ? { candidates: [] } : { identity, candidates: [identity] };
    }
    const prefix = scope ? `${scope}${pathSeparator}` : '';
    const wanted = `${prefix}${value}`;
    if (index.identities.has(wanted)) return { identity: wanted, candidates: [wanted] };
    // Only a miss needs every identity in scope (for suggestions): a hit by bare name must not scan them.
    const inScope = () => [...index.identities].filter((id) => id.startsWith(prefix)).map((id) => id.slice(prefix.length));
    if (value.includes(pathSeparator.trim())) return { candidates: [], suggestions: suggestClose(value, inScope()) };
    const byName = (index.byName.get(value) ?? []).filter((id) => !scope || id.startsWith(prefix));
    if (byName.length === 1) return { identity: byName[0], candidates: byName };
    const title = readOnlyTitleOf(kind);
    return { candidates: byName, ...(byName.length === 0 ? { suggestions: suggestClose(value, inScope()) } : {}), ...(title ? { readOnlyTitle: title } : {}) };
  };
}

/** Canonical identities (parent path resolved against declared and live records) and references as identities. */
export function canonicalizeUnits(units: readonly DesiredUnit[], adapter: KindAdapter, resolve: Resolver, renames: Renames, diagnostics: Diagnostic[]): DesiredUnit[] {
  const definition = adapter.definition;
  if (!definition) return units.map((unit) => ({ ...unit, fields: resolveReferences(unit, unit.fields, adapter, resolve, renames, diagnostics) }));
  const parentRef = definition.references.find((r) => r.parent);
  const byName = new Map<string, DesiredUnit[]>();
  const byIdentity = new Map<string, DesiredUnit[]>();
  for (const u of units) {
    appendTo(byName, u.name, u);
    appendTo(byIdentity, u.identity, u);
  }
  const done = new Map<DesiredUnit, DesiredUnit>();

  const canonical = (unit: DesiredUnit): DesiredUnit => {
    const known = done.get(unit);
    if (known) return known;
    let fields = unit.fields;
    let identity = unit.identity;
    let parent: string | undefined;
    const parentValue = parentRef ? readName(unit.fields, parentRef.path) : undefined;
    if (parentRef && parentValue !== undefined) {
      const declared = parentValue.includes(pathSeparator.trim()) ? [] : (byName.get(parentValue) ?? []);
      const declaredParent = byIdentity.get(parentValue)?.find((u) => u !== unit) ?? (declared.length === 1 ? declared[0] : undefined);
      if (declaredParent) {
        parent = canonical(declaredParent).identity;
      } else {
        const found = resolve(adapter.kind, parentValue, undefined);
        parent = found.identity;
        if (!parent) reportUnresolved(unit, parentRef.path, parentValue, found, diagnostics);
      }
      if (parent) {
        identity = composeIdentity({ parentPath: [parent], name: unit.name });
        fields = writePath(fields, parentRef.path, parent);
      }
    }
    fields = resolveReferences(unit, fields, adapter, resolve, renames, diagnostics);
    // A name made of references (a store link's category path) is the name of what they resolved to.
    if (definition.composeName && !parentRef) {
      const scope = definition.scopeField ? readName(fields, [definition.scopeField]) : undefined;
      identity = composeIdentity({ ...(scope ? { scope } : {}), name: normalizeName(definition.composeName(fields)) });
    }
    const result: DesiredUnit = { ...unit, identity, fields, ...(parent ? { parent } : {}) };
    done.set(unit, result);
    return result;
  };
  return units.map(canonical);
}

/** The scope a reference's name lives in (kinds/kind referenceScopePath). */
function scopeOf(ref: ReferenceField, fields: Record<string, unknown>, adapter: KindAdapter): string | undefined {
  const path = referenceScopePath(ref, adapter.definition);
  return path ? readName(fields, path) : undefined;
}

/**
 * References to other records (not the parent) rewritten to their target's identity after this
 * plan; each item of a list of names on its own. A number naming a read-only record stays an id
 * unless the list was read (then it is the record's identity, as on the live side).
 */
function resolveReferences(
  unit: DesiredUnit,
  fields: Record<string, unknown>,
  adapter: KindAdapter,
  resolve: Resolver,
  renames: Renames,
  diagnostics: Diagnostic[],
): Record<string, unknown> {
  let result = fields;
  for (const ref of referencesOf(adapter)) {
    if (ref.parent) continue;
    const scope = scopeOf(ref, unit.fields, adapter);
    let index = 0;
    result = mapPath(result, ref.path, (leaf) => {
      const at = ref.path.includes('*') ? [...ref.path.slice(0, ref.path.indexOf('*')), String(index++)] : ref.path;
      if (typeof leaf === 'number' && isReadOnlyKind(ref.target)) return resolve(ref.target, leaf, undefined).identity ?? leaf;
      if (typeof leaf !== 'string' || leaf.trim() === '') return leaf;
      const value = normalizeName(leaf);
      const found = resolve(ref.target, value, scope);
      const target = found.identity ? (renames.get(ref.target)?.get(found.identity) ?? found.identity) : undefined;
      // A tombstone may name records that are gone already (a transition of a deleted situation).
      if (!target && unit.tool.ensure === 'present') reportUnresolved(unit, at, value, found, diagnostics);
      return target ?? leaf;
    }) as Record<string, unknown>;
  }
  return result;
}

function reportUnresolved(unit: DesiredUnit, path: readonly string[], value: string, found: Resolution, diagnostics: Diagnostic[]): void {
  const { candidates, suggestions = [] } = found;
  const missing = found.readOnlyTitle
    ? `\`${value}\` is not one of the account's ${found.readOnlyTitle}`
    : `\`${value}\` is declared in no manifest and does not exist in the account`;
  const hint = candidates.length > 1 ? 'name it by its path, e.g. `Pai > Filho`' : didYouMean(suggestions);
  diagnostics.push({
    severity: 'error',
    code: candidates.length > 1 ? 'ambiguous-reference' : 'unresolved-reference',
    message: candidates.length > 1 ? `\`${value}\` matches ${candidates.length} records: ${candidates.join('; ')}` : missing,
    ...(hint ? { hint } : {}),
    position: unit.locate(path),
  });
}

/** A live record's identity and references seen through the renames this plan makes to its targets and container. */
export function translateLive(record: LiveRecord, adapter: KindAdapter, renames: Renames): LiveRecord {
  let fields = record.fields;
  for (const ref of referencesOf(adapter)) {
    const targetRenames = renames.get(ref.target);
    if (ref.parent || !targetRenames || targetRenames.size === 0) continue;
    fields = mapPath(fields, ref.path, (leaf) => (typeof leaf === 'string' ? (targetRenames.get(leaf) ?? leaf) : leaf)) as Record<string, unknown>;
  }
  const parentRenames = adapter.nestedIn ? renames.get(adapter.nestedIn) : undefined;
  const parent = record.parent === undefined ? undefined : parentRenames?.get(record.parent);
  if (parent !== undefined) return { ...record, fields, parent, identity: composeIdentity({ parentPath: [parent], name: record.name }) };
  if (fields === record.fields) return record;
  // A name made of references (a transition's ends, a store link's category) follows their renames.
  const definition = adapter.definition;
  if (!definition?.composeName) return { ...record, fields };
  const scope = definition.scopeField ? readName(fields, [definition.scopeField]) : undefined;
  const name = normalizeName(definition.composeName(fields));
  return { ...record, fields, name, identity: composeIdentity({ ...(scope ? { scope } : {}), name }) };
}

/** An identity under the closest ancestor that `renames` renames; the identity itself when none is. */
export function renameAncestors(identity: string, renames: ReadonlyMap<string, string>): string {
  if (renames.size === 0) return identity;
  // Where the separators are, left to right as split finds them; then the longest prefix first.
  const cuts: number[] = [];
  for (let at = identity.indexOf(pathSeparator); at >= 0; at = identity.indexOf(pathSeparator, at + pathSeparator.length)) cuts.push(at);
  for (let i = cuts.length - 1; i >= 0; i -= 1) {
    const cut = cuts[i] ?? 0;
    const renamedPrefix = renames.get(identity.slice(0, cut));
    if (renamedPrefix) return `${renamedPrefix}${identity.slice(cut)}`;
  }
  return identity;
}

/** A live record's parent reference, rewritten when this plan renames that parent or one of its ancestors. */
export function translateParentField(fields: Record<string, unknown>, path: readonly string[], renames: ReadonlyMap<string, string>): Record<string, unknown> {
  const value = readName(fields, path);
  if (value === undefined) return fields;
  const renamed = renames.get(value) ?? renameAncestors(value, renames);
  return renamed === value ? fields : writePath(fields, path, renamed);
}
