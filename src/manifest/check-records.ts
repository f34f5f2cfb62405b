// Checks across records that a schema can't express, common to every kind: identities (with
// parent paths for tree kinds), duplicates and near-duplicates, ids pinned twice, parent cycles,
// references to records no manifest declares (a note offline, with the declared names close to
// it; the plan must resolve them), secrets that did not come from ${VAR}. Then each kind's own
// checks (checkRecords in its adapter). Records may carry errors of their own: they come here
// without the fields that have them, so every check reads only what is sound.
import type { Diagnostic, SourcePosition } from '../model/diagnostics.js';
import type { KindDefinition, ReferenceTarget } from '../kinds/kind.js';
import { referenceScopePath } from '../kinds/kind.js';
import { findNameHazards, foldLookalikeName } from '../model/name-hazards.js';
import { composeIdentity, joinPath, normalizeName, pathSeparator } from '../model/names.js';
import { printable } from '../model/printable.js';
import { readPath, readPathValues } from '../model/paths.js';
import { isReadOnlyKind } from '../model/kinds.js';
import type { ManifestRecord, PathSegment } from '../model/desired.js';
import { appendTo, memoize } from '../model/collections.js';
import { didYouMean, suggestClose } from '../model/suggest.js';

export interface LocatedRecord {
  record: ManifestRecord;
  /** Dot path (relative to the record) → the variable a whole-`${VAR}` scalar came from. */
  variables: ReadonlyMap<string, string>;
  locate: (path: readonly PathSegment[], at?: 'key' | 'value') => SourcePosition;
}



function splitPath(reference: string): string[] {
  return reference.split(pathSeparator.trim()).map(normalizeName);
}

function where(position: SourcePosition): string {
  return `${position.file}:${position.line}:${position.col}`;
}

export interface IdentifiedRecord extends LocatedRecord {
  identity: string;
  name: string;
}

/**
 * What identifying the records a fleet's stores share found (names, parent paths, the first
 * declaration of each identity), kept so that a store identifies only its own records against it.
 */
export interface IdentifiedBase {
  identified: readonly IdentifiedRecord[];
  names: ReadonlyMap<LocatedRecord, string>;
  byName: ReadonlyMap<string, LocatedRecord[]>;
  paths: ReadonlyMap<LocatedRecord, string[]>;
  unresolved: ReadonlyMap<LocatedRecord, UnresolvedParent>;
  declaredPaths: readonly string[];
  /** The names the shared records' parent references look for: a store's record with one of them changes what they resolve to. */
  parentNames: ReadonlySet<string>;
  seen: ReadonlyMap<string, IdentifiedRecord>;
  folded: ReadonlyMap<string, IdentifiedRecord>;
  /** The unresolved-parent notes as the shared records alone hint them. */
  unresolvedNotes: readonly Diagnostic[];
  /** Every other problem identifying the shared records found. */
  diagnostics: readonly Diagnostic[];
}

interface UnresolvedParent {
  segments: string[];
  matching: string[][];
}

/**
 * Computes identities and reports the generic problems of one kind's records. The identity rule
 * is model/names' composeIdentity, the one the planner uses: scope, parent path, name. With a
 * base, `records` follow the base's records, whose names none of them is a parent reference of.
 */
export function identifyRecords(definition: KindDefinition, records: readonly LocatedRecord[], diagnostics: Diagnostic[], base?: IdentifiedBase): IdentifiedRecord[] {
  return identify(definition, records, diagnostics, base).identified;
}

/** Identifies the records a fleet's stores share, once, as the base of each store's own. */
export function identifySharedRecords(definition: KindDefinition, records: readonly LocatedRecord[]): IdentifiedBase {
  const diagnostics: Diagnostic[] = [];
  const found = identify(definition, records, diagnostics);
  const unresolvedNotes = diagnostics.filter((d) => d.code === 'unresolved-reference' || d.code === 'ambiguous-reference');
  return { ...found, unresolvedNotes, diagnostics: diagnostics.filter((d) => !unresolvedNotes.includes(d)) };
}

