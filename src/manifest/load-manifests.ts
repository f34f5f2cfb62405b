// Stage 1 of the pipeline: manifests on disk → DesiredState, or diagnostics.
// Reads files (never the network), parses YAML keeping positions, interpolates ${VARS}, validates
// against the schema of the registry's kinds, normalizes enum labels to API codes, and runs the
// cross-record checks. Every problem becomes a diagnostic with file:line:col; nothing here
// throws for bad input. A pruned kind must be declared explicitly: declared nowhere, or next to
// an empty file that may have been meant to declare it, is an error — pruning deletes records.
import { createHash } from 'node:crypto';
import { normalizeEnumLabels } from '../kinds/enum-labels.js';
import type { KindDefinition } from '../kinds/kind.js';
import { registry as defaultRegistry } from '../kinds/registry.js';
import type { Registry } from '../kinds/registry.js';
import type { DesiredRecord, DesiredState, ManifestRecord, PathSegment, Policy } from '../model/desired.js';
import { defaultPolicy } from '../model/desired.js';
import type { Diagnostic, SourcePosition } from '../model/diagnostics.js';
import { compareDiagnostics, hasErrors } from '../model/diagnostics.js';
import type { KindKey } from '../model/kinds.js';
import { appendTo } from '../model/collections.js';
import { isPlainRecord, parsePointer, removePath, toPointer } from '../model/paths.js';
import { checkPinnedIds, checkSecrets, identifyRecords } from './check-records.js';
import { applyOverlays, checkAgainstShared, deepFreeze, findingsOf, sharesAcrossLoads, toDesiredRecord } from './shared-kinds.js';
import type { KindChecked, LayerOf, SharedPrefix } from './shared-kinds.js';
import { checkReferences, declaredNamesOf } from './shared-references.js';
import type { IdentifiedRecord, LocatedRecord } from './check-records.js';
import { displayPath, findManifestFiles } from './find-files.js';
import { interpolateDocument } from './interpolate.js';
import type { InterpolationResult, VariableReference } from './interpolate.js';
import { splitAtVariables, viewTails } from './split-variables.js';
import type { Tails } from './split-variables.js';
import { buildManifestSchema, schemaAtPath } from './manifest-schema.js';
import type { JsonSchema } from '../kinds/kind.js';
import { isCredentialVariable } from '../model/secret-mask.js';
import { parseYamlFileOnce, readManifestFileOnce } from './parse-once.js';
import type { ParsedDocument, ParsedFile } from './parse-yaml.js';
import { diagnosticsOf, manifestValidator } from './validate-schema.js';
import type { SchemaValidator } from './validate-schema.js';

export interface LoadOptions {
  cwd: string;
  /** The process environment; `${NAME}` reads only ERPSYNC_VAR_NAME of it (and a secret field's own variable). */
  env: NodeJS.ProcessEnv;
  /** The target's envFile and `variables`, merged: the variables the project declares by name. */
  variables?: Readonly<Record<string, string>>;
  /** Offline checking (validate): secret variables may be unset, with a warning. */
  offline?: boolean;
  /** The kinds the manifests may declare; the built-in registry unless a test brings its own. */
  registry?: Registry;
  /**
   * Each path is a layer (a target's `manifests: [base, overlay]`): a record of a later layer
   * replaces the record with the same identity of an earlier one, and the last policy block wins.
   * Without it, the same identity twice is an error wherever it is declared.
   */
  layers?: boolean;
}

export interface LoadResult {
  /** Present when no diagnostic is an error. */
  desired?: DesiredState;
  diagnostics: Diagnostic[];
  files: readonly string[];
  /** The digest of the files read (DesiredState.digest), also when they have errors. */
  digest: string;
}

interface PolicyDeclaration {
  value: Record<string, unknown>;
  locate: ParsedDocument['locate'];
  layer: number;
}

/** The manifest language of one load: its kinds, their composed schema and its validator. */
interface Language {
  registry: Registry;
  schema: JsonSchema;
  validate: SchemaValidator;
}

