// `plan --revert RUN`: the undoing of one run of the journal as an ordinary plan. The desired state
// is derived from the journal — a tombstone for each record the run created, the recorded fields
// of each record it deleted or changed — written in the manifest language and loaded like any
// manifests. Before anything is planned, the account is read once, with the detail of every record
// the run touched, and each step is judged against it (revert-steps): only records still as the run
// left them are undone, pinned by their id; the others are conflicts, warnings of the plan. Then
// buildPlan plans the steps kept against that same read. Records nested in another (a logistics'
// services) are written inside their container's entry. It decides nothing a plan decides.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toManifestEntry } from '../export/manifest-record.js';
import type { ManifestEntry } from '../export/manifest-record.js';
import { renderKindFile } from '../export/render-yaml.js';
import { registry } from '../kinds/registry.js';
import { fetchLive } from '../live/fetch-live.js';
import type { KindAdapter } from '../kinds/kind.js';
import type { DesiredState, DesiredUnit } from '../model/desired.js';
import { deepEqual, parseKeyListField } from '../model/diff-fields.js';
import { ErpsyncError } from '../model/errors.js';
import type { JournalRecord, JournalRun } from '../model/journal.js';
import type { LiveRecord, LiveState } from '../model/live.js';
import type { UnitKind } from '../model/kinds.js';
import { lastSegment } from '../model/names.js';
import { isPlainRecord, readPath, removePath, writePath } from '../model/paths.js';
import type { Plan } from '../model/plan.js';
import type { Diagnostic } from '../model/diagnostics.js';
import type { OpenedTarget } from '../target/open-target.js';
import type { RecordsToRead } from './read-and-plan.js';
import { loadDesired, planOnRead, readRecords, requireSelectionMatches } from './read-and-plan.js';
import type { RevertConflict, RevertStep } from './revert-steps.js';
import { judgeSteps, revertStepsOf } from './revert-steps.js';
import type { PlanSettings } from './store-settings.js';
import type { RunIO } from '../model/run-io.js';

type DefinedAdapter = KindAdapter & { definition: NonNullable<KindAdapter['definition']> };

function asLive(step: RevertStep, fields: Record<string, unknown>, record?: JournalRecord): LiveRecord {
  return {
    kind: step.kind,
    id: record?.id ?? step.id ?? 0,
    identity: record?.identity ?? step.key,
    name: record?.name ?? step.key,
    fields,
    raw: {},
    detailLoaded: true,
    ...(record?.parent === undefined ? {} : { parent: record.parent }),
  };
}

/** Whether a nested step (a service) sits in this record: by its identity in the run, before or after a rename. */
function sitsIn(nested: RevertStep, record: LiveRecord, step?: RevertStep): boolean {
  return registry.unit(nested.kind)?.nestedIn === record.kind && (nested.parent === record.identity || (step !== undefined && nested.parent === step.leftKey));
}

/** The nested records of a step whose container is neither undone by the revert nor in `hosts` (it left the account since). */
export function stepsWithoutContainer(steps: readonly RevertStep[], hosts: readonly LiveRecord[]): RevertStep[] {
  const own = steps.filter((s) => registry.unit(s.kind)?.definition);
  return steps.filter((s) => !registry.unit(s.kind)?.definition && !own.some((o) => sitsIn(s, asLive(o, {}, o.before), o)) && !hosts.some((h) => sitsIn(s, h)));
}

/** Every leaf of a record (objects walked, lists and values are leaves), as paths. */
function leafPaths(value: Record<string, unknown>, prefix: readonly string[] = []): string[][] {
  return Object.entries(value).flatMap(([key, inner]) => (isPlainRecord(inner) ? leafPaths(inner, [...prefix, key]) : [[...prefix, key]]));
}

/**
 * A restored entry with every field the run changed that the entry leaves out — export omits what a
 * create would set by itself (a blank text, `false`, `ativo: true`, an empty list), but undoing the
 * run must set it back — as the record held it before the run. A secret is restored only when it
 * was empty (the journal holds no other).
 */