function identify(definition: KindDefinition, records: readonly LocatedRecord[], diagnostics: Diagnostic[], base?: IdentifiedBase): Omit<IdentifiedBase, 'unresolvedNotes' | 'diagnostics' | 'identified'> & { identified: IdentifiedRecord[] } {
  const nameField = definition.nameField;
  const empty = { names: new Map(), byName: new Map(), paths: new Map(), unresolved: new Map(), declaredPaths: [], parentNames: new Set<string>(), seen: new Map(), folded: new Map() };
  if (!nameField) return { ...empty, identified: records.map((r) => ({ ...r, identity: definition.key, name: '' })) };
  // Each name is normalized once: the parent paths ask for the same names many times over.
  const names = new Map(records.map((r) => [r, normalizeName(definition.composeName ? definition.composeName(r.record.value) : String(r.record.value[nameField] ?? ''))]));
  const nameOf = (r: LocatedRecord) => names.get(r) ?? base?.names.get(r) ?? '';
  const resolved = resolveParentPaths(definition, records, nameOf, diagnostics, base);
  const identified = records.map((r) => {
    const scope = definition.scopeField ? normalizeName(String(r.record.value[definition.scopeField] ?? '')) : undefined;
    const name = nameOf(r);
    return { ...r, name, identity: composeIdentity({ ...(scope ? { scope } : {}), parentPath: resolved.paths.get(r) ?? [], name }) };
  });
  if (base) diagnostics.push(...base.diagnostics);
  const firsts = reportDuplicates(definition, nameField, identified, diagnostics, base);
  checkNameHazards(definition, records, diagnostics);
  return { identified, names, ...resolved, ...firsts };
}

/**
 * The parent path of every record of a tree kind, from the parent references (a bare name must
 * name one declared record; an undeclared parent keeps the path as written). Loops are reported.
 */
function resolveParentPaths(
  definition: KindDefinition,
  records: readonly LocatedRecord[],
  nameOf: (r: LocatedRecord) => string,
  diagnostics: Diagnostic[],
  base?: IdentifiedBase,
): Pick<IdentifiedBase, 'byName' | 'paths' | 'unresolved' | 'declaredPaths' | 'parentNames'> {
  const parentRef = definition.references.find((ref) => ref.parent && ref.target === definition.key);
  const byName = new Map<string, LocatedRecord[]>();
  for (const r of records) appendTo(byName, nameOf(r), r);
  const candidatesOf = (name: string): LocatedRecord[] => {
    const own = byName.get(name) ?? [];
    const shared = base?.byName.get(name);
    return shared ? [...shared, ...own] : own;
  };
  const paths = new Map<LocatedRecord, string[]>();
  const inProgress = new Set<LocatedRecord>();
  const cyclic = new Set<LocatedRecord>();
  const unresolved = new Map<LocatedRecord, UnresolvedParent>();
  const parentNames = new Set<string>();
  const fullPath = (r: LocatedRecord): string[] => [...parentPathOf(r), nameOf(r)];
  const parentPathOf = (r: LocatedRecord): string[] => {
    const known = paths.get(r) ?? base?.paths.get(r);
    if (known) return known;
    if (inProgress.has(r)) {
      cyclic.add(r);
      return [];
    }
    inProgress.add(r);
    let result: string[] = [];
    const reference = parentRef ? readPath(r.record.value, parentRef.path) : undefined;
    if (parentRef && typeof reference === 'string' && reference.trim() !== '') {
      const segments = splitPath(reference);
      const leaf = segments[segments.length - 1] ?? '';
      parentNames.add(leaf);
      const candidates = candidatesOf(leaf);
      const matching = segments.length === 1 ? candidates : candidates.filter((c) => fullPath(c).join('\u0000') === segments.join('\u0000'));
      if (matching.length === 1 && matching[0]) result = fullPath(matching[0]);
      else {
        result = segments;
        if (!unresolved.has(r)) unresolved.set(r, { segments, matching: matching.map(fullPath) });
      }
    }
    inProgress.delete(r);
    paths.set(r, result);
    return result;
  };
  for (const r of records) parentPathOf(r);
  // Close names are looked for once every path is known: a typo is likely close to a full path —
  // of a declared record, or of one every account holds (the default chart), as `plan` hints them.
  const ownPaths = records.filter((r) => nameOf(r) !== '' && !cyclic.has(r)).map((r) => joinPath(fullPath(r)));
  const declaredPaths = base ? [...base.declaredPaths, ...ownPaths] : ownPaths;
  const closeTo = memoize((written: string) => suggestClose(written, [...declaredPaths, ...(definition.accountRecords ?? []).filter((own) => own !== written)]));
  // The shared records' notes hint the declared paths: a store that declares more hints them anew.
  if (base && ownPaths.length > 0) for (const [r, { segments, matching }] of base.unresolved) reportParent(r, segments, matching, parentRef?.path ?? [], closeTo, diagnostics);
  else if (base) diagnostics.push(...base.unresolvedNotes);
  for (const [r, { segments, matching }] of unresolved) reportParent(r, segments, matching, parentRef?.path ?? [], closeTo, diagnostics);
  for (const r of cyclic) {
    diagnostics.push({
      severity: 'error',
      code: 'reference-cycle',
      message: `the parents of \`${nameOf(r)}\` lead back to itself`,
      hint: 'a record cannot be its own ancestor; fix one of the parent references in the loop',
      position: r.locate(parentRef?.path ?? []),
      path: r.record.pointer,
    });
  }
  return { byName, paths, unresolved, declaredPaths, parentNames };
}