/** What reading the files gathers before the checks across files. */
interface Gathered {
  diagnostics: Diagnostic[];
  byKind: Map<KindKey, LocatedRecord[]>;
  declaredKinds: Set<KindKey>;
  policies: PolicyDeclaration[];
  /** Files (or documents) that declare nothing: empty, or comments only. */
  emptyFiles: { position: SourcePosition; what: string }[];
  /** Every `${NAME}` of the set, for the checks of which variable may go where. */
  references: VariableReference[];
  /** The layer (index of the path given) each record comes from; all 0 without layers. A shared part's records are in sharedLayers. */
  layerOf: Map<ManifestRecord, number>;
  /** Per kind, the records taken from shared parts before any of the load's own. */
  sharedPrefix: Map<KindKey, SharedPrefix>;
}

export async function loadManifests(paths: readonly string[], options: LoadOptions): Promise<LoadResult> {
  const registry = options.registry ?? defaultRegistry;
  const language: Language = { registry, schema: manifestSchemaOf(registry.kinds), validate: await manifestValidator(registry.kinds) };
  const layers = options.layers === true ? await Promise.all(paths.map((p) => findManifestFiles([p], options.cwd))) : [await findManifestFiles(paths, options.cwd)];
  const gathered: Gathered = { diagnostics: layers.flatMap((l) => l.diagnostics), byKind: new Map(), declaredKinds: new Set(), policies: [], emptyFiles: [], references: [], layerOf: new Map(), sharedPrefix: new Map() };
  const hash = createHash('sha256');
  const files: string[] = [];
  for (const [layer, found] of layers.entries()) {
    for (const file of found.files) {
      const shown = displayPath(file, options.cwd);
      const bytes = readManifestFileOnce(file, shown, gathered.diagnostics);
      if (!bytes) continue;
      if (!gatherFileOnce(shown, parseYamlFileOnce(shown, bytes), language, options, gathered, { layer, scanned: found.scanned.has(file) })) continue;
      files.push(shown);
      hash.update(shown).update('\u0000').update(bytes).update('\u0000');
    }
  }
  const diagnostics = gathered.diagnostics;
  const misplaced = checkVariableUses(gathered.references, registry, diagnostics);
  leaveOutValues(misplaced, gathered.byKind);
  const topLayer = Math.max(-1, ...gathered.policies.map((d) => d.layer));
  const policy = mergePolicies(gathered.policies.filter((d) => d.layer === topLayer), diagnostics);
  checkPruneDeclarations(policy, gathered, diagnostics);
  const layerOf: LayerOf = (record) => gathered.layerOf.get(record) ?? sharedLayers.get(record) ?? 0;
  const { identified, sharedDesired } = checkKinds(registry, gathered, diagnostics, layerOf);
  diagnostics.sort(compareDiagnostics);
  const digest = hash.digest('hex');
  if (hasErrors(diagnostics)) return { diagnostics, files, digest };
  const records = new Map<KindKey, DesiredRecord[]>();
  for (const [kind, list] of identified) {
    const secretPaths = registry.kind(kind).secretFields.map((p) => p.join('.'));
    const shared = sharedDesired.get(kind) ?? [];
    records.set(kind, [...shared, ...list.slice(shared.length).map((r) => toDesiredRecord(r, secretPaths))]);
  }
  return { desired: { files, digest, declaredKinds: gathered.declaredKinds, records, policy }, diagnostics, files, digest };
}

/** The kind of a document path and the path inside its record, if the path is inside one. */
function fieldOf(kinds: readonly KindDefinition[], path: readonly PathSegment[]): { definition: KindDefinition; inside: readonly PathSegment[] } | undefined {
  const [key, ...rest] = path;
  const definition = kinds.find((d) => d.key === key);
  if (!definition) return undefined;
  return { definition, inside: definition.shape === 'singleton' ? rest : rest.slice(1) };
}

