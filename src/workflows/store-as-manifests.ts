// A store read as manifests, in memory: what `compare` and `plan --from-target` compare another
// account (or a folder) with. The account is read whole, exported in the manifest language
// (src/export, the same files `erpsync export` writes) and loaded back through the loader, so the
// comparison afterwards is exactly the one plan and drift make: records by identity, fields by
// meaning, the account's own default records left out as export leaves them. The files live in a
// private temporary folder only for the length of the load; nothing is written where the user works.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isMap, isScalar, isSeq, parseDocument, visit } from 'yaml';
import { buildExport } from '../export/build-export.js';
import type { ExportedKind } from '../export/build-export.js';
import { secretVariableOf } from '../export/manifest-record.js';
import { registry } from '../kinds/registry.js';
import { fetchLive } from '../live/fetch-live.js';
import { loadManifests } from '../manifest/load-manifests.js';
import type { DesiredState } from '../model/desired.js';
import type { Diagnostic } from '../model/diagnostics.js';
import type { LiveState } from '../model/live.js';
import { readPath } from '../model/paths.js';
import type { ResolvedTarget } from '../api/index.js';
import type { OpenedTarget } from './open-target.js';
import { openResolvedTarget, readTargetVariables, readVariableScope } from './open-target.js';
import type { VariableScope } from '../model/variables.js';
import type { LoadedManifests } from './read-and-plan.js';
import type { RunIO } from './run-io.js';

export interface StoreAsManifests {
  /** Absent when the exported files did not load (the diagnostics say why). */
  desired?: DesiredState;
  diagnostics: Diagnostic[];
  live: LiveState;
  files: ExportedKind[];
}

export interface StoreExportOptions {
  /**
   * Where the secrets' `${VAR}` placeholders get their values: `account` — the store's own (a
   * comparison of two stores compares their secrets too, never showing them); `variables` — the
   * environment given (a template copied to another store takes that store's secrets).
   */
  secrets: 'account' | 'variables';
  /** The variables the manifests are loaded with. */
  scope: VariableScope;
  /**
   * The source store's own variables (its config `variables` and env file): a value of the store
   * equal to one of them is written as that `${VAR}`, so it takes the other store's value.
   */
  templateVariables?: Readonly<Record<string, string>>;
}

/** Every unit kind of the registry, every record, every field: what export reads. */
export async function readWholeAccount(opened: OpenedTarget): Promise<LiveState> {
  return fetchLive(opened.client, registry.units, { kinds: registry.units.map((u) => u.kind), desired: new Map(), complete: () => true, everyField: true });
}

/** The account's records in the manifest language, one file per kind (export's files). */
export function exportAccount(live: LiveState, source: string): ExportedKind[] {
  return buildExport(live, registry.units, { kinds: registry.kinds.map((k) => k.key), schemaRef: 'manifest.schema.json', source });
}

export async function readStoreAsManifests(opened: OpenedTarget, options: StoreExportOptions): Promise<StoreAsManifests> {
  const live = await readWholeAccount(opened);
  const files = exportAccount(live, `target ${opened.target.name}`);
  // The account's own secret values stand in for the secret fields' variables, as the environment would.
  const scope = options.secrets === 'account' ? { ...options.scope, env: { ...options.scope.env, ...secretValuesOf(live) } } : options.scope;
  const texts = files.map((file) => ({ name: file.file, text: rewriteExported(file.text, options.templateVariables ?? {}) }));
  const loaded = await loadTexts(texts, scope);
  return { ...loaded, live, files };
}

/** Loads manifest texts as the loader loads files (positions, checks, interpolation), from a private folder. */
export async function loadTexts(texts: readonly { name: string; text: string }[], scope: VariableScope): Promise<{ desired?: DesiredState; diagnostics: Diagnostic[] }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'erpsync-store-'));
  try {
    for (const { name, text } of texts) await writeFile(path.join(dir, name), text, { mode: 0o600 });
    const result = await loadManifests(['.'], { cwd: dir, env: scope.env, ...(scope.declared ? { variables: scope.declared } : {}), registry });
    return { ...(result.desired ? { desired: result.desired } : {}), diagnostics: result.diagnostics.filter((d) => d.severity !== 'note') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The variables export names for the store's secrets, with the store's own values. */
function secretValuesOf(live: LiveState): Record<string, string> {
  const values: Record<string, string> = {};
  for (const adapter of registry.units) {
    for (const secret of adapter.definition?.secretFields ?? []) {
      for (const record of live.records.get(adapter.kind) ?? []) {
        const value = readPath(record.fields, secret);
        if (typeof value === 'string' && value !== '') values[secretVariableOf(adapter, secret)] = value;
      }
    }
  }
  return values;
}

/**
 * Two changes to an exported file before it stands for the store elsewhere: an id pin is dropped
 * (records are matched by name in another account, never by this account's ids), and a value
 * equal to one of the template's variables becomes that `${VAR}`.
 */
export function rewriteExported(text: string, variables: Readonly<Record<string, string>>): string {
  const doc = parseDocument(text);
  const byValue = new Map(
    Object.entries(variables)
      .filter(([, value]) => value.trim().length > 1)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, value]) => [value, name] as const)
      .reverse(),
  );
  // A record list sits right under the root map: `kind: [records]`.
  if (isMap(doc.contents)) {
    for (const pair of doc.contents.items) if (isSeq(pair.value)) for (const item of pair.value.items) if (isMap(item)) item.delete('id');
  }
  visit(doc, {
    Pair(_key, pair) {
      if (!isScalar(pair.value) || typeof pair.value.value !== 'string') return;
      const name = byValue.get(pair.value.value);
      if (name !== undefined) pair.value.value = `\${${name}}`;
    },
  });
  return doc.toString({ lineWidth: 0 });
}

/**
 * A template store as the manifests of another (`plan --from-target`): read and exported in
 * memory, its own variables' values written back as `${VAR}`, then loaded with the other store's
 * variables (its secrets included), as its own manifests would be.
 */
export async function loadTemplate(from: ResolvedTarget, to: ResolvedTarget, io: RunIO, debug: boolean): Promise<LoadedManifests> {
  const opened = await openResolvedTarget(from, { debug }, io);
  try {
    const templateVariables = await readOwnVariables(from, io);
    const read = await readStoreAsManifests(opened, { secrets: 'variables', scope: await readVariableScope(to, io), templateVariables });
    return { ...(read.desired ? { desired: read.desired } : {}), diagnostics: read.diagnostics, files: [] };
  } finally {
    await opened.close();
  }
}

/** A target's own variables (its config `variables` and env file), without the environment. */
export async function readOwnVariables(target: ResolvedTarget, io: RunIO): Promise<Record<string, string>> {
  const own = await readTargetVariables(target, { cwd: io.cwd });
  return Object.fromEntries(Object.entries(own).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