function reportParent(
  child: LocatedRecord,
  segments: readonly string[],
  matching: readonly string[][],
  refPath: readonly string[],
  closeTo: (written: string) => string[],
  diagnostics: Diagnostic[],
): void {
  const path = `${child.record.pointer}/${refPath.join('/')}`;
  if (matching.length > 1) {
    diagnostics.push({
      severity: 'error',
      code: 'ambiguous-reference',
      message: `\`${segments.join(pathSeparator)}\` names ${matching.length} declared records`,
      hint: `name the parent by its path, e.g. \`${matching[0]?.join(pathSeparator) ?? segments.join(pathSeparator)}\``,
      position: child.locate(refPath),
      path,
    });
    return;
  }
  const written = segments.join(pathSeparator);
  diagnostics.push(undeclaredNote(written, closeTo(written), child.locate(refPath), path));
}

/**
 * A name no manifest declares: true offline (the account may hold it; the plan decides), with the
 * declared names close to it — the hint `plan` gives for the same typo, less the account's records.
 */
function undeclaredNote(name: string, close: readonly string[], position: SourcePosition, path: string): Diagnostic {
  const hint = didYouMean(close);
  return {
    severity: 'note',
    code: 'unresolved-reference',
    message: `\`${name}\` is not declared in these manifests; it must exist in the account when you plan`,
    ...(hint ? { hint } : {}),
    position,
    path,
  };
}

/** A name of a read-only kind close to one every account holds, and not it: likely a typo (`plan` resolves it against the account). */
function unknownAccountNameNote(name: string, title: string, close: readonly string[], position: SourcePosition, path: string): Diagnostic {
  const hint = didYouMean(close);
  return {
    severity: 'note',
    code: 'unresolved-reference',
    message: `\`${name}\` is not one of the ${title} every account has; it must exist in the account when you plan`,
    ...(hint ? { hint } : {}),
    position,
    path,
  };
}

