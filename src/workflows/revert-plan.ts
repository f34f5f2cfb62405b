// `plan --revert RUN`: the undoing of one run of the journal as an ordinary plan. The desired state
// is derived from the journal alone — a tombstone for each record the run created, the recorded
// fields of each record it deleted or changed — written in the manifest language and loaded like
// any manifests, then planned by buildPlan against the account as it is now. A record changed
// since the run (its fields are no longer what the run left) is a conflict: shown as a warning of
// the plan and left out, unless the user asks to overwrite it. It decides nothing a plan decides.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toManifestEntry } from '../export/manifest-record.js';
import type { ManifestEntry } from '../export/manifest-record.js';
import { renderKindFile } from '../export/render-yaml.js';
import { registry } from '../kinds/registry.js';
import type { KindAdapter } from '../kinds/kind.js';
import type { DesiredState } from '../model/desired.js';
import { diffFields } from '../model/diff-fields.js';
import { ErpsyncError } from '../model/errors.js';
import type { JournalChangeLine, JournalRecord, JournalRun } from '../model/journal.js';
import { changedTheAccount } from '../model/journal.js';
import type { LiveRecord, LiveState } from '../model/live.js';
import type { UnitKind } from '../model/kinds.js';
import { writePath } from '../model/paths.js';
import type { Plan } from '../model/plan.js';
import type { Diagnostic } from '../model/diagnostics.js';
import type { OpenedTarget } from './open-target.js';
import { loadDesired, readAndPlan } from './read-and-plan.js';
import type { PlanSettings } from './store-settings.js';
import type { RunIO } from './run-io.js';

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
}

/** The records a run changed, one step each (the first before and the last state when a record changed twice). */
export function revertStepsOf(run: JournalRun): { steps: RevertStep[]; unsupported: string[] } {
  const steps = new Map<string, RevertStep>();
  const unsupported: string[] = [];
  for (const change of run.changes.filter(changedTheAccount)) {
    if (change.action === 'blocked') continue;
    if (!registry.unit(change.kind)?.definition) {
      unsupported.push(`${change.kind} "${change.key}": records nested in another are not reverted on their own; revert by hand`);
      continue;
    }
    const key = `${change.kind}\u0000${change.before?.identity ?? change.key}`;
    const earlier = steps.get(key);
    const left = leftBy(change, run);
    const step: RevertStep = earlier ?? { kind: change.kind, key: change.before?.identity ?? change.key, undo: change.action === 'create' ? 'remove' : 'restore', ...(change.before ? { before: change.before } : {}) };
    steps.set(key, { ...step, ...(left ? { left } : {}), ...(change.id === undefined ? {} : { id: change.id }) });
    if (change.action === 'delete') delete steps.get(key)?.left;
  }
  return { steps: [...steps.values()], unsupported };
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

/** The revert's manifests: one file per kind, in the manifest language. */
export function renderRevertManifests(steps: readonly RevertStep[]): { file: string; text: string }[] {
  const asLive = (step: RevertStep, fields: Record<string, unknown>, record?: JournalRecord): LiveRecord => ({
    kind: step.kind,
    id: record?.id ?? step.id ?? 0,
    identity: record?.identity ?? step.key,
    name: record?.name ?? step.key,
    fields,
    raw: {},
    detailLoaded: true,
    ...(record?.parent === undefined ? {} : { parent: record.parent }),
  });
  const records = steps.map((step) => (step.undo === 'remove' ? asLive(step, step.left ?? {}) : asLive(step, step.before?.fields ?? {}, step.before)));
  const byKind = new Map<UnitKind, typeof records>();
  for (const record of records) byKind.set(record.kind, [...(byKind.get(record.kind) ?? []), record]);
  const live: LiveState = { records: byKind, reads: 0 };
  return [...byKind.entries()].map(([kind, kindRecords]) => {
    const adapter = registry.unit(kind) as KindAdapter & { definition: NonNullable<KindAdapter['definition']> };
    const entries: ManifestEntry[] = kindRecords.map((record) => {
      const entry = toManifestEntry(adapter, record, { adapters: registry.units, live });
      const step = steps.find((s) => s.kind === kind && (s.undo === 'remove' ? s.key === record.identity : s.before?.identity === record.identity));
      if (step?.undo === 'remove') return { value: { ...entry.value, ensure: 'absent' }, notes: [] };
      // A record the run changed (renamed, maybe) is pinned by its id; one it deleted is created again.
      return step?.left && step.id !== undefined ? { ...entry, value: { id: step.id, ...entry.value } } : entry;
    });
    return { file: `${kind}.yaml`, text: renderKindFile({ kind: adapter.definition.key, shape: adapter.definition.shape, entries, schemaRef: 'manifest.schema.json', header: ['Derived from the journal by `erpsync plan --revert`.'] }) };
  });
}

/** The desired state that undoes these steps, loaded like any manifests (from a scratch folder, removed after). */
export async function loadRevertDesired(steps: readonly RevertStep[], io: RunIO): Promise<DesiredState> {
  const dir = await mkdtemp(join(tmpdir(), 'erpsync-revert-'));
  try {
    const files = renderRevertManifests(steps);
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

/** Plans the undoing of a run on the account it ran on; conflicts become warnings of the plan. */
export async function planRevert(source: RevertSource, opened: OpenedTarget, settings: PlanSettings, io: RunIO): Promise<{ plan: Plan; live: LiveState; diagnostics: Diagnostic[] }> {
  const { header } = source.run;
  if (header.account.id !== opened.account.id) {
    throw new ErpsyncError('ACCOUNT_MISMATCH', `run ${header.run} changed the account ${header.account.nome} (${header.account.id}), not the one these credentials reach; nothing was planned`);
  }
  const { steps, unsupported } = revertStepsOf(source.run);
  let read = await readAndPlan(opened, await loadRevertDesired(steps, io), settings);
  const conflicts = steps.flatMap((step) => {
    const why = describeConflict(step, read.live);
    return why ? [{ step, why }] : [];
  });
  if (conflicts.length > 0 && !source.overwrite) {
    const kept = steps.filter((step) => !conflicts.some((c) => c.step === step));
    read = await readAndPlan(opened, await loadRevertDesired(kept, io), settings);
  }
  const warnings = [
    ...unsupported,
    ...conflicts.map(({ step, why }) => `conflict: ${step.kind} "${step.key}" ${why}; ${source.overwrite ? 'restored anyway (--revert-conflicts)' : 'left alone (--revert-conflicts restores it anyway)'}`),
  ];
  const plan = read.result.plan;
  return { plan: { ...plan, warnings: [...plan.warnings, ...warnings] }, live: read.live, diagnostics: read.result.diagnostics };
}
