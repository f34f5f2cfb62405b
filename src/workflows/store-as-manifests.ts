// A store read as manifests, in memory: what `compare` and `plan --from-target` compare another
// account (or a folder) with. The account is read whole, exported in the manifest language
// (src/export, the same files `erpsync export` writes) and loaded back through the loader, so the
// comparison afterwards is exactly the one plan and drift make: records by identity, fields by
// meaning, the account's own default records left out as export leaves them. The files live in a
// private temporary folder only for the length of the load; nothing is written where the user works.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isMap, isSeq, parseDocument, visit } from 'yaml';
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
import type { OpenedTarget } from '../target/open-target.js';
import { openResolvedTarget, readTargetVariables, readVariableScope } from '../target/open-target.js';
import type { VariableScope } from '../model/variables.js';
import type { LoadedManifests } from './read-and-plan.js';
import type { RunIO } from '../model/run-io.js';

export interface StoreAsManifests {
  /** Absent when the exported files did not load (the diagnostics say why). */
  desired?: DesiredState;
  diagnostics: Diagnostic[];
  live: LiveState;
  files: ExportedKind[];
}

/** Every unit kind of the registry, every record, every field: what export reads. */
export async function readWholeAccount(opened: OpenedTarget): Promise<LiveState> {
  return fetchLive(opened.client, registry.units, { kinds: registry.units.map((u) => u.kind), desired: new Map(), complete: () => true, everyField: true });
}

/** The account's records in the manifest language, one file per kind (export's files). */
export function exportAccount(live: LiveState, source: string): ExportedKind[] {
  return buildExport(live, registry.units, { kinds: registry.kinds.map((k) => k.key), schemaRef: 'manifest.schema.json', source });
}

/**
 * The store as manifests loaded with `scope`, the account's own secret values standing in for the
 * secret fields' variables (a comparison of two stores compares their secrets too, never showing them).
 */
export async function readStoreAsManifests(opened: OpenedTarget, scope: VariableScope): Promise<StoreAsManifests> {
  const live = await readWholeAccount(opened);
  const files = exportAccount(live, `target ${opened.target.name}`);
  const withSecrets = { ...scope, env: { ...scope.env, ...secretValuesOf(live) } };
  const texts = files.map((file) => ({ name: file.file, text: rewriteExported(file.text, {}) }));
  const loaded = await loadTexts(texts, withSecrets);
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
  // Every value, list items included (an option, a service's alias); never a key.
  visit(doc, {
    Scalar(key, node) {
      if (key === 'key' || typeof node.value !== 'string') return;
      const name = byValue.get(node.value);
      if (name !== undefined) node.value = `\${${name}}`;
    },
  });
  return doc.toString({ lineWidth: 0 });
}

/** A template store (`--from-target`) as the manifests of other stores: read and exported once per run, however many stores it is copied to. */
export interface TemplateSource {
  type: 'template';
  from: ResolvedTarget;
  /** The template's manifest texts, its own variables' values written back as `${VAR}`. */
  read(): Promise<{ name: string; text: string }[]>;
}

export function templateSourceOf(from: ResolvedTarget, io: RunIO, debug: boolean): TemplateSource {
  let texts: Promise<{ name: string; text: string }[]> | undefined;
  return { type: 'template', from, read: () => (texts ??= readTemplateTexts(from, io, debug)) };
}

async function readTemplateTexts(from: ResolvedTarget, io: RunIO, debug: boolean): Promise<{ name: string; text: string }[]> {
  const opened = await openResolvedTarget(from, { debug }, io);
  try {
    const live = await readWholeAccount(opened);
    const templateVariables = await readOwnVariables(from, io);
    return exportAccount(live, `target ${from.name}`).map((file) => ({ name: file.file, text: rewriteExported(file.text, templateVariables) }));
  } finally {
    await opened.close();
  }
}

/** The template loaded with the destination store's variables (its secrets included), as its own manifests would be. */
export async function loadTemplate(source: TemplateSource, to: ResolvedTarget, io: RunIO): Promise<LoadedManifests> {
  const loaded = await loadTexts(await source.read(), await readVariableScope(to, io));
  return { ...loaded, files: [] };
}

/** A target's own variables (its config `variables` and env file), without the environment. */
export async function readOwnVariables(target: ResolvedTarget, io: RunIO): Promise<Record<string, string>> {
  const own = await readTargetVariables(target, { cwd: io.cwd });
  return Object.fromEntries(Object.entries(own).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