function withFieldsTheRunChanged(value: Record<string, unknown>, step: RevertStep, adapter: KindAdapter): Record<string, unknown> {
  const before = step.before?.fields ?? {};
  const secrets = (adapter.definition?.secretFields ?? []).map((p) => p.join('.'));
  const planned = step.paths.map((path) => parseKeyListField(path) ?? path);
  const touched = (path: string) => planned.some((p) => p === path || p.startsWith(`${path}.`) || path.startsWith(`${p}.`));
  let restored = value;
  for (const path of leafPaths(before)) {
    const dotted = path.join('.');
    const was = readPath(before, path);
    // The journal keeps a secret only when it was empty: then emptying it again restores it.
    if (!touched(dotted) || (secrets.includes(dotted) && was !== '') || readPath(value, path) !== undefined) continue;
    if (!deepEqual(was, readPath(step.left, path))) restored = writePath(restored, path, was);
  }
  return restored;
}

/**
 * A restored entry with the fields of the record the account holds (`current`, pinned) that the run
 * did not touch and the journal's record lacks — read from a list that does not carry them (a
 * retired payment method's destino): they are as they were.
 */
function withFieldsTheRunLeftAlone(value: Record<string, unknown>, step: RevertStep, current: Record<string, unknown>): Record<string, unknown> {
  const touched = new Set(step.paths.map((path) => (parseKeyListField(path) ?? path).split('.')[0]));
  return { ...value, ...Object.fromEntries(Object.entries(current).filter(([key]) => !(key in value) && !touched.has(key))) };
}

/** The manifest entry that undoes a step: a tombstone for what the run created, the record as it was for the rest; pinned by id where judged so. */
function entryOf(step: RevertStep, record: LiveRecord, live: LiveState, account?: LiveState): ManifestEntry {
  const adapter = registry.unit(step.kind) as KindAdapter;
  const context = { adapters: registry.units, live };
  const { value, notes } = toManifestEntry(adapter, record, context);
  const pin = step.pin === undefined ? {} : { id: step.pin };
  if (step.undo === 'remove') return { value: { ...pin, ...value, ensure: 'absent' }, notes: [] };
  const current = account?.records.get(step.kind)?.find((r) => r.id === step.pin);
  const whole = current ? withFieldsTheRunLeftAlone(value, step, toManifestEntry(adapter, current, context).value) : value;
  const restored = (step.keep ?? []).reduce((fields, path) => removePath(fields, path.split('.')), withFieldsTheRunChanged(whole, step, adapter));
  return { value: { ...pin, ...restored }, notes };
}

function recordOf(step: RevertStep): LiveRecord {
  return step.undo === 'remove' ? asLive(step, step.left ?? {}) : asLive(step, step.before?.fields ?? {}, step.before);
}

/**
 * The records references are named among: the revert's own, and the account's (`account`, when
 * read) — a name two records have is written as its path. Nested records only as the revert's.
 */
function namingContext(records: readonly LiveRecord[], account?: LiveState): LiveState {
  const byKind = new Map<UnitKind, LiveRecord[]>();
  for (const record of records) byKind.set(record.kind, [...(byKind.get(record.kind) ?? []), record]);
  for (const [kind, held] of account?.records ?? []) {
    if (registry.unit(kind)?.nestedIn !== undefined) continue;
    const own = byKind.get(kind) ?? [];
    byKind.set(kind, [...own, ...held.filter((r) => !own.some((o) => o.identity === r.identity))]);
  }
  return { records: byKind, reads: 0 };
}

/**
 * The revert's manifests: one file per kind, in the manifest language. Nested steps go in their
 * container's entry; a container the run did not change is written as the account has it now
 * (`hosts`), so that only its nested records change. Those of a container the revert deletes go with it.
 */
export function renderRevertManifests(steps: readonly RevertStep[], hosts: readonly LiveRecord[] = [], account?: LiveState): { file: string; text: string }[] {
  const nested = steps.filter((step) => !registry.unit(step.kind)?.definition);
  const records = [...steps.filter((step) => registry.unit(step.kind)?.definition).map((step) => ({ step, record: recordOf(step) })), ...hosts.map((record) => ({ step: undefined, record }))];
  const live = namingContext(records.map(({ record }) => record), account);
  const byKind = new Map<UnitKind, ManifestEntry[]>();
  for (const { step, record } of records) {
    const entry = step ? entryOf(step, record, live, account) : toManifestEntry(registry.unit(record.kind) as KindAdapter, record, { adapters: registry.units, live });
    let value = entry.value;
    if (step?.undo !== 'remove') {
      for (const child of nested.filter((n) => sitsIn(n, record, step))) {
        const field = registry.unit(child.kind)?.nestedField as string;
        value = { ...value, [field]: [...(Array.isArray(value[field]) ? (value[field] as unknown[]) : []), entryOf(child, recordOf(child), live, account).value] };
      }
    }
    byKind.set(record.kind, [...(byKind.get(record.kind) ?? []), { value, notes: entry.notes }]);
  }
  return [...byKind.entries()].map(([kind, entries]) => {
    const { definition } = registry.unit(kind) as DefinedAdapter;
    return { file: `${kind}.yaml`, text: renderKindFile({ kind: definition.key, shape: definition.shape, entries, schemaRef: 'manifest.schema.json', header: ['Derived from the journal by `erpsync plan --revert`.'] }) };
  });
}

