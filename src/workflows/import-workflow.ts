// `erpsync import`: brings an existing store in as a base + its overlay. For each store: load the
// base with the store's variables, read the whole account, compare with drift's comparison (plan's),
// and write what differs as the target's overlay — the last layer of its `manifests` (a file, or
// `overlay.yaml` in a folder). A file whose text would not change is not touched, so a re-run on
// an unchanged store writes nothing. The pure part is drift/build-overlay; this file reads and writes.
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ResolvedTarget } from '../api/index.js';
import { buildOverlay } from '../drift/build-overlay.js';
import type { OverlaySize } from '../drift/build-overlay.js';
import { findDrift } from '../drift/find-drift.js';
import { registry } from '../kinds/registry.js';
import { displayPath, findManifestFiles } from '../manifest/find-files.js';
import { loadManifests } from '../manifest/load-manifests.js';
import type { AccountIdentity } from '../model/account.js';
import type { DesiredState } from '../model/desired.js';
import type { Diagnostic } from '../model/diagnostics.js';
import { hasErrors } from '../model/diagnostics.js';
import { ErpsyncError } from '../model/errors.js';
import type { LiveState } from '../model/live.js';
import { writeFileAtomically } from '../model/write-file-atomically.js';
import type { OpenedTarget } from '../target/open-target.js';
import { openResolvedTarget, readVariableScope } from '../target/open-target.js';
import { planTargetOf, readToday } from './read-and-plan.js';
import type { RunIO } from '../model/run-io.js';
import { readWholeAccount } from './store-as-manifests.js';
import { scheduleFleet } from './fleet-workflow.js';

/** The published manifest schema inside this installation of erpsync. */
const bundledSchema = fileURLToPath(new URL('../../schemas/manifest.schema.json', import.meta.url));

export interface ImportedStore {
  target: string;
  account?: AccountIdentity;
  /** The overlay file, as shown to the user. */
  overlay?: string;
  /** Whether the file was written (false: its text would not have changed). */
  written: boolean;
  size?: OverlaySize;
  /** Errors mean the base did not load for this store. */
  diagnostics: Diagnostic[];
  error?: string;
}

/** Where a store's base and overlay are, from its target's layers and the --base flag. */
export interface StoreLayers {
  base: string[];
  overlayFile: string;
}

export function layersOf(target: Pick<ResolvedTarget, 'name' | 'manifests'>, baseFlag: string | undefined, cwd: string): StoreLayers {
  const layers = target.manifests ?? [];
  const overlay = layers.at(-1);
  const base = baseFlag !== undefined ? [path.resolve(cwd, baseFlag)] : layers.slice(0, -1);
  if (overlay === undefined || base.length === 0 || base.includes(overlay)) {
    throw new ErpsyncError('CONFIG', `target ${target.name} has no overlay to import into: its \`manifests\` in erpsync.config.yaml must end with a layer of its own`, {
      details: [`e.g. manifests: [base, overlays/${target.name}] — import writes the last layer (a .yaml file, or overlay.yaml in a folder)`],
    });
  }
  return { base, overlayFile: /\.ya?ml$/i.test(overlay) ? overlay : path.join(overlay, 'overlay.yaml') };
}

/** An overlay folder must hold only the overlay: another manifest there would be layered over it. */
async function refuseOtherOverlayFiles(target: string, overlayFile: string, cwd: string): Promise<void> {
  const folder = path.dirname(overlayFile);
  if (!existsSync(folder)) return;
  const found = await findManifestFiles([folder], cwd);
  const others = found.files.filter((file) => path.resolve(file) !== path.resolve(overlayFile) && /\.ya?ml$/i.test(file));
  if (others.length === 0) return;
  throw new ErpsyncError('CONFIG', `the overlay folder of target ${target} holds other files than ${displayPath(overlayFile, cwd)}: import writes the whole overlay`, {
    details: [...others.map((file) => `${displayPath(file, cwd)}: move it into the base, or remove it`)],
  });
}

export async function loadBase(base: readonly string[], target: ResolvedTarget, io: RunIO): Promise<{ desired?: DesiredState; diagnostics: Diagnostic[] }> {
  const scope = await readVariableScope(target, io);
  const loaded = await loadManifests(base, { cwd: io.cwd, env: scope.env, ...(scope.declared ? { variables: scope.declared } : {}), registry, layers: true });
  return { ...(loaded.desired ? { desired: loaded.desired } : {}), diagnostics: loaded.diagnostics.filter((d) => d.severity !== 'note') };
}

