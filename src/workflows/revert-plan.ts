// `plan --revert RUN`: the undoing of one run of the journal as an ordinary plan. The desired state
// is derived from the journal alone — a tombstone for each record the run created, the recorded
// fields of each record it deleted or changed — written in the manifest language and loaded like
// any manifests, then planned by buildPlan against the account as it is now. A record changed
// since the run (its fields are no longer what the run left) is a conflict: shown as a warning of
// the plan and left out, unless the user asks to overwrite it. Records nested in another (a
// logistics' services) are written inside their container's entry. It decides nothing a plan decides.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toManifestEntry } from '../export/manifest-record.js';
import type { ManifestEntry } from '../export/manifest-record.js';
import { renderKindFile } from '../export/render-yaml.js';
import { registry } from '../kinds/registry.js';
import { fetchLive } from '../live/fetch-live.js';
import type { KindAdapter } from '../kinds/kind.js';
import type { DesiredState } from '../model/desired.js';
import { deepEqual, diffFields } from '../model/diff-fields.js';
import { ErpsyncError } from '../model/errors.js';
import type { JournalChangeLine, JournalRecord, JournalRun } from '../model/journal.js';
import { changedTheAccount } from '../model/journal.js';
import type { LiveRecord, LiveState } from '../model/live.js';
import type { UnitKind } from '../model/kinds.js';
import { parentPathOf } from '../model/names.js';
import { writePath } from '../model/paths.js';
import type { Plan } from '../model/plan.js';
import type { Diagnostic } from '../model/diagnostics.js';
import type { OpenedTarget } from '../target/open-target.js';
import { loadDesired, readAndPlan } from './read-and-plan.js';
import type { PlanSettings } from './store-settings.js';
import type { RunIO } from '../model/run-io.js';

/** What undoing one record takes: the record as the run found it and as it left it. */
export interface RevertStep {
  kind: UnitKind;
  key: string;
  /** `remove`: the run created it; `restore`: it changed or removed it. */
  undo: 'remove' | 'restore';
  /** As the run found it (restore). */
  before?: JournalRecord;
  /** As the run left it: read back when it was, else as written; absent when the run removed it. */
  left?: Record<string, unknown>;
  /** The record's id after the run. */
  id?: number;
  /** Its identity after the run (a rename's new name). */
  leftKey: string;
  /** A nested record's container (a service's logistics), by its identity in the run. */
  parent?: string;
}

/** The records a run changed, one step each (the first before and the last state when a record changed twice). */
export function revertStepsOf(run: JournalRun): RevertStep[] {
  const steps = new Map<string, RevertStep>();
  for (const change of run.changes.filter(changedTheAccount)) {
    if (change.action === 'blocked') continue;
    const key = `${change.kind}\u0000${change.before?.identity ?? change.key}`;
    const earlier = steps.get(key);
    const left = leftBy(change, run);
    const nested = registry.unit(change.kind)?.nestedIn !== undefined;
    const parent = change.before?.parent ?? run.readBack.find((r) => r.change === change.change)?.record.parent ?? (nested ? parentPathOf(change.key) : undefined);
    const step: RevertStep = earlier ?? {
      kind: change.kind,
      key: change.before?.identity ?? change.key,
      undo: change.action === 'create' ? 'remove' : 'restore',
      leftKey: change.key,
      ...(change.before ? { before: change.before } : {}),
      ...(parent === undefined ? {} : { parent }),
    };
    steps.set(key, { ...step, leftKey: change.key, ...(left ? { left } : {}), ...(change.id === undefined ? {} : { id: change.id }) });
    if (change.action === 'delete') delete steps.get(key)?.left;
  }
  return [...steps.values()];
}

/** The record as the change left it: read back when it was, else as written, else as read with the planned fields set. */
function leftBy(change: JournalChangeLine, run: JournalRun): Record<string, unknown> | undefined {
  if (change.action === 'delete') return undefined;
  const read = run.readBack.find((r) => r.change === change.change);
  if (read) return read.record.fields;
  if (change.written) return change.written;
  let fields = change.before?.fields ?? {};
  for (const field of change.fields) if (!field.sensitive) fields = writePath(fields, field.path.split('.'), field.after);
  return fields;
}

/** Why a record no longer is as the run left it; undefined when it is. */
export function describeConflict(step: RevertStep, live: LiveState): string | undefined {
  const records = live.records.get(step.kind) ?? [];
  const now = records.find((r) => (step.id !== undefined ? r.id === step.id : r.identity === step.key)) ?? records.find((r) => r.identity === step.key);
  const adapter = registry.unit(step.kind) as KindAdapter;
  if (!step.left) return now ? `it was re-created since the run (id ${now.id})` : undefined;
  if (!now) return step.undo === 'remove' ? undefined : 'it was deleted since the run';
  const canonical = (fields: Record<string, unknown>) => adapter.canonicalize?.(fields) ?? fields;
  const differences = diffFields(canonical(step.left), canonical(now.fields), new Set((adapter.definition?.secretFields ?? []).map((p) => p.join('.'))));
  const shown = differences.filter((d) => !d.sensitive);
  if (differences.length === 0) return undefined;
  return `changed since the run: ${shown.map((d) => `${d.path} is ${JSON.stringify(d.before)}, the run left ${JSON.stringify(d.after)}`).join('; ') || 'a secret field'}`;
}

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