/** Whether a document path is a secret field of some kind (`configuracoesNfse.adicionais…senha`). */
function isSecretPath(kinds: readonly KindDefinition[], path: readonly PathSegment[]): boolean {
  const field = fieldOf(kinds, path);
  return field !== undefined && field.definition.secretFields.some((secret) => secret.length === field.inside.length && secret.every((segment, i) => segment === field.inside[i]));
}

/** The variable a secret field declares for itself (NFSE_SENHA_PREFEITURA), which it reads from the environment by name. */
function fieldVariableOf(registry: Registry, path: readonly PathSegment[]): string | undefined {
  const field = fieldOf(registry.kinds, path);
  return field ? registry.unit(field.definition.key)?.secretVariables?.[field.inside.join('.')] : undefined;
}

/** The composed schema of a list of kinds, built once: interpolation asks it for field types. */
const composedSchemas = new WeakMap<readonly KindDefinition[], JsonSchema>();

function manifestSchemaOf(kinds: readonly KindDefinition[]): JsonSchema {
  let schema = composedSchemas.get(kinds);
  if (!schema) {
    schema = buildManifestSchema(kinds);
    composedSchemas.set(kinds, schema);
  }
  return schema;
}

/**
 * Which variable may go where, across the whole set: a variable that feeds a secret field (or that
 * a kind names for one, such as NFSE_SENHA_PREFEITURA), and erpsync's own credential variables,
 * may not also fill an ordinary field (a plan posted as a
 * pull-request comment would show it). So a secret value sits only in secret fields, where every
 * output leaves it out by the field (plans, drift, export), never by searching the text for it.
 */
function checkVariableUses(references: readonly VariableReference[], registry: Registry, diagnostics: Diagnostic[]): VariableReference[] {
  // The kinds' own secret variables (NFSE_SENHA_PREFEITURA, which export writes) are secret by name, used or not.
  const kindSecrets = registry.units.flatMap((unit) => Object.values(unit.secretVariables ?? {}));
  const secretNames = new Set([...references.filter((r) => r.secret).map((r) => r.name), ...kindSecrets]);
  const misplaced: VariableReference[] = [];
  for (const r of references) {
    if (r.secret) continue;
    const credential = isCredentialVariable(r.name);
    if (!credential && !secretNames.has(r.name)) continue;
    misplaced.push(r);
    // One error per reference: this rule says more than that the variable is not declared.
    const undeclared = diagnostics.findIndex((d) => d.code === 'undeclared-variable' && d.position === r.position);
    if (undeclared >= 0) diagnostics.splice(undeclared, 1);
    diagnostics.push({
      severity: 'error',
      code: credential ? 'credential-variable' : 'secret-variable-in-plain-field',
      message: credential
        ? `${r.name} holds one of erpsync's own credentials and may not fill an ordinary field`
        : `${r.name} is the variable of a secret field, so it may not also fill an ordinary field`,
      hint: 'ordinary fields show up in plans and reports; use another variable here',
      position: r.position,
      path: toPointer(r.path),
    });
  }
  return misplaced;
}

/**
 * A value made with a secret or credential variable where it may not go is left out of the
 * record before any check reads it, as a field with an error of its own is: no message quotes
 * it (an undeclared reference, a duplicate name …).
 */
function leaveOutValues(references: readonly VariableReference[], byKind: ReadonlyMap<KindKey, LocatedRecord[]>): void {
  if (references.length === 0) return;
  for (const located of [...byKind.values()].flat()) {
    const { record } = located;
    for (const r of references) {
      const inside = r.position.file === record.file && toPointer(r.path).startsWith(`${record.pointer}/`);
      if (inside) record.value = removePath(record.value, r.path.slice(parsePointer(record.pointer).length));
    }
  }
}

function describeTopLevel(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null || value === undefined) return 'nothing';
  return `a ${typeof value}`;
}

