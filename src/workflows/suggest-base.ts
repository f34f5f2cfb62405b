// `erpsync import --suggest-base DIR --min-share X`: proposes the base of a fleet. Every store is read
// and exported in the manifest language, each value equal to one of the store's own variables
// written as that `${VAR}` (so a per-store value agrees across stores). A record goes into the base
// when at least X of the stores have it, in the form most of them hold (an overlay replaces a record
// whole, so the base holds one whole form). Each store's overlay is then measured against the
// proposal and against the current base, with the comparison import writes overlays by. Writes
// only the proposed base's files (a file whose text would not change is not touched).
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import type { ResolvedTarget } from '../api/index.js';
import { identityKeys } from '../drift/build-overlay.js';
import type { OverlaySize } from '../drift/build-overlay.js';
import { compareIdentities } from '../export/manifest-record.js';
import { exportFileName } from '../export/build-export.js';
import { renderKindFile } from '../export/render-yaml.js';
import { registry } from '../kinds/registry.js';
import type { KindDefinition } from '../kinds/kind.js';
import type { AccountIdentity } from '../model/account.js';
import type { Diagnostic } from '../model/diagnostics.js';
import { ErpsyncError } from '../model/errors.js';
import type { LiveState } from '../model/live.js';
import { isPlainRecord } from '../model/paths.js';
import { writeFileAtomically } from '../model/write-file-atomically.js';
import { computeOverlay, layersOf, loadBase, readBaseTexts } from './import-workflow.js';
import { openResolvedTarget, readVariableScope } from '../target/open-target.js';
import type { RunIO } from '../model/run-io.js';
import { scheduleFleet } from './fleet-workflow.js';
import { exportAccount, loadTexts, readOwnVariables, readWholeAccount, rewriteExported } from './store-as-manifests.js';

const bundledSchema = fileURLToPath(new URL('../../schemas/manifest.schema.json', import.meta.url));

export interface SuggestedStore {
  target: string;
  account?: AccountIdentity;
  /** The overlay's size with the proposed base. */
  size?: OverlaySize;
  /** The overlay's size with the target's current base (absent when it has none, or it does not load). */
  current?: OverlaySize;
  diagnostics: Diagnostic[];
  error?: string;
}

export interface SuggestedBase {
  /** The files of the proposal, as shown to the user, and whether each was written. */
  files: { file: string; records: number; written: boolean }[];
  stores: SuggestedStore[];
}

interface ReadStore {
  target: ResolvedTarget;
  account: AccountIdentity;
  live: LiveState;
  /** The store's records per manifest kind, in the manifest language, its own values as `${VAR}`. */
  records: Map<string, Record<string, unknown>[]>;
}

export async function suggestBase(names: readonly string[], resolve: (name: string) => Promise<ResolvedTarget>, options: { dir: string; minShare: number; baseFlag: string | undefined; debug: boolean; cap: number | undefined }, io: RunIO): Promise<SuggestedBase> {
  if (names.length === 0) throw new ErpsyncError('USAGE', '--suggest-base needs the stores to compare: --all-targets, or --target with names or globs');
  // Read through the fleet's scheduler, as wide as the request budget keeps busy.
  const stores = await scheduleFleet(names, resolve, options.cap, async (target) => readStore(await target, io, options.debug));
  const dir = path.resolve(io.cwd, options.dir);
  const texts = proposeFiles(stores, options.minShare, path.relative(dir, bundledSchema).split(path.sep).join('/'));
  const files: SuggestedBase['files'] = [];
  await mkdir(dir, { recursive: true });
  for (const { name, text, records } of texts) {
    const file = path.join(dir, name);
    const before = await readFile(file, 'utf8').catch(() => undefined);
    if (before !== text) await writeFileAtomically(file, text);
    files.push({ file: path.relative(io.cwd, file) || name, records, written: before !== text });
  }
  const measured: SuggestedStore[] = [];
  for (const store of stores) measured.push(await measureStore(store, texts, options.baseFlag, io));
  return { files, stores: measured };
}

