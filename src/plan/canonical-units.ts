// Canonical desired units: identities completed against the account (a parent named by a bare
// name that only the account holds gets its full path), references rewritten to the identity of
// their target (through the renames this plan makes), and live records seen through the same
// renames. Pure; problems become diagnostics at the manifest position.
import type { KindAdapter } from '../kinds/kind.js';
import type { DesiredUnit } from '../model/desired.js';
import type { Diagnostic } from '../model/diagnostics.js';
import type { UnitKind } from '../model/kinds.js';
import type { LiveRecord } from '../model/live.js';
import { composeIdentity, lastSegment, normalizeName, pathSeparator } from '../model/names.js';
import { readPath, writePath } from '../model/paths.js';

/** live identity → identity after this plan, per unit kind, for records the plan renames or moves. */
export type Renames = ReadonlyMap<UnitKind, ReadonlyMap<string, string>>;

export interface Resolution {
  identity?: string;
  candidates: string[];
}

/** Resolves a name or path to the identity of a record of `kind`, declared or live. */
export type Resolver = (kind: UnitKind, value: string, scope: string | undefined) => Resolution;

export function readName(fields: Record<string, unknown>, path: readonly string[]): string | undefined {
  const value = readPath(fields, path);
  return typeof value === 'string' && value.trim() !== '' ? normalizeName(value) : undefined;
}

/**
 * A resolver over the desired units and live records of every kind. Indexes are rebuilt only
 * when a kind's desired units change (they do once, when canonicalized), so plans of ten
 * thousand records stay linear.
 */
export function createResolver(desiredOf: (kind: UnitKind) => readonly DesiredUnit[] | undefined, liveOf: (kind: UnitKind) => readonly LiveRecord[]): Resolver {
  const indexes = new Map<UnitKind, { units: readonly DesiredUnit[] | undefined; identities: Set<string>; byName: Map<string, string[]> }>();
  const indexOf = (kind: UnitKind) => {
    const units = desiredOf(kind);
    const cached = indexes.get(kind);
    if (cached && cached.units === units) return cached;
    const identities = new Set<string>([...(units ?? []).filter((u) => u.tool.ensure === 'present').map((u) => u.identity), ...liveOf(kind).map((r) => r.identity)]);
    const byName = new Map<string, string[]>();
    for (const id of identities) byName.set(lastSegment(id), [...(byName.get(lastSegment(id)) ?? []), id]);
    const index = { units, identities, byName };
    indexes.set(kind, index);
    return index;
  };
  return (kind, value, scope) => {
    const wanted = scope ? `${scope}${pathSeparator}${value}` : value;
    const index = indexOf(kind);
    if (index.identities.has(wanted)) return { identity: wanted, candidates: [wanted] };
    if (value.includes(pathSeparator.trim())) return { candidates: [] };
    const byName = (index.byName.get(value) ?? []).filter((id) => !scope || id.startsWith(`${scope}${pathSeparator}`));
    return byName.length === 1 ? { identity: byName[0], candidates: byName } : { candidates: byName };
  };
}

/** Canonical identities (parent path resolved against declared and live records) and references as identities. */
export function canonicalizeUnits(units: readonly DesiredUnit[], adapter: KindAdapter, resolve: Resolver, renames: Renames, diagnostics: Diagnostic[]): DesiredUnit[] {
  const definition = adapter.definition;
  if (!definition) return [...units];
  const parentRef = definition.references.find((r) => r.parent);
  const byName = new Map<string, DesiredUnit[]>();
  const byIdentity = new Map<string, DesiredUnit[]>();
  for (const u of units) {
    byName.set(u.name, [...(byName.get(u.name) ?? []), u]);
    byIdentity.set(u.identity, [...(byIdentity.get(u.identity) ?? []), u]);
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
        if (!parent) reportUnresolved(unit, parentRef.path, parentValue, found.candidates, diagnostics);
      }
      if (parent) {
        identity = composeIdentity({ parentPath: [parent], name: unit.name });
        fields = writePath(fields, parentRef.path, parent);
      }
    }
    fields = resolveReferences(unit, fields, adapter, resolve, renames, diagnostics);
    const result: DesiredUnit = { ...unit, identity, fields, ...(parent ? { parent } : {}) };
    done.set(unit, result);
    return result;
  };
  return units.map(canonical);
}

/** References to other records (not the parent) rewritten to their target's identity after this plan. */
function resolveReferences(
  unit: DesiredUnit,
  fields: Record<string, unknown>,
  adapter: KindAdapter,
  resolve: Resolver,
  renames: Renames,
  diagnostics: Diagnostic[],
): Record<string, unknown> {
  const definition = adapter.definition;
  let result = fields;
  for (const ref of definition?.references ?? []) {
    if (ref.parent) continue;
    const value = readName(unit.fields, ref.path);
    if (value === undefined) continue;
    // A scope (a situation's module) narrows references within the same kind only.
    const scope = definition?.scopeField && ref.target === definition.key ? readName(unit.fields, [definition.scopeField]) : undefined;
    const found = resolve(ref.target, value, scope);
    const target = found.identity ? (renames.get(ref.target)?.get(found.identity) ?? found.identity) : undefined;
    if (target) result = writePath(result, ref.path, target);
    else reportUnresolved(unit, ref.path, value, found.candidates, diagnostics);
  }
  return result;
}

function reportUnresolved(unit: DesiredUnit, path: readonly string[], value: string, candidates: readonly string[], diagnostics: Diagnostic[]): void {
  diagnostics.push({
    severity: 'error',
    code: candidates.length > 1 ? 'ambiguous-reference' : 'unresolved-reference',
    message:
      candidates.length > 1
        ? `\`${value}\` matches ${candidates.length} records: ${candidates.join('; ')}`
        : `\`${value}\` is declared in no manifest and does not exist in the account`,
    ...(candidates.length > 1 ? { hint: 'name it by its path, e.g. `Pai > Filho`' } : {}),
    position: unit.locate(path),
  });
}

/** A live record's identity and references seen through the renames this plan makes to its targets and container. */
export function translateLive(record: LiveRecord, adapter: KindAdapter, renames: Renames): LiveRecord {
  let fields = record.fields;
  for (const ref of adapter.definition?.references ?? []) {
    if (ref.parent) continue;
    const value = readName(record.fields, ref.path);
    const target = value ? renames.get(ref.target)?.get(value) : undefined;
    if (target) fields = writePath(fields, ref.path, target);
  }
  const parentRenames = adapter.nestedIn ? renames.get(adapter.nestedIn) : undefined;
  const parent = record.parent === undefined ? undefined : parentRenames?.get(record.parent);
  if (parent !== undefined) return { ...record, fields, parent, identity: composeIdentity({ parentPath: [parent], name: record.name }) };
  return fields === record.fields ? record : { ...record, fields };
}

/** An identity under the closest ancestor that `renames` renames; the identity itself when none is. */
export function renameAncestors(identity: string, renames: ReadonlyMap<string, string>): string {
  const parts = identity.split(pathSeparator);
  for (let length = parts.length - 1; length >= 1; length -= 1) {
    const renamedPrefix = renames.get(parts.slice(0, length).join(pathSeparator));
    if (renamedPrefix) return [renamedPrefix, ...parts.slice(length)].join(pathSeparator);
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