/** Whether a parsed file says it is a manifest: a `version:` key, a kind key or `policy:` at the top. */
function looksLikeManifest(documents: readonly ParsedDocument[], registry: Registry): boolean {
  const keys = new Set<string>(['version', 'policy', ...registry.kinds.map((k) => k.key)]);
  return documents.some((doc) => isPlainRecord(doc.value) && Object.keys(doc.value).some((key) => keys.has(key)));
}

interface FileContribution {
  registry: Registry;
  part: Gathered;
  read: boolean;
}

/** What the shared part of a file (split-variables) adds to a load, per parse (so per file and bytes), layer and whether it was scanned. */
const contributions = new WeakMap<ParsedFile, Map<string, FileContribution>>();
/** The layer of each record of a shared part (a part is per layer), so that no load copies them. */
const sharedLayers = new WeakMap<ManifestRecord, number>();
/** The list kinds of a registry, whose records a file may be split between (split-variables). */
const listKinds = new WeakMap<Registry, ReadonlySet<string>>();

function listKindsOf(registry: Registry): ReadonlySet<string> {
  let kinds = listKinds.get(registry);
  if (!kinds) listKinds.set(registry, (kinds = new Set(registry.kinds.filter((k) => k.shape === 'list').map((k) => k.key))));
  return kinds;
}

/**
 * Reads one file into `gathered`. The part of a file without variables gives every store of a
 * fleet the same records, diagnostics and declarations (interpolation leaves it as parsed, and the
 * schema is the registry's), so it is interpolated, validated and gathered once per parse and
 * layer, and each later load only appends it; then the load gathers the file's records with
 * variables (its tails) for its own scope. A file whose variables sit outside its records is
 * gathered whole for each load.
 */
function gatherFileOnce(shown: string, parsed: ParsedFile, language: Language, options: LoadOptions, gathered: Gathered, from: { layer: number; scanned: boolean }): boolean {
  const split = sharesAcrossLoads() ? splitAtVariables(parsed, listKindsOf(language.registry)) : undefined;
  if (!split) return gatherFile(shown, parsed, language, options, gathered, from);
  let byPlace = contributions.get(split.shared);
  if (!byPlace) contributions.set(split.shared, (byPlace = new Map()));
  const key = `${from.layer}\u0000${from.scanned}`;
  let known = byPlace.get(key);
  if (known?.registry !== language.registry) {
    const part: Gathered = { diagnostics: [], byKind: new Map(), declaredKinds: new Set(), policies: [], emptyFiles: [], references: [], layerOf: new Map(), sharedPrefix: new Map() };
    known = { registry: language.registry, part, read: gatherFile(shown, split.shared, language, options, part, from) };
    // Every store of a fleet now holds these very values: frozen, so no stage can change one store's through another's.
    for (const records of part.byKind.values()) for (const { record } of records) deepFreeze(record.value);
    for (const [record, layer] of part.layerOf) sharedLayers.set(record, layer);
    byPlace.set(key, known);
  }
  appendGathered(gathered, known.part);
  if (!known.read) return false;
  split.tails.forEach((tails, i) => {
    const doc = parsed.documents[i];
    if (tails && doc) gatherDocument(shown, doc, language, options, gathered, from.layer, tails);
  });
  return true;
}

/** Appends one file's part to a load's, in the order gathering it in place would have. */
function appendGathered(into: Gathered, part: Gathered): void {
  for (const diagnostic of part.diagnostics) into.diagnostics.push(diagnostic);
  for (const [kind, records] of part.byKind) {
    let ofKind = into.byKind.get(kind);
    if (!ofKind) into.byKind.set(kind, (ofKind = []));
    const prefix = into.sharedPrefix.get(kind) ?? { segments: [], count: 0 };
    if (prefix.count === ofKind.length) into.sharedPrefix.set(kind, { segments: [...prefix.segments, records], count: prefix.count + records.length });
    for (const record of records) ofKind.push(record);
  }
  for (const kind of part.declaredKinds) into.declaredKinds.add(kind);
  into.policies.push(...part.policies);
  into.emptyFiles.push(...part.emptyFiles);
  into.references.push(...part.references);
}