/** The same identity twice is an error; identities that differ only in case or accents, a warning. */
function reportDuplicates(
  definition: KindDefinition,
  nameField: string,
  identified: readonly IdentifiedRecord[],
  diagnostics: Diagnostic[],
  base?: IdentifiedBase,
): Pick<IdentifiedBase, 'seen' | 'folded'> {
  const seen = new Map<string, IdentifiedRecord>();
  const folded = new Map<string, IdentifiedRecord>();
  for (const r of identified) {
    // A record whose name is missing or has an error of its own has no identity to compare.
    if (r.name === '') continue;
    const first = seen.get(r.identity) ?? base?.seen.get(r.identity);
    if (first) {
      diagnostics.push({
        severity: 'error',
        code: 'duplicate-record',
        message: `\`${r.identity}\` is declared twice in ${definition.key}; the first declaration is at ${where(first.locate([]))}`,
        hint: 'keep one declaration, or give the records different names',
        position: r.locate([nameField]),
        path: r.record.pointer,
      });
      continue;
    }
    seen.set(r.identity, r);
    const fold = foldLookalikeName(r.identity);
    const similar = folded.get(fold) ?? base?.folded.get(fold);
    if (similar) {
      diagnostics.push({
        severity: 'warning',
        code: 'near-duplicate',
        message: `\`${r.identity}\` differs from \`${similar.identity}\` (${where(similar.locate([]))}) only in case, accents, look-alike letters or invisible characters`,
        hint: 'the account will hold two records that look the same; rename one if that is not intended',
        position: r.locate([nameField]),
        path: r.record.pointer,
      });
    } else {
      folded.set(fold, r);
    }
    const previous = r.record.value.previousNames;
    if (Array.isArray(previous) && previous.some((p) => typeof p === 'string' && normalizeName(p) === r.name)) {
      diagnostics.push({
        severity: 'warning',
        code: 'previous-name-is-current',
        message: `\`previousNames\` lists the record's current name \`${r.name}\``,
        position: r.locate(['previousNames']),
        path: r.record.pointer,
      });
    }
  }
  return { seen, folded };
}

/**
 * Names, and the names a record refers to, that hold invisible or control characters or mix
 * look-alike scripts: a warning with the code points, since the ERP's screens hide the difference.
 */
function checkNameHazards(definition: KindDefinition, records: readonly LocatedRecord[], diagnostics: Diagnostic[]): void {
  const fields = [...(definition.nameField ? [[definition.nameField]] : []), ...(definition.scopeField ? [[definition.scopeField]] : []), ...definition.references.map((ref) => ref.path)];
  for (const r of records) {
    for (const field of fields) {
      const value = readPath(r.record.value, field);
      if (typeof value !== 'string') continue;
      for (const hazard of findNameHazards(value)) {
        diagnostics.push({
          severity: 'warning',
          code: 'confusable-name',
          message: `\`${printable(value)}\` holds ${hazard.description}`,
          hint: 'in the ERP this name looks like another one; retype it if that is not intended',
          position: r.locate(field),
          path: `${r.record.pointer}/${field.join('/')}`,
        });
      }
    }
  }
}

/** Secret fields are accepted only through ${VAR}, so a secret never sits in git. */
export function checkSecrets(definition: KindDefinition, records: readonly LocatedRecord[], diagnostics: Diagnostic[]): void {
  for (const r of records) {
    for (const secretPath of definition.secretFields) {
      const value = readPath(r.record.value, secretPath);
      if (value === undefined || value === null || value === '') continue;
      if (r.variables.has(secretPath.join('.'))) continue;
      const name = secretPath[secretPath.length - 1] ?? 'value';
      diagnostics.push({
        severity: 'error',
        code: 'secret-not-from-variable',
        message: `\`${secretPath.join('.')}\` is a secret and must be exactly one environment variable, such as \`\${NFSE_SENHA_PREFEITURA}\` (no default)`,
        hint: `write \`${name}: \${VARIABLE_NAME}\` and set the variable where erpsync runs`,
        position: r.locate(secretPath),
        path: `${r.record.pointer}/${secretPath.join('/')}`,
      });
    }
  }
}

/**
 * What the manifests declare of one kind within one scope, as references may name it, and the
 * records every account holds of it (KindDefinition.accountRecords).
 */
export interface DeclaredNames {
  /** A bare name, or a path from the scope (`Maquiagem > Rosto`), that names a declared record (or, for a read-only kind, one every account holds). */
  has(name: string): boolean;
  /** Declared identities and those every account holds (from the scope) close to a name that matched none. */
  closeTo(name: string): string[];
  /** Set for a read-only kind: its title. Its records are never declared, only known to be in every account. */
  readOnlyTitle?: string;
}

