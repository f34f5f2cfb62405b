// Stage 1 of the pipeline: manifests on disk → DesiredState, or diagnostics.
// Reads files (never the network), parses YAML keeping positions, interpolates ${VARS}, validates
// against the published schema, normalizes enum labels to API codes, and runs the cross-record
// checks. Every problem becomes a diagnostic with file:line:col; nothing here throws for bad input.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Diagnostic } from '../model/diagnostics.js';
import { compareDiagnostics, hasErrors } from '../model/diagnostics.js';
import type { KindKey, ManifestRecord } from '../kinds/kind.js';
import { getKindDefinition, kindDefinitions } from '../kinds/registry.js';
import { normalizeName } from '../model/names.js';
import { checkCrossReferences, checkSecrets, identifyRecords } from './check-records.js';
import type { IdentifiedRecord, LocatedRecord } from './check-records.js';
import { normalizeEnumLabels } from './enum-labels.js';
import { displayPath, findManifestFiles } from './find-files.js';
import { interpolateDocument } from './interpolate.js';
import type { DesiredRecord, DesiredState, LoadResult, PathSegment, Policy, ToolKeys } from './model.js';
import { defaultPolicy } from './model.js';
import { parseYamlFile } from './parse-yaml.js';
import type { ParsedDocument } from './parse-yaml.js';
import { validateAgainstSchema } from './validate-schema.js';
import { isPlainRecord } from '../model/paths.js';

/** Larger files are refused before parsing: no store's configuration is this big. */
const maxFileBytes = 8 * 1024 * 1024;
const toolKeys = new Set(['id', 'ensure', 'protect', 'previousNames']);

export interface LoadOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Offline checking (validate): secret variables may be unset, with a warning. */
  offline?: boolean;
}

/** Whether a document path is a secret field of some kind (`configuracoesNfse.adicionais…senha`). */
function isSecretPath(path: readonly PathSegment[]): boolean {
  const [key, ...rest] = path;
  const definition = kindDefinitions.find((d) => d.key === key);
  if (!definition) return false;
  const inside = definition.shape === 'singleton' ? rest : rest.slice(1);
  return definition.secretFields.some((secret) => secret.length === inside.length && secret.every((segment, i) => segment === inside[i]));
}

interface PolicyDeclaration {
  value: Record<string, unknown>;
  locate: ParsedDocument['locate'];
}


function describeTopLevel(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null || value === undefined) return 'nothing';
  return `a ${typeof value}`;
}

function pathsUnder(paths: readonly PathSegment[][], prefix: readonly PathSegment[]): PathSegment[][] {
  return paths
    .filter((p) => p.length >= prefix.length && prefix.every((segment, i) => p[i] === segment))
    .map((p) => p.slice(prefix.length));
}