/** Reads one parsed file into `gathered`; false when a scanned file is skipped for not being a manifest. */
function gatherFile(shown: string, parsed: ParsedFile, language: Language, options: LoadOptions, gathered: Gathered, from: { layer: number; scanned: boolean }): boolean {
  const clean = parsed.diagnostics.length === 0 && parsed.documents.every((d) => d.problems.length === 0);
  // A folder may hold other YAML (CI workflows, compose files): only what looks like a manifest is read.
  if (from.scanned && clean && parsed.documents.some((d) => !d.empty) && !looksLikeManifest(parsed.documents, language.registry)) {
    gathered.diagnostics.push({
      severity: 'note',
      code: 'not-a-manifest',
      message: 'skipped: this YAML file has no `version:` or kind key, so it is not read as a manifest',
      hint: 'start a manifest with `version: 1`',
      position: { file: shown, line: 1, col: 1 },
    });
    return false;
  }
  gathered.diagnostics.push(...parsed.diagnostics);
  if (parsed.documents.length === 0 && parsed.diagnostics.length === 0) gathered.emptyFiles.push({ position: { file: shown, line: 1, col: 1 }, what: 'the file is empty' });
  for (const doc of parsed.documents) {
    gathered.diagnostics.push(...doc.problems);
    if (doc.empty) {
      gathered.emptyFiles.push({ position: doc.locate([]), what: 'the document is empty' });
      continue;
    }
    if (!isPlainRecord(doc.value)) {
      gathered.diagnostics.push({
        severity: 'error',
        code: 'not-a-mapping',
        message: `the top level must be a mapping of kinds (such as \`formasPagamentos:\`), found ${describeTopLevel(doc.value)}`,
        hint: 'start the file with `version: 1` and kind keys at the left margin',
        position: doc.locate([]),
      });
      continue;
    }
    gatherDocument(shown, doc, language, options, gathered, from.layer);
  }
  return true;
}

/**
 * Gathers a document's records; with `tails`, only those (a file's records with variables, and
 * the ones after them: see split-variables), checked in a view of them alone and reported at
 * their places in the document, so a store's load costs what its own records cost.
 */