/**
 * References to records of another kind (e.g. a situation's base, a custom field's product
 * categories): a note when no manifest declares the name, with the names close to it. Read-only
 * records are never declared: a name is noted only when it is close to one every account holds
 * (a module), since the account may hold any other.
 */
export function checkCrossReferences(
  definition: KindDefinition,
  records: readonly LocatedRecord[],
  declaredNames: (kind: ReferenceTarget, scope: string | undefined) => DeclaredNames,
  diagnostics: Diagnostic[],
): void {
  for (const ref of crossReferencesOf(definition)) for (const use of referenceUses(definition, ref, records)) reportUndeclared(use, declaredNames, diagnostics);
}

type KindReference = KindDefinition['references'][number];

/** A kind's references to the records of other kinds (a parent reference is resolved with the identities). */
export function crossReferencesOf(definition: KindDefinition): KindReference[] {
  return definition.references.filter((ref) => !ref.parent);
}

/** One name a record's reference gives, with the scope the target is looked up in. */
export interface ReferenceUse {
  record: LocatedRecord;
  target: ReferenceTarget;
  scope: string | undefined;
  name: string;
  at: PathSegment[];
  pointer: string;
}

/** The names one reference gives in the records, in their order. */
export function referenceUses(definition: KindDefinition, ref: KindReference, records: readonly LocatedRecord[]): ReferenceUse[] {
  const scopePath = isReadOnlyKind(ref.target) ? undefined : referenceScopePath(ref, definition);
  const at = ref.path.includes('*') ? ref.path.slice(0, ref.path.indexOf('*')) : [...ref.path];
  const uses: ReferenceUse[] = [];
  for (const r of records) {
    const scope = scopePath ? normalizeName(String(readPath(r.record.value, scopePath) ?? '')) : undefined;
    for (const name of readPathValues(r.record.value, ref.path)) {
      if (typeof name !== 'string' || name.trim() === '') continue;
      uses.push({ record: r, target: ref.target, scope, name: normalizeName(name), at, pointer: `${r.record.pointer}/${ref.path.join('/')}` });
    }
  }
  return uses;
}

/** The note for a name no manifest declares (or, read-only, close to one every account holds). */
export function reportUndeclared(use: ReferenceUse, declaredNames: (kind: ReferenceTarget, scope: string | undefined) => DeclaredNames, diagnostics: Diagnostic[]): void {
  const declared = declaredNames(use.target, use.scope);
  if (declared.has(use.name)) return;
  const close = declared.closeTo(use.name);
  if (declared.readOnlyTitle === undefined) diagnostics.push(undeclaredNote(use.name, close, use.record.locate(use.at), use.pointer));
  else if (close.length > 0) diagnostics.push(unknownAccountNameNote(use.name, declared.readOnlyTitle, close, use.record.locate(use.at), use.pointer));
}

/**
 * One live record can be managed by one manifest record only: an `id:` pinned twice within a
 * kind is an error offline, where the manifests say it (the planner keeps the same rule for a
 * desired state that did not come through this loader).
 */
export function checkPinnedIds(
  definition: KindDefinition,
  records: readonly IdentifiedRecord[],
  diagnostics: Diagnostic[],
  pinnedBefore?: ReadonlyMap<number, IdentifiedRecord>,
): ReadonlyMap<number, IdentifiedRecord> {
  const pinnedBy = new Map<number, IdentifiedRecord>();
  for (const r of records) {
    const id = r.record.value.id;
    if (typeof id !== 'number') continue;
    const first = pinnedBy.get(id) ?? pinnedBefore?.get(id);
    if (!first) {
      pinnedBy.set(id, r);
      continue;
    }
    diagnostics.push({
      severity: 'error',
      code: 'duplicate-pinned-id',
      message: `id ${id} is pinned by two ${definition.key} records: \`${r.identity}\` here and \`${first.identity}\` at ${where(first.locate(['id']))}`,
      hint: 'a live record can be managed by one manifest record only; remove one of the pins',
      position: r.locate(['id']),
      path: `${r.record.pointer}/id`,
    });
  }
  return pinnedBy;
}