/** The base's files as written, for the `${VAR}` references an overlay keeps. */
export async function readBaseTexts(desired: DesiredState, cwd: string): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const file of desired.files) texts.set(file, await readFile(path.resolve(cwd, file), 'utf8'));
  return texts;
}

/** A store's overlay against a base, as text and size (nothing written). */
export async function computeOverlay(opened: Pick<OpenedTarget, 'target' | 'account'>, live: LiveState, base: { desired: DesiredState; texts: ReadonlyMap<string, string> }, overlayFile: string, io: RunIO): Promise<{ text: string; size: OverlaySize; diagnostics: Diagnostic[] }> {
  // Every kind counts as declared, so what the store has in a kind the base leaves out is found too.
  const everyKind: DesiredState = { ...base.desired, declaredKinds: new Set(registry.kinds.map((k) => k.key)) };
  const found = findDrift({ desired: everyKind, live, adapters: registry.units, target: planTargetOf(opened), includeBuiltin: false, today: readToday(io.env) });
  const diagnostics = found.diagnostics.filter((d) => d.severity !== 'note');
  if (hasErrors(diagnostics)) return { text: '', size: { added: 0, changed: 0, absent: 0, total: 0 }, diagnostics };
  const schemaRef = path.relative(path.dirname(overlayFile), bundledSchema).split(path.sep).join('/');
  const files = base.desired.files;
  const baseShown = files.length === 1 ? files[0] : `${files.length} files`;
  const header = (size: OverlaySize) => [
    `Overlay of target ${opened.target.name}, written by \`erpsync import\`: what its account holds beyond the base (${baseShown}).`,
    `${size.added} added, ${size.changed} changed (written whole: an overlay's record replaces the base's), ${size.absent} the store lacks (ensure: absent).`,
  ];
  const overlay = buildOverlay({ base: base.desired, live, report: found.report, matching: found.matching, adapters: registry.units, baseTexts: base.texts, schemaRef, header });
  return { ...overlay, diagnostics };
}

export async function importStore(target: ResolvedTarget, baseFlag: string | undefined, io: RunIO, debug: boolean): Promise<ImportedStore> {
  const layers = layersOf(target, baseFlag, io.cwd);
  await refuseOtherOverlayFiles(target.name, layers.overlayFile, io.cwd);
  const base = await loadBase(layers.base, target, io);
  if (!base.desired) return { target: target.name, written: false, diagnostics: base.diagnostics };
  const opened = await openResolvedTarget(target, { debug }, io);
  try {
    const live = await readWholeAccount(opened);
    const overlay = await computeOverlay(opened, live, { desired: base.desired, texts: await readBaseTexts(base.desired, io.cwd) }, layers.overlayFile, io);
    const shown = displayPath(layers.overlayFile, io.cwd);
    const facts = { target: target.name, account: opened.account, overlay: shown, diagnostics: [...base.diagnostics, ...overlay.diagnostics] };
    if (hasErrors(overlay.diagnostics)) return { ...facts, written: false };
    const before = await readFile(layers.overlayFile, 'utf8').catch(() => undefined);
    if (before === overlay.text) return { ...facts, written: false, size: overlay.size };
    await mkdir(path.dirname(layers.overlayFile), { recursive: true });
    await writeFileAtomically(layers.overlayFile, overlay.text);
    return { ...facts, written: true, size: overlay.size };
  } finally {
    await opened.close();
  }
}

/** Every store through the fleet's scheduler (its budget-derived width; `cap`, --parallel, only lowers it); a store that fails is reported and the others go on. Results in the names' order. */
export async function importStores(
  names: readonly string[],
  resolve: (name: string) => Promise<ResolvedTarget>,
  options: { baseFlag: string | undefined; debug: boolean; cap: number | undefined },
  io: RunIO,
  onStore?: (store: ImportedStore) => void,
): Promise<ImportedStore[]> {
  const importOne = async (target: Promise<ResolvedTarget>, name: string): Promise<ImportedStore> => {
    try {
      return await importStore(await target, options.baseFlag, io, options.debug);
    } catch (error) {
      if (!(error instanceof ErpsyncError)) throw error;
      return { target: name, written: false, diagnostics: [], error: [error.message, ...error.details].join('; ') };
    }
  };
  return scheduleFleet(names, resolve, options.cap, importOne, onStore ? (store) => onStore(store) : undefined);
}