/**
 * The revert's delete budget: the records the run created, which are all it may remove (a service
 * the API cannot delete is retired, and counts too). --max-deletes still overrides it.
 */
function revertPolicy(steps: readonly RevertStep[]): { file: string; text: string } {
  return { file: 'policy.yaml', text: `version: 1\npolicy:\n  maxDeletes: ${steps.filter((step) => step.undo === 'remove').length}\n` };
}

/** The desired state that undoes these steps, loaded like any manifests (from a scratch folder, removed after). */
export async function loadRevertDesired(steps: readonly RevertStep[], hosts: readonly LiveRecord[], io: RunIO, account?: LiveState): Promise<DesiredState> {
  const dir = await mkdtemp(join(tmpdir(), 'erpsync-revert-'));
  try {
    for (const { file, text } of [...renderRevertManifests(steps, hosts, account), revertPolicy(steps)]) await writeFile(join(dir, file), text);
    const loaded = await loadDesired([dir], io);
    if (!loaded.desired) {
      throw new ErpsyncError('PLAN_INVALID', 'the run cannot be reverted: the records it recorded do not make valid manifests', { details: loaded.diagnostics.map((d) => `${d.code}: ${d.message}`) });
    }
    return loaded.desired;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** What plan --revert starts from: the run, and whether records changed since it are overwritten. */
export interface RevertSource {
  type: 'revert';
  run: JournalRun;
  overwrite: boolean;
}

/**
 * The containers, as the account has them now, of nested records the run changed in a container
 * it did not change (a service of a logistics it left as it was): read only when there are such.
 */
async function readHosts(opened: OpenedTarget, steps: readonly RevertStep[]): Promise<LiveRecord[]> {
  const wanted = stepsWithoutContainer(steps, []);
  const kinds = [...new Set(wanted.flatMap((step) => registry.unit(step.kind)?.nestedIn ?? []))];
  if (kinds.length === 0) return [];
  const live = await fetchLive(opened.client, registry.units, { kinds, desired: new Map(), complete: () => true });
  return kinds.flatMap((kind) => (live.records.get(kind) ?? []).filter((record) => wanted.some((step) => sitsIn(step, record))));
}

/**
 * What judging and planning the steps read: each record as the run left it and as it found it (so
 * the references either names are read, and named alike), with its detail, whatever its list lacks.
 */
function judgingRead(steps: readonly RevertStep[]): RecordsToRead {
  const desired = new Map<UnitKind, DesiredUnit[]>();
  const detailIds = new Map<UnitKind, Set<number>>();
  for (const step of steps) {
    const units = [...(step.left ? [unitOf(step, step.leftKey, step.left, step.id)] : []), ...(step.before ? [unitOf(step, step.key, step.before.fields, undefined)] : [])];
    desired.set(step.kind, [...(desired.get(step.kind) ?? []), ...units]);
    if (step.id !== undefined) detailIds.set(step.kind, new Set([...(detailIds.get(step.kind) ?? []), step.id]));
  }
  return { desired, detailIds };
}

function unitOf(step: RevertStep, identity: string, fields: Record<string, unknown>, id: number | undefined): DesiredUnit {
  return {
    kind: step.kind,
    identity,
    name: lastSegment(identity),
    ...(step.parent === undefined ? {} : { parent: step.parent }),
    fields,
    tool: { ...(id === undefined ? {} : { id }), ensure: 'present', protect: false, previousNames: [] },
    locate: () => ({ file: 'journal', line: 1, col: 1 }),
  };
}

/** The secrets a restored record had changed by the run that the journal does not hold (only an empty one is kept): left as they are. */
function secretsNotRestored(step: RevertStep): string[] {
  if (step.undo === 'remove') return [];
  const secrets = (registry.unit(step.kind)?.definition?.secretFields ?? []).map((p) => p.join('.'));
  return secrets.filter((path) => step.paths.includes(path) && readPath(step.before?.fields, path.split('.')) !== '');
}

/**
 * What the API refuses to undo — a change the revert's plan shows blocked: a default it only
 * gives, a record it does not delete — is said, not planned: the step keeps those fields as the run
 * left them, or is left out when its removal is what is blocked. Undefined when the plan blocks
 * nothing the steps undo.
 */
function withoutBlocked(steps: readonly RevertStep[], plan: Plan): { steps: RevertStep[]; notes: string[] } | undefined {
  const blocked = plan.changes.filter((c) => c.action === 'blocked');
  const notes: string[] = [];
  const kept = steps.flatMap((step) => {
    // A field kept already and blocked still cannot be left out any further: it stays blocked in the plan.
    const refused = blocked.filter((c) => c.kind === step.kind && (c.key === step.leftKey || c.key === step.key) && !(c.fields.length > 0 && c.fields.every((f) => step.keep?.includes(f.path))));
    if (refused.length === 0) return [step];
    for (const change of refused) {
      const fields = change.fields.length > 0 ? ` (${change.fields.map((f) => f.path).join(', ')})` : '';
      notes.push(`not undone: ${change.kind} "${change.key}"${fields}: ${change.note ?? 'the API cannot make this change'}`);
    }
    return refused.some((c) => c.fields.length === 0) ? [] : [{ ...step, keep: [...(step.keep ?? []), ...refused.flatMap((c) => c.fields.map((f) => f.path))] }];
  });
  return notes.length > 0 ? { steps: kept, notes } : undefined;
}

function describeConflict({ step, why, overridable }: RevertConflict, overwrite: boolean): string {
  const outcome = !overridable ? 'left alone' : overwrite ? 'undone anyway (--revert-conflicts)' : 'left alone (--revert-conflicts undoes it anyway)';
  return `conflict: ${step.kind} "${step.key}" ${why}; ${outcome}`;
}

/** Plans the undoing of a run on the account it ran on; conflicts become warnings of the plan. */
export async function planRevert(source: RevertSource, opened: OpenedTarget, settings: PlanSettings, io: RunIO): Promise<{ plan: Plan; live: LiveState; diagnostics: Diagnostic[] }> {
  const { header } = source.run;
  if (header.account.id !== opened.account.id) {
    throw new ErpsyncError('ACCOUNT_MISMATCH', `run ${header.run} changed the account ${header.account.nome} (${header.account.id}), not the one these credentials reach; nothing was planned`);
  }
  const all = revertStepsOf(source.run);
  const hosts = await readHosts(opened, all);
  // A nested record whose container left the account since cannot be restored, whatever the user chooses.
  const homeless = stepsWithoutContainer(all, hosts);
  const steps = all.filter((step) => !homeless.includes(step));
  const read = await readRecords(opened, judgingRead(steps));
  const judged = judgeSteps(steps, read.live, source.run, source.overwrite);
  // Records are matched by id and identity alone, so a record the run replaced (a field the API
  // cannot change in place) is replaced back — the run's own decision, undone — and no other.
  const planSteps = async (undo: readonly RevertStep[]) => planOnRead(opened, await loadRevertDesired(undo, hosts, io, read.live), { ...settings, allowReplace: true }, read, { exactMatch: true });
  let undo = judged.undo;
  let { live, result } = await planSteps(undo);
  const notUndone: string[] = [];
  // Each round leaves out a step or keeps more fields (a parent whose child stays may be blocked next): it ends.
  for (let next = withoutBlocked(undo, result.plan); next; next = withoutBlocked(undo, result.plan)) {
    undo = next.steps;
    notUndone.push(...next.notes);
    ({ live, result } = await planSteps(undo));
  }
  requireSelectionMatches(settings.selection, result.matching);
  const warnings = [
    ...homeless.map((step) => `conflict: ${step.kind} "${step.key}": its ${registry.unit(step.kind)?.nestedIn ?? 'container'} "${step.parent ?? ''}" is no longer in the account; left alone`),
    ...judged.conflicts.map((conflict) => describeConflict(conflict, source.overwrite)),
    ...notUndone,
    ...undo.flatMap((step) => secretsNotRestored(step).map((path) => `${step.kind} "${step.key}": the run changed ${path}, a secret the journal does not hold: the revert leaves it as it is; set it again through its variable`)),
  ];
  return { plan: { ...result.plan, warnings: [...result.plan.warnings, ...warnings] }, live, diagnostics: result.diagnostics };
}
