// Saved plans on disk: one store's plan file (`plan --out plan.json`), and a fleet's folder of them
// (`plan --all-targets --out DIR`): one checked plan per store beside an index that names each
// store, its account, its counts and the digest of its file. `apply DIR` reads the index and applies
// each store's plan as `apply plan.json` would, so a file changed after planning is refused for
// its store alone. A saved plan records where it was made (PlanOrigin: the manifest paths, their
// git commit, or the template store); apply refuses plans whose manifests changed in the checkout
// since, before any request, and journals the commit.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { ErpsyncError } from '../model/errors.js';
import type { AccountIdentity } from '../model/account.js';
import { isPlainRecord } from '../model/paths.js';
import type { Plan, PlanOrigin } from '../model/plan.js';
import { actionableChanges, countsAgainstBudget } from '../model/plan.js';
import type { ResolvedTarget } from '../api/index.js';
import type { RunIO } from '../model/run-io.js';
import type { RevisionReader } from './git-revision.js';
import { loadDesired, manifestPathsOf } from './read-and-plan.js';
import type { StoreSource } from './store-workflow.js';
import { parsePlanFile, serializePlan } from '../plan/plan-file.js';
import type { SecretReader } from '../plan/plan-file.js';
import { registry } from '../kinds/registry.js';
import { readVariable } from '../model/variables.js';
import type { VariableScope } from '../model/variables.js';
import { makeDirectory, writeFileAtomically } from '../model/write-file-atomically.js';

export const fleetIndexFile = 'index.json';
const indexKind = 'erpsync-fleet-plans';

/** A saved plan's secrets are read as the manifests read them (model/variables): never from another variable. */
function secretReaderOf(scope: VariableScope): SecretReader {
  return (variable, kind, field) => readVariable(scope, variable, registry.unit(kind)?.secretVariables?.[field]);
}

export async function readSavedPlan(file: string, shown: string, scope: VariableScope): Promise<Plan> {
  const text = await readFile(file, 'utf8').catch((error: unknown) => {
    throw new ErpsyncError('FILE_UNREADABLE', `cannot read ${shown}`, { cause: error });
  });
  return parsePlanFile(text, shown, secretReaderOf(scope));
}

/** Writes one plan (mode 0600: it names the account), creating its folder; no folder below `within` may be a link. */
/** A saved plan's file name ends in `.json`: that is how `apply PATH` tells a plan from a manifest. */
export function isSavedPlanFile(file: string): boolean {
  return file.endsWith('.json');
}

export async function writeSavedPlan(file: string, plan: Plan, within?: string): Promise<string> {
  const text = serializePlan(plan);
  await makeDirectory(path.dirname(file), { ...(within === undefined ? {} : { within }) });
  await writeFileAtomically(file, text, { mode: 0o600, ...(within === undefined ? {} : { within }) });
  return text;
}

/**
 * The plan with where it was made, for a plan that is applied later (saved, or reviewed with a
 * fleet): the manifest paths given and their commit, or the template store. A revert plans from the
 * journal, not from manifests: it records none.
 */
export async function withOrigin(plan: Plan, source: StoreSource, target: Pick<ResolvedTarget, 'manifests'>, revisions: RevisionReader): Promise<Plan> {
  let origin: PlanOrigin;
  if (source.type === 'manifests') origin = { manifests: [...source.paths], git: await revisions(manifestPathsOf(source.paths, target).paths) };
  else if (source.type === 'template') origin = { manifests: [], git: await revisions(['.']), template: source.from.name };
  else return plan;
  return { ...plan, origin };
}

/** The manifests a saved plan was made from, as this checkout has them (its origin's paths, else the target's). */
export function originPathsOf(plan: Plan, target: Pick<ResolvedTarget, 'manifests'>): readonly string[] {
  return manifestPathsOf(plan.origin?.manifests ?? [], target).paths;
}

/**
 * Reviewed plans apply only to the manifests they were made from: when this checkout's manifests
 * of any store no longer have its plan's digest (the main branch moved past the reviewed commit),
 * the whole run is refused before any request, naming those stores. A plan made from a template
 * store, a plan saved without its origin, or a checkout without the manifests at all (plans applied
 * elsewhere) is not checked: its account is, as always.
 */
export async function requireManifestsUnchanged(stores: readonly { plan: Plan; target: ResolvedTarget }[], io: RunIO): Promise<void> {
  const changed: string[] = [];
  for (const { plan, target } of stores) {
    const origin = plan.origin;
    if (!origin || origin.template !== undefined) continue;
    if (!originPathsOf(plan, target).some((p) => existsSync(path.resolve(io.cwd, p)))) continue;
    const loaded = await loadDesired(origin.manifests, io, target);
    if (loaded.digest !== plan.manifestDigest) changed.push(target.name);
  }
  if (changed.length === 0) return;
  const named = changed.length <= 5 ? changed.join(', ') : `${changed.slice(0, 5).join(', ')} and ${changed.length - 5} more`;
  throw new ErpsyncError('MANIFESTS_CHANGED', `the manifests changed since ${stores.length === 1 ? 'this plan was' : 'these plans were'} made: plan again (${named}); nothing was applied`, {
    details: [`stores whose manifests in this checkout differ from their plan's: ${changed.join(', ')}`, 'plan again from this commit and review the new plans'],
  });
}

