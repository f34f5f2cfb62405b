// References across kinds when a fleet's stores share most of their records. The names a kind
// declares are its shared records' (gathered once per fleet) and then the store's own, so the
// shared records' references that the shared names already declare stay declared in every store:
// they are checked once, and each store checks only the rest of them and its own records' against
// everything it declares. What a store is told is what checking all of its records would tell it.
import type { KindKey, ReferenceTarget } from '../model/kinds.js';
import { isReadOnlyKind } from '../model/kinds.js';
import { identityKeyOf, memoize } from '../model/collections.js';
import { normalizeName, pathSeparator } from '../model/names.js';
import { suggestClose } from '../model/suggest.js';
import type { KindDefinition } from '../kinds/kind.js';
import type { Registry } from '../kinds/registry.js';
import type { Diagnostic } from '../model/diagnostics.js';
import { checkCrossReferences, crossReferencesOf, referenceUses, reportUndeclared } from './check-records.js';
import type { DeclaredNames, IdentifiedRecord, LocatedRecord, ReferenceUse } from './check-records.js';

export type DeclaredNamesOf = (kind: ReferenceTarget, scope: string | undefined) => DeclaredNames;

/** Per kind, the records a load shares with the fleet, first in its records: `records` as gathered, `identified` as identified. */
export type SharedParts = ReadonlyMap<KindKey, { records: readonly LocatedRecord[]; identified: readonly IdentifiedRecord[] }>;

/** The names records declare in one scope: bare names, and identities from the scope in the records' order. */
interface ScopeNames {
  names: ReadonlySet<string>;
  fromScope: readonly string[];
}

const none: readonly IdentifiedRecord[] = [];
const sharedNames = new WeakMap<readonly IdentifiedRecord[], Map<string, ScopeNames>>();

function namesInScope(definition: KindDefinition, records: readonly IdentifiedRecord[], scope: string | undefined): ScopeNames {
  const scoped = definition.scopeField !== undefined && scope !== undefined;
  const inScope = records.filter((r) => r.name !== '' && (!scoped || normalizeName(String(r.record.value[definition.scopeField ?? ''] ?? '')) === scope));
  const prefix = scoped ? `${scope}${pathSeparator}` : '';
  const fromScope = inScope.map((r) => (prefix !== '' && r.identity.startsWith(prefix) ? r.identity.slice(prefix.length) : r.identity));
  return { names: new Set([...inScope.map((r) => r.name), ...fromScope]), fromScope };
}

/** The names of a kind's shared records in a scope, gathered once per fleet. */
function sharedNamesInScope(definition: KindDefinition, shared: readonly IdentifiedRecord[], scope: string | undefined): ScopeNames {
  let byScope = sharedNames.get(shared);
  if (!byScope) sharedNames.set(shared, (byScope = new Map()));
  const key = scope ?? '\u0001';
  let names = byScope.get(key);
  if (!names) byScope.set(key, (names = namesInScope(definition, shared, scope)));
  return names;
}

/** What a read-only kind's references may name: the records every account holds. */
function readOnlyNames(registry: Registry, kind: ReferenceTarget): DeclaredNames {
  const readOnly = registry.unit(kind)?.readOnly;
  const names = readOnly?.accountRecords ?? [];
  return { has: (name) => names.includes(name), closeTo: memoize((name) => suggestClose(name, names)), readOnlyTitle: readOnly?.title ?? kind };
}

/**
 * What references may name, per kind and scope: each declared record by its name and by its
 * identity from the scope (`Maquiagem > Rosto` for a tree), as the planner resolves them, and the
 * records every account holds (accountRecords) for hints. Built once per kind and scope:
 * references ask for the same ones many times over.
 */