function gatherDocument(shown: string, doc: ParsedDocument, language: Language, options: LoadOptions, gathered: Gathered, layer: number, tails?: Tails): void {
  const view = tails ? viewTails(doc, tails) : undefined;
  const { interpolated, schemaProblems } = checkDocument(view?.doc ?? doc, language, options, view?.toDocument);
  gathered.diagnostics.push(...interpolated.diagnostics);
  gathered.references.push(...interpolated.references);
  // A scalar whose variable is unset or of the wrong type, or whose tag is foreign, is reported once, there.
  const reported = new Set([...interpolated.diagnostics, ...doc.problems].filter((d) => d.severity === 'error').map((d) => d.path));
  gathered.diagnostics.push(...schemaProblems.filter((d) => !reported.has(d.path)));
  // One pass: the checks across records run on every record, those with problems of their own
  // included, on the part of it that is sound: a field with an error is left out of them (its
  // value cannot be trusted), the rest is checked. So a run reports the duplicates, defaults,
  // cycles and secrets beside the schema errors, whatever else is wrong with the same records.
  const spoiled = spoiledPaths([...schemaProblems, ...interpolated.diagnostics, ...doc.problems]);
  const variablesOf = groupByRecord(interpolated.variables, (v) => v.path);
  const interpolatedPathsOf = groupByRecord(interpolated.interpolatedPaths, (p) => p);
  if (!view && Object.keys(interpolated.value as Record<string, unknown>).every((key) => key === 'version')) {
    gathered.emptyFiles.push({ position: doc.locate([]), what: 'the document declares nothing but its version' });
  }
  for (const [key, content] of Object.entries(interpolated.value as Record<string, unknown>)) {
    if (key === 'version') continue;
    if (key === 'policy') {
      if (isPlainRecord(content) && !spoiled.at(['policy'])) gathered.policies.push({ value: soundPart(content, ['policy'], spoiled) as Record<string, unknown>, locate: doc.locate, layer });
      continue;
    }
    const definition = language.registry.kinds.find((k) => k.key === key);
    if (!definition) continue;
    gathered.declaredKinds.add(definition.key);
    if (definition.shape === 'list' && !Array.isArray(content)) continue;
    const items: [PathSegment[], unknown][] = definition.shape === 'singleton' ? [[[key], content]] : (content as unknown[]).map((item, i) => [view ? view.toDocument([key, i]) : [key, i], item]);
    for (const [recordPath, item] of items) {
      if (!isPlainRecord(item) || spoiled.at(recordPath)) continue;
      const record: ManifestRecord = {
        kind: definition.key,
        value: normalizeEnumLabels(soundPart(item, recordPath, spoiled) as Record<string, unknown>, definition.enums),
        pointer: `/${recordPath.join('/')}`,
        file: shown,
        interpolatedPaths: pathsUnder(interpolatedPathsOf(recordPath), recordPath),
      };
      gathered.layerOf.set(record, layer);
      const locate = (path: readonly PathSegment[], where?: 'key' | 'value') => doc.locate([...recordPath, ...path], where);
      const variables = new Map(
        variablesOf(recordPath)
          .filter((v) => recordPath.every((segment, i) => v.path[i] === segment))
          .map((v) => [v.path.slice(recordPath.length).join('.'), v.name] as const),
      );
      // Appended in place: copying the list per record made loading quadratic in a kind's size.
      let gatheredOfKind = gathered.byKind.get(definition.key);
      if (!gatheredOfKind) gathered.byKind.set(definition.key, (gatheredOfKind = []));
      gatheredOfKind.push({ record, locate, variables });
    }
  }
}

/**
 * Interpolates a document and checks it against the schema. A view's findings are moved to their
 * places in the document (`toDocument`), and only those inside its records are kept: the rest of
 * the document (its version, what surrounds the records) is checked where it is gathered whole.
 */
function checkDocument(doc: ParsedDocument, language: Language, options: LoadOptions, toDocument?: (path: readonly PathSegment[]) => PathSegment[]): { interpolated: InterpolationResult; schemaProblems: Diagnostic[] } {
  const { registry, schema } = language;
  const interpolated = interpolateDocument(doc, { env: options.env, ...(options.variables ? { declared: options.variables } : {}) }, {
    isSecret: (path) => isSecretPath(registry.kinds, path),
    fieldVariableAt: (path) => fieldVariableOf(registry, path),
    secretsMayStayUnset: options.offline === true,
    schemaAt: (path) => schemaAtPath(schema, path),
  });
  const schemaProblems = diagnosticsOf(language.validate, interpolated.value, doc.locate, interpolated.sources);
  if (!toDocument) return { interpolated, schemaProblems };
  const inRecords = (d: Diagnostic) => d.path !== undefined && parsePointer(d.path).length >= 2;
  const moved = (d: Diagnostic): Diagnostic => (d.path === undefined ? d : { ...d, path: toPointer(toDocument(parsePointer(d.path))) });
  return {
    interpolated: {
      ...interpolated,
      diagnostics: interpolated.diagnostics.filter(inRecords).map(moved),
      references: interpolated.references.map((r) => ({ ...r, path: toDocument(r.path) })),
      variables: interpolated.variables.map((v) => ({ ...v, path: toDocument(v.path) })),
      interpolatedPaths: interpolated.interpolatedPaths.map(toDocument),
    },
    schemaProblems: schemaProblems.filter(inRecords).map(moved),
  };
}

/** Where a document's errors make its values untrustworthy: at a path, or somewhere below it. */
interface SpoiledPaths {
  at(path: readonly PathSegment[]): boolean;
  below(path: readonly PathSegment[]): boolean;
}