export interface FleetIndexEntry {
  target: string;
  /** The plan's file, relative to the folder; absent when the store could not be planned. */
  file?: string;
  sha256?: string;
  account?: AccountIdentity;
  changes?: number;
  removals?: number;
  /** Why there is no plan for this store. */
  error?: string;
}

/** The stores of a fleet plan: each with its plan, or why it has none. */
export type FleetPlanStore = { target: string; plan: Plan } | { target: string; error: string };

/** A store's plan file in a fleet's folder: `lojas/centro` → `lojas/centro.json`. */
export function fleetPlanFile(target: string): string {
  return `${target}.json`;
}

/** Writes a fleet's plans into `dir` (one per store, fleetPlanFile) and the index last. */
export async function writeFleetPlans(dir: string, stores: readonly FleetPlanStore[]): Promise<void> {
  const entries: FleetIndexEntry[] = [];
  for (const store of stores) {
    if (!('plan' in store)) {
      entries.push({ target: store.target, error: store.error });
      continue;
    }
    const file = fleetPlanFile(store.target);
    const text = await writeSavedPlan(path.join(dir, file), store.plan);
    const removals = store.plan.changes.filter(countsAgainstBudget).length;
    entries.push({ target: store.target, file, sha256: digestOf(text), account: store.plan.target.account, changes: actionableChanges(store.plan).length, removals });
  }
  await writeFileAtomically(path.join(dir, fleetIndexFile), `${JSON.stringify({ formatVersion: 1, kind: indexKind, stores: entries }, null, 2)}\n`, { mode: 0o600 });
}

/** Whether a path given to apply is a fleet's folder of saved plans. */
export async function isFleetPlanFolder(given: string): Promise<boolean> {
  const info = await stat(given).catch(() => undefined);
  return info?.isDirectory() === true && (await stat(path.join(given, fleetIndexFile)).catch(() => undefined))?.isFile() === true;
}

/** Reads a fleet's index; each store's plan is read and checked later, on its own (see readFleetStorePlan). */
export async function readFleetIndex(dir: string, shown: string): Promise<FleetIndexEntry[]> {
  const file = path.join(dir, fleetIndexFile);
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new ErpsyncError('PLAN_INVALID', `${shown}/${fleetIndexFile} is not the index of a fleet's saved plans`, { cause: error });
  }
  if (!isPlainRecord(value) || value.kind !== indexKind || value.formatVersion !== 1 || !Array.isArray(value.stores)) {
    throw new ErpsyncError('PLAN_INVALID', `${shown}/${fleetIndexFile} is not the index of a fleet's saved plans (written by \`erpsync plan --out DIR\` across targets)`);
  }
  const entries = value.stores as FleetIndexEntry[];
  const seen = new Set<unknown>();
  for (const entry of entries) {
    // One store twice would apply its plan twice, concurrently.
    if (isPlainRecord(entry) && seen.has(entry.target)) throw new ErpsyncError('PLAN_INVALID', `${shown}/${fleetIndexFile} names ${String(entry.target)} twice; plan again`);
    if (isPlainRecord(entry)) seen.add(entry.target);
    if (!isPlainRecord(entry) || typeof entry.target !== 'string' || (entry.file !== undefined && (typeof entry.file !== 'string' || !isInside(entry.file)))) {
      throw new ErpsyncError('PLAN_INVALID', `${shown}/${fleetIndexFile} holds an entry erpsync did not write; plan again`);
    }
  }
  return entries;
}

/** One store's saved plan from a fleet's folder: refused when the file is not the one the index names. */
export async function readFleetStorePlan(dir: string, shown: string, entry: FleetIndexEntry, scope: VariableScope): Promise<Plan> {
  if (entry.file === undefined) throw new ErpsyncError('PLAN_INVALID', `no plan was saved for ${entry.target}${entry.error ? ` (planning failed: ${entry.error})` : ''}; plan again`);
  const file = path.join(dir, entry.file);
  const where = `${shown}/${entry.file}`;
  const text = await readFile(file, 'utf8').catch((error: unknown) => {
    throw new ErpsyncError('FILE_UNREADABLE', `cannot read ${where}`, { cause: error });
  });
  if (digestOf(text) !== entry.sha256) throw new ErpsyncError('PLAN_UNVERIFIABLE', `${where} is not the plan the index recorded (changed after erpsync wrote it); plan again`);
  const plan = parsePlanFile(text, where, secretReaderOf(scope));
  if (plan.target.name !== entry.target) throw new ErpsyncError('PLAN_UNVERIFIABLE', `${where} was made for target ${plan.target.name}, not ${entry.target}; plan again`);
  return plan;
}

function digestOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A relative path that stays inside the folder (an index never points elsewhere). */
function isInside(file: string): boolean {
  const normal = path.normalize(file);
  return !path.isAbsolute(normal) && !normal.startsWith('..') && isSavedPlanFile(normal);
}