async function readStore(target: ResolvedTarget, io: RunIO, debug: boolean): Promise<ReadStore> {
  const opened = await openResolvedTarget(target, { debug }, io);
  try {
    const live = await readWholeAccount(opened);
    const own = await readOwnVariables(target, io);
    const records = new Map<string, Record<string, unknown>[]>();
    for (const file of exportAccount(live, `target ${target.name}`)) {
      const value: unknown = parseDocument(rewriteExported(file.text, own)).toJS();
      const body = isPlainRecord(value) ? value[file.kind] : undefined;
      records.set(file.kind, (Array.isArray(body) ? body : isPlainRecord(body) ? [body] : []).filter(isPlainRecord));
    }
    return { target, account: opened.account, live, records };
  } finally {
    await opened.close();
  }
}

/** The record's identity as a key, from the fields that name it. */
function identityOf(definition: KindDefinition, value: Record<string, unknown>): string {
  if (definition.shape === 'singleton') return definition.key;
  return JSON.stringify(identityKeys(definition, value).map((key) => [key, value[key]]));
}

/** A record's sort name: its parent path and name, as people read them. */
function sortName(definition: KindDefinition, value: Record<string, unknown>): string {
  return identityKeys(definition, value)
    .map((key) => String(value[key] ?? ''))
    .join(' > ');
}

/** The proposal, one file per kind: the records at least `minShare` of the stores have, each in its most common form. */
function proposeFiles(stores: readonly ReadStore[], minShare: number, schemaRef: string): { name: string; text: string; records: number }[] {
  const needed = Math.ceil(minShare * stores.length - 1e-9);
  return registry.kinds.flatMap((definition) => {
    const forms = new Map<string, Map<string, { value: Record<string, unknown>; count: number }>>();
    for (const store of stores) {
      for (const value of store.records.get(definition.key) ?? []) {
        const identity = identityOf(definition, value);
        let byForm = forms.get(identity);
        if (!byForm) forms.set(identity, (byForm = new Map()));
        const form = JSON.stringify(value);
        const known = byForm.get(form);
        if (known) known.count += 1;
        else byForm.set(form, { value, count: 1 });
      }
    }
    const chosen = [...forms.values()]
      .filter((byForm) => [...byForm.values()].reduce((sum, f) => sum + f.count, 0) >= needed)
      .map((byForm) => [...byForm.entries()].sort(([a, x], [b, y]) => y.count - x.count || (a < b ? -1 : a > b ? 1 : 0))[0]?.[1].value)
      .filter((value): value is Record<string, unknown> => value !== undefined)
      .sort((a, b) => compareIdentities(sortName(definition, a), sortName(definition, b)));
    if (chosen.length === 0) return [];
    const header = [`${definition.title} most stores share, proposed by \`erpsync import --suggest-base\`:`, `each record is held by at least ${Math.round(minShare * 100)}% of ${stores.length} stores, in the form most of them hold.`];
    const text = renderKindFile({ kind: definition.key, shape: definition.shape, entries: chosen.map((value) => ({ value, notes: [] })), schemaRef, header });
    return [{ name: exportFileName(definition.key), text, records: chosen.length }];
  });
}

/** A store's overlay size with the proposal, and with its current base. */
async function measureStore(store: ReadStore, texts: readonly { name: string; text: string }[], baseFlag: string | undefined, io: RunIO): Promise<SuggestedStore> {
  const facts = { target: store.target.name, account: store.account };
  const opened = { target: store.target, account: store.account };
  const proposal = await loadTexts(texts, await readVariableScope(store.target, io));
  if (!proposal.desired) return { ...facts, diagnostics: proposal.diagnostics, error: 'the proposed base does not load with this store\'s variables' };
  let layers;
  try {
    layers = layersOf(store.target, baseFlag, io.cwd);
  } catch {
    layers = undefined;
  }
  const overlayFile = layers?.overlayFile ?? path.join(io.cwd, 'overlay.yaml');
  const suggested = await computeOverlay(opened, store.live, { desired: proposal.desired, texts: new Map(texts.map((t) => [t.name, t.text])) }, overlayFile, io);
  const current = layers ? await loadBase(layers.base, store.target, io) : undefined;
  const measuredCurrent = current?.desired ? await computeOverlay(opened, store.live, { desired: current.desired, texts: await readBaseTexts(current.desired, io.cwd) }, overlayFile, io) : undefined;
  return { ...facts, size: suggested.size, ...(measuredCurrent ? { current: measuredCurrent.size } : {}), diagnostics: suggested.diagnostics };
}