export function declaredNamesOf(registry: Registry, identified: ReadonlyMap<KindKey, readonly IdentifiedRecord[]>, shared: SharedParts): DeclaredNamesOf {
  const built = new Map<string, DeclaredNames>();
  return (kind, scope) => {
    const key = `${kind}\u0000${scope ?? '\u0001'}`;
    const known = built.get(key);
    if (known) return known;
    if (isReadOnlyKind(kind)) {
      const declared = readOnlyNames(registry, kind);
      built.set(key, declared);
      return declared;
    }
    const definition = registry.kind(kind);
    const sharedPart = shared.get(kind)?.identified ?? none;
    const base = sharedNamesInScope(definition, sharedPart, scope);
    const own = namesInScope(definition, (identified.get(kind) ?? []).slice(sharedPart.length), scope);
    const prefix = definition.scopeField !== undefined && scope !== undefined ? `${scope}${pathSeparator}` : '';
    // A name that is one of the account's own records is noted (it must still be there), not hinted at itself.
    const accountOwn = (definition.accountRecords ?? []).filter((identity) => identity.startsWith(prefix)).map((identity) => identity.slice(prefix.length));
    const declared: DeclaredNames = {
      has: (name) => base.names.has(name) || own.names.has(name),
      closeTo: memoize((name) => suggestClose(name, [...base.fromScope, ...own.fromScope, ...accountOwn.filter((other) => other !== name)])),
    };
    built.set(key, declared);
    return declared;
  };
}

/**
 * What a reference of the shared records gives before a store's own names are known: the uses the
 * shared names alone do not declare (each store looks for them in its own), and the notes of a
 * reference to a read-only kind (the same in every store: no manifest declares those records).
 */
interface SharedReferenceCheck {
  recheck: readonly ReferenceUse[];
  found: readonly Diagnostic[];
}

/** By a kind's shared records, then by the shared parts of its references' targets: per reference, what checking the shared records gives. */
const checkedByShared = new WeakMap<readonly LocatedRecord[], Map<string, readonly SharedReferenceCheck[]>>();

/** Checks the references of one kind's records (those of `shared.get(kind)` first), the shared records' once per fleet. */
export function checkReferences(registry: Registry, definition: KindDefinition, records: readonly LocatedRecord[], shared: SharedParts, declaredNames: DeclaredNamesOf, diagnostics: Diagnostic[]): void {
  const sharedRecords = shared.get(definition.key)?.records ?? [];
  if (sharedRecords.length === 0) {
    checkCrossReferences(definition, records, declaredNames, diagnostics);
    return;
  }
  const references = crossReferencesOf(definition);
  const targetsKey = references.map((ref) => (isReadOnlyKind(ref.target) ? '-' : identityKeyOf(shared.get(ref.target)?.identified ?? none))).join(',');
  let byTargets = checkedByShared.get(sharedRecords);
  if (!byTargets) checkedByShared.set(sharedRecords, (byTargets = new Map()));
  let checked = byTargets.get(targetsKey);
  if (!checked) {
    const sharedOnly = declaredNamesOf(registry, new Map(), shared);
    checked = references.map((ref) => checkSharedReference(ref.target, referenceUses(definition, ref, sharedRecords), sharedOnly));
    byTargets.set(targetsKey, checked);
  }
  const own = records.slice(sharedRecords.length);
  references.forEach((ref, i) => {
    diagnostics.push(...(checked[i]?.found ?? []));
    for (const use of checked[i]?.recheck ?? []) reportUndeclared(use, declaredNames, diagnostics);
    for (const use of referenceUses(definition, ref, own)) reportUndeclared(use, declaredNames, diagnostics);
  });
}

function checkSharedReference(target: ReferenceTarget, uses: readonly ReferenceUse[], sharedOnly: DeclaredNamesOf): SharedReferenceCheck {
  if (!isReadOnlyKind(target)) return { recheck: uses.filter((use) => !sharedOnly(use.target, use.scope).has(use.name)), found: [] };
  const found: Diagnostic[] = [];
  for (const use of uses) reportUndeclared(use, sharedOnly, found);
  return { recheck: [], found };
}