/**
 * The values the errors spoil: each error's own value. A missing field spoils nothing (the
 * object is sound without it), nor does a name that is only too long (it still names its record). Every spoiled pointer's ancestors go in a set of their own, so
 * the test per value does not scan the errors.
 */
function spoiledPaths(problems: readonly Diagnostic[]): SpoiledPaths {
  const at = new Set<string>();
  const above = new Set<string>();
  for (const problem of problems) {
    if (problem.severity !== 'error' || problem.code === 'missing-field' || problem.code === 'too-long' || problem.path === undefined) continue;
    const pointer = problem.path === '/' ? '' : problem.path;
    at.add(pointer);
    for (let cut = pointer.lastIndexOf('/'); cut >= 0; cut = pointer.lastIndexOf('/', cut - 1)) {
      above.add(pointer.slice(0, cut));
      if (cut === 0) break;
    }
  }
  return { at: (path) => at.size > 0 && at.has(toPointer(path)), below: (path) => above.size > 0 && above.has(toPointer(path)) };
}

/** The value without its spoiled parts: a spoiled key is left out, a spoiled list item becomes null (the others keep their places). */
function soundPart(value: unknown, path: readonly PathSegment[], spoiled: SpoiledPaths): unknown {
  if (!spoiled.below(path)) return value;
  if (Array.isArray(value)) return value.map((item: unknown, index) => (spoiled.at([...path, index]) ? null : soundPart(item, [...path, index], spoiled)));
  if (!isPlainRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).flatMap(([key, item]) => (spoiled.at([...path, key]) ? [] : [[key, soundPart(item, [...path, key], spoiled)]])));
}

/**
 * The items of a document (variables, interpolated paths) that may lie under a record path
 * (`[kind]` or `[kind, index]`), by its first two segments; callers still test the exact prefix.
 * Looking them up per record instead of filtering all of them per record keeps loading linear
 * when a large manifest uses many variables.
 */
function groupByRecord<T>(items: readonly T[], pathOf: (item: T) => readonly PathSegment[]): (recordPath: readonly PathSegment[]) => readonly T[] {
  const byPrefix = new Map<string, T[]>();
  const keyOf = (path: readonly PathSegment[]) => path.slice(0, 2).map(String).join('\u0000');
  for (const item of items) {
    const path = pathOf(item);
    appendTo(byPrefix, keyOf(path.slice(0, 1)), item);
    if (path.length > 1) appendTo(byPrefix, keyOf(path), item);
  }
  return (recordPath) => byPrefix.get(keyOf(recordPath)) ?? [];
}

function pathsUnder(paths: readonly PathSegment[][], prefix: readonly PathSegment[]): PathSegment[][] {
  return paths.filter((p) => p.length >= prefix.length && prefix.every((segment, i) => p[i] === segment)).map((p) => p.slice(prefix.length));
}

/**
 * Pruning deletes what the manifests do not declare, so it needs the declaration to be certain:
 * a pruned kind declared nowhere is an error (a file of the set may be missing from the command
 * line), and so is an empty or comment-only file in a set that prunes (it may have been meant to
 * declare records). Without pruning, an empty file is only a warning.
 */
function checkPruneDeclarations(policy: Policy, gathered: Gathered, diagnostics: Diagnostic[]): void {
  const declaration = gathered.policies[0];
  const pruning = policy.prune.length > 0;
  for (const { position, what } of gathered.emptyFiles) {
    diagnostics.push(
      pruning
        ? {
            severity: 'error',
            code: 'empty-file',
            message: `${what}, and the manifest set prunes`,
            hint: 'pruning removes every record the set does not declare: remove the file, or declare what it was meant to hold',
            position,
          }
        : { severity: 'warning', code: 'empty-file', message: what, position },
    );
  }
  policy.prune.forEach((kind, index) => {
    if (gathered.declaredKinds.has(kind) || !declaration) return;
    diagnostics.push({
      severity: 'error',
      code: 'prune-undeclared-kind',
      message: `policy.prune names \`${kind}\`, but no manifest of this set declares it, so every one of its records would be removed`,
      hint: `declare its records (or \`${kind}: []\` to remove them all), or check that every file of the set is on the command line`,
      position: declaration.locate(['policy', 'prune', index]),
    });
  });
}