export async function loadManifests(paths: readonly string[], options: LoadOptions): Promise<LoadResult> {
  const found = await findManifestFiles(paths, options.cwd);
  const diagnostics: Diagnostic[] = [...found.diagnostics];
  const hash = createHash('sha256');
  const byKind = new Map<KindKey, LocatedRecord[]>();
  const declaredKinds = new Set<KindKey>();
  const policies: PolicyDeclaration[] = [];
  const displayed = found.files.map((f) => displayPath(f, options.cwd));

  for (const [index, file] of found.files.entries()) {
    const shown = displayed[index] ?? file;
    const at = { file: shown, line: 1, col: 1 };
    let bytes: Uint8Array;
    try {
      bytes = await readFile(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      diagnostics.push({
        severity: 'error',
        code: 'unreadable',
        message: code === 'EISDIR' ? 'this is a directory, not a file' : `cannot read the file (${code ?? 'unknown error'})`,
        position: at,
      });
      continue;
    }
    hash.update(shown).update('\u0000').update(bytes).update('\u0000');
    if (bytes.byteLength > maxFileBytes) {
      diagnostics.push({ severity: 'error', code: 'file-too-large', message: `the file is larger than ${maxFileBytes / 1024 / 1024} MiB`, position: at });
      continue;
    }
    const parsed = parseYamlFile(shown, bytes);
    diagnostics.push(...parsed.diagnostics);
    if (parsed.documents.length === 0 && parsed.diagnostics.length === 0) {
      diagnostics.push({ severity: 'warning', code: 'empty-file', message: 'the file is empty', position: at });
    }

    for (const doc of parsed.documents) {
      if (doc.empty) {
        diagnostics.push({ severity: 'warning', code: 'empty-file', message: 'the document is empty', position: doc.locate([]) });
        continue;
      }
      if (!isPlainRecord(doc.value)) {
        diagnostics.push({
          severity: 'error',
          code: 'not-a-mapping',
          message: `the top level must be a mapping of kinds (such as \`formasPagamentos:\`), found ${describeTopLevel(doc.value)}`,
          hint: 'start the file with `version: 1` and kind keys at the left margin',
          position: doc.locate([]),
        });
        continue;
      }
      const interpolated = interpolateDocument(doc, options.env, { isSecret: isSecretPath, secretsMayStayUnset: options.offline === true });
      diagnostics.push(...interpolated.diagnostics);
      const schemaProblems = validateAgainstSchema(interpolated.value, doc.locate);
      diagnostics.push(...schemaProblems);
      if (schemaProblems.length > 0 || hasErrors(interpolated.diagnostics)) continue;

      const value = interpolated.value as Record<string, unknown>;
      for (const [key, content] of Object.entries(value)) {
        if (key === 'version') continue;
        if (key === 'policy') {
          policies.push({ value: content as Record<string, unknown>, locate: doc.locate });
          continue;
        }
        const definition = getKindDefinition(key as KindKey);
        declaredKinds.add(definition.key);
        const items: [PathSegment[], unknown][] =
          definition.shape === 'singleton' ? [[[key], content]] : (content as unknown[]).map((item, i) => [[key, i], item]);
        for (const [recordPath, item] of items) {
          const record: ManifestRecord = {
            kind: definition.key,
            value: normalizeEnumLabels(item as Record<string, unknown>, definition.enums),
            pointer: `/${recordPath.join('/')}`,
            file: shown,
            interpolatedPaths: pathsUnder(interpolated.interpolatedPaths, recordPath),
          };
          const locate = (path: readonly PathSegment[], where?: 'key' | 'value') => doc.locate([...recordPath, ...path], where);
          const variables = new Map(
            interpolated.variables
              .filter((v) => recordPath.every((segment, i) => v.path[i] === segment))
              .map((v) => [v.path.slice(recordPath.length).join('.'), v.name] as const),
          );
          byKind.set(definition.key, [...(byKind.get(definition.key) ?? []), { record, locate, variables }]);
        }
      }
    }
  }

  const policy = mergePolicies(policies, diagnostics);
  const secretPaths = new Map<KindKey, string[]>();
  const identified = new Map<KindKey, IdentifiedRecord[]>();
  for (const definition of kindDefinitions) {
    const records = byKind.get(definition.key) ?? [];
    if (records.length === 0) continue;
    if (definition.shape === 'singleton' && records.length > 1) {
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
    identified.set(definition.key, identifyRecords(definition, records, diagnostics));
    secretPaths.set(definition.key, definition.secretFields.map((p) => p.join('.')));
    for (const finding of definition.checkRecords?.(records.map((r) => r.record)) ?? []) {
      const located = records.find((r) => r.record === finding.record);
      diagnostics.push({
        severity: finding.severity,
        code: finding.code,
        message: finding.message,
        ...(finding.hint ? { hint: finding.hint } : {}),
        position: located ? located.locate(finding.path ?? []) : { file: finding.record.file, line: 1, col: 1 },
        path: `${finding.record.pointer}${finding.path?.length ? `/${finding.path.join('/')}` : ''}`,
      });
    }
  }
  const declaredNames = (kind: KindKey, scope: string | undefined): ReadonlySet<string> => {
    const definition = getKindDefinition(kind);
    return new Set(
      (identified.get(kind) ?? [])
        .filter((r) => !definition.scopeField || scope === undefined || normalizeName(String(r.record.value[definition.scopeField] ?? '')) === scope)
        .map((r) => r.name),
    );
  };
  for (const definition of kindDefinitions) {
    checkCrossReferences(definition, byKind.get(definition.key) ?? [], declaredNames, diagnostics);
  }

  diagnostics.sort(compareDiagnostics);
  const files = displayed;
  if (hasErrors(diagnostics)) return { diagnostics, files };

  const records = new Map<KindKey, DesiredRecord[]>();
  for (const [kind, list] of identified) {
    records.set(kind, list.map((r) => toDesiredRecord(r, secretPaths.get(kind) ?? [])));
  }
  const desired: DesiredState = { files, digest: hash.digest('hex'), declaredKinds, records, policy };
  return { desired, diagnostics, files };
}

function toDesiredRecord(r: IdentifiedRecord, secretPaths: readonly string[]): DesiredRecord {
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
  return {
    prune: (value.prune as KindKey[] | undefined) ?? defaultPolicy.prune,
    maxDeletes: (value.maxDeletes as number | undefined) ?? defaultPolicy.maxDeletes,
    retireInsteadOfDelete: (value.retireInsteadOfDelete as KindKey[] | undefined) ?? defaultPolicy.retireInsteadOfDelete,
    ignore: (value.ignore as Policy['ignore'] | undefined) ?? defaultPolicy.ignore,
  };
}