/**
 * A nested record (a service) as its container's entry lists it. Undoing its create removes it
 * the way its kind allows (a service is retired: the API cannot delete one). A restored one is
 * pinned by its id and gets back every field the run changed, those export leaves out as a
 * create's default (an empty alias list, `ativo: true`) included.
 */
function nestedEntryOf(step: RevertStep, live: LiveState): Record<string, unknown> {
  const adapter = registry.unit(step.kind) as KindAdapter;
  const context = { adapters: registry.units, live };
  if (step.undo === 'remove') return { ...toManifestEntry(adapter, asLive(step, step.left ?? {}), context).value, ensure: 'absent' };
  const before = step.before?.fields ?? {};
  const { value } = toManifestEntry(adapter, asLive(step, before, step.before), context);
  const changed = Object.entries(before).filter(([key, was]) => !(key in value) && !deepEqual(was, step.left?.[key]));
  return { ...(step.left && step.id !== undefined ? { id: step.id } : {}), ...value, ...Object.fromEntries(changed) };
}

/**
 * The revert's manifests: one file per kind, in the manifest language. Nested steps go in their
 * container's entry; a container the run did not change is written as the account has it now
 * (`hosts`), so that only its nested records change. Those of a container the revert deletes go with it.
 */
export function renderRevertManifests(steps: readonly RevertStep[], hosts: readonly LiveRecord[] = []): { file: string; text: string }[] {
  const nested = steps.filter((step) => !registry.unit(step.kind)?.definition);
  const records = [
    ...steps.filter((step) => registry.unit(step.kind)?.definition).map((step) => ({ step, record: step.undo === 'remove' ? asLive(step, step.left ?? {}) : asLive(step, step.before?.fields ?? {}, step.before) })),
    ...hosts.map((record) => ({ step: undefined, record })),
  ];
  const recordsByKind = new Map<UnitKind, LiveRecord[]>();
  for (const { record } of records) recordsByKind.set(record.kind, [...(recordsByKind.get(record.kind) ?? []), record]);
  const live: LiveState = { records: recordsByKind, reads: 0 };
  const byKind = new Map<UnitKind, ManifestEntry[]>();
  for (const { step, record } of records) {
    const entry = toManifestEntry(registry.unit(record.kind) as KindAdapter, record, { adapters: registry.units, live });
    let value = entry.value;
    if (step?.undo === 'remove') value = { ...value, ensure: 'absent' };
    else {
      // A record the run changed (renamed, maybe) is pinned by its id; one it deleted is created again.
      if (step?.left && step.id !== undefined) value = { id: step.id, ...value };
      for (const child of nested.filter((n) => sitsIn(n, record, step))) {
        const field = registry.unit(child.kind)?.nestedField as string;
        value = { ...value, [field]: [...(Array.isArray(value[field]) ? (value[field] as unknown[]) : []), nestedEntryOf(child, live)] };
      }
    }
    byKind.set(record.kind, [...(byKind.get(record.kind) ?? []), { value, notes: step?.undo === 'remove' ? [] : entry.notes }]);
  }
  return [...byKind.entries()].map(([kind, entries]) => {
    const { definition } = registry.unit(kind) as DefinedAdapter;
    return { file: `${kind}.yaml`, text: renderKindFile({ kind: definition.key, shape: definition.shape, entries, schemaRef: 'manifest.schema.json', header: ['Derived from the journal by `erpsync plan --revert`.'] }) };
  });
}

/** The desired state that undoes these steps, loaded like any manifests (from a scratch folder, removed after). */
export async function loadRevertDesired(steps: readonly RevertStep[], hosts: readonly LiveRecord[], io: RunIO): Promise<DesiredState> {
  const dir = await mkdtemp(join(tmpdir(), 'erpsync-revert-'));
  try {
    const files = renderRevertManifests(steps, hosts);
    for (const { file, text } of files) await writeFile(join(dir, file), text);
    if (files.length === 0) await writeFile(join(dir, 'empty.yaml'), 'version: 1\n');
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
  let read = await readAndPlan(opened, await loadRevertDesired(steps, hosts, io), settings);
  const conflicts = steps.flatMap((step) => {
    const why = describeConflict(step, read.live);
    return why ? [{ step, why }] : [];
  });
  if (conflicts.length > 0 && !source.overwrite) {
    const kept = steps.filter((step) => !conflicts.some((c) => c.step === step));
    read = await readAndPlan(opened, await loadRevertDesired(kept, hosts, io), settings);
  }
  const warnings = [
    ...homeless.map((step) => `conflict: ${step.kind} "${step.key}": its ${registry.unit(step.kind)?.nestedIn ?? 'container'} "${step.parent ?? ''}" is no longer in the account; left alone`),
    ...conflicts.map(({ step, why }) => `conflict: ${step.kind} "${step.key}" ${why}; ${source.overwrite ? 'restored anyway (--revert-conflicts)' : 'left alone (--revert-conflicts restores it anyway)'}`),
  ];
  const plan = read.result.plan;
  return { plan: { ...plan, warnings: [...plan.warnings, ...warnings] }, live: read.live, diagnostics: read.result.diagnostics };
}