/**
 * The checks of each kind: singletons declared once, secrets, identities, the kind's own checks,
 * references. A kind whose first records are shared by a fleet's stores is checked against what
 * they give once (shared-kinds), when the load's own records cannot change that.
 */
function checkKinds(registry: Registry, gathered: Gathered, diagnostics: Diagnostic[], layerOf: LayerOf): { identified: Map<KindKey, IdentifiedRecord[]>; sharedDesired: Map<KindKey, readonly DesiredRecord[]> } {
  const { byKind } = gathered;
  const identified = new Map<KindKey, IdentifiedRecord[]>();
  const sharedDesired = new Map<KindKey, readonly DesiredRecord[]>();
  const shared = new Map<KindKey, KindChecked['shared']>();
  for (const definition of registry.kinds) {
    const all = byKind.get(definition.key) ?? [];
    const prefix = gathered.sharedPrefix.get(definition.key);
    const checked = prefix ? checkAgainstShared(definition, all, prefix, layerOf, diagnostics) : undefined;
    if (checked) {
      byKind.set(definition.key, checked.records);
      identified.set(definition.key, checked.identified);
      sharedDesired.set(definition.key, checked.desired);
      shared.set(definition.key, checked.shared);
      continue;
    }
    const records = applyOverlays(definition, all, layerOf, diagnostics);
    if (records.length > 0) byKind.set(definition.key, records);
    if (records.length === 0) continue;
    if (definition.shape === 'singleton') {
      for (const extra of records.slice(1)) {
        diagnostics.push({
          severity: 'error',
          code: 'duplicate-record',
          message: `${definition.key} is declared more than once; the first declaration is at ${records[0]?.record.file ?? '?'}`,
          hint: 'keep the settings in one file',
          position: extra.locate([]),
          path: extra.record.pointer,
        });
      }
    }
    checkSecrets(definition, records, diagnostics);
    const ofKind = identifyRecords(definition, records, diagnostics);
    identified.set(definition.key, ofKind);
    checkPinnedIds(definition, ofKind, diagnostics);
    diagnostics.push(...findingsOf(definition, records));
  }
  const declaredNames = declaredNamesOf(registry, identified, shared);
  for (const definition of registry.kinds) checkReferences(registry, definition, byKind.get(definition.key) ?? [], shared, declaredNames, diagnostics);
  return { identified, sharedDesired };
}

function mergePolicies(declarations: readonly PolicyDeclaration[], diagnostics: Diagnostic[]): Policy {
  const [first, ...rest] = declarations;
  for (const extra of rest) {
    diagnostics.push({
      severity: 'error',
      code: 'duplicate-policy',
      message: 'the policy block is declared more than once',
      hint: 'keep one `policy:` block for the whole manifest set',
      position: extra.locate(['policy'], 'key'),
    });
  }
  if (!first) return defaultPolicy;
  const value = first.value;
  // A policy with errors is read for its sound part (see soundPart): spoiled list items are null.
  const kinds = (list: unknown, fallback: readonly KindKey[]) => (Array.isArray(list) ? list.filter((k): k is KindKey => typeof k === 'string') : fallback);
  return {
    prune: kinds(value.prune, defaultPolicy.prune),
    ...(typeof value.maxDeletes === 'number' ? { maxDeletes: value.maxDeletes } : {}),
    retireInsteadOfDelete: kinds(value.retireInsteadOfDelete, defaultPolicy.retireInsteadOfDelete),
    ignore: Array.isArray(value.ignore) ? (value.ignore.filter(isPlainRecord) as unknown as Policy['ignore']) : defaultPolicy.ignore,
  };
}
