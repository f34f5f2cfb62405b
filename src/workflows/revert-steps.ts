// The steps that undo one run of the journal, and each step judged against the account before it
// is taken. The journal says what the run did; only the account, and the run's own read-back, say
// what is still there to undo. A record is undone only when the account holds it as the run left
// it — by its id, under the name the run gave it, field by field by meaning with the plan's own
// comparator (kinds/compare-records), references named as the read names them. Anything else is
// a conflict, shown and left alone: a created record the read-back never saw, or whose id the
// account holds under another name, is never removed, whatever the user asks. Pure: it reads and
// writes nothing.
import { diffRecord } from '../kinds/compare-records.js';
import { referencesOf } from '../kinds/kind.js';
import type { KindAdapter } from '../kinds/kind.js';
import { registry } from '../kinds/registry.js';
import type { JournalChangeLine, JournalRecord, JournalRun } from '../model/journal.js';
import { changedTheAccount } from '../model/journal.js';
import type { UnitKind } from '../model/kinds.js';
import type { LiveRecord, LiveState } from '../model/live.js';
import { parentPathOf } from '../model/names.js';
import { mapPath, writePath } from '../model/paths.js';
import type { FieldChange } from '../model/plan.js';

/** What undoing one record takes: the record as the run found it and as it left it. */
export interface RevertStep {
  kind: UnitKind;
  /** Its identity before the run. */
  key: string;
  /** `remove`: the run created it; `restore`: it changed or removed it. */
  undo: 'remove' | 'restore';
  /** As the run found it (restore). */
  before?: JournalRecord;
  /** As the run left it: read back when it was, else as written; absent when the run removed it. */
  left?: Record<string, unknown>;
  /** The record's id after the run (a create's from its answer, or from the read-back for one carried in another's request). */
  id?: number;
  /** Its identity after the run (a rename's new name). */
  leftKey: string;
  /** A nested record's container (a service's logistics), by its identity in the run. */
  parent?: string;
  /** The fields the run's changes of the record planned, as plans name them (`ISS.tributos`, `situacao` …). */
  paths: string[];
  /** Whether the run's read-back saw the record after its writes (then `left` is what it saw). */
  seen: boolean;
  /** The id the revert pins it by: the account holds the record under it (set by judgeSteps). */
  pin?: number;
  /** Fields left as the run left them: the API cannot set them back (the revert's plan blocked them). */
  keep?: string[];
}

/** The records a run changed, one step each (the first before and the last state when a record changed twice). */
export function revertStepsOf(run: JournalRun): RevertStep[] {
  const steps = new Map<string, RevertStep>();
  for (const change of run.changes.filter(changedTheAccount)) {
    if (change.action === 'blocked') continue;
    const key = `${change.kind}\u0000${change.before?.identity ?? change.key}`;
    const earlier = steps.get(key);
    const readBack = run.readBack.find((r) => r.change === change.change)?.record;
    const nested = registry.unit(change.kind)?.nestedIn !== undefined;
    const parent = change.before?.parent ?? readBack?.parent ?? (nested ? parentPathOf(change.key) : undefined);
    const step: RevertStep = earlier ?? {
      kind: change.kind,
      key: change.before?.identity ?? change.key,
      undo: change.action === 'create' ? 'remove' : 'restore',
      leftKey: change.key,
      paths: [],
      seen: false,
      ...(change.before ? { before: change.before } : {}),
      ...(parent === undefined ? {} : { parent }),
    };
    const left = leftBy(change, readBack?.fields);
    const id = change.id ?? readBack?.id ?? step.id;
    const next: RevertStep = { ...step, leftKey: change.key, paths: [...step.paths, ...change.fields.map((f) => f.path)], seen: readBack !== undefined || step.seen, ...(left ? { left } : {}), ...(id === undefined ? {} : { id }) };
    if (change.action === 'delete') delete next.left;
    steps.set(key, next);
  }
  return [...steps.values()];
}

/** The record as the change left it: read back when it was, else as written, else as read with the planned fields set. */
function leftBy(change: JournalChangeLine, readBack: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (change.action === 'delete') return undefined;
  if (readBack) return readBack;
  if (change.written) return change.written;
  let fields = change.before?.fields ?? {};
  for (const field of change.fields) if (!field.sensitive) fields = writePath(fields, field.path.split('.'), field.after);
  return fields;
}

/** A step the account does not let the revert take as it is. */
export interface RevertConflict {
  step: RevertStep;
  why: string;
  /** Whether --revert-conflicts may undo it anyway (never for a record the run cannot show it created). */
  overridable: boolean;
}

export interface RevertJudgement {
  /** Steps to take, pinned by id where the account holds the record. */
  undo: RevertStep[];
  conflicts: RevertConflict[];
}

type Verdict = { undo: RevertStep } | { conflict: RevertConflict } | { gone: true };

/**
 * Each step against the account as read now. `overwrite` (--revert-conflicts) takes the steps
 * whose conflict may be overridden too. A record the run created that is no longer in the account,
 * under its id or its name, has nothing left to undo.
 */
export function judgeSteps(steps: readonly RevertStep[], live: LiveState, run: Pick<JournalRun, 'readBack'>, overwrite: boolean): RevertJudgement {
  const judgement: RevertJudgement = { undo: [], conflicts: [] };
  const readBackRan = run.readBack.length > 0;
  for (const step of steps) {
    const verdict = step.undo === 'remove' ? judgeRemoval(step, live, readBackRan) : step.left ? judgeRestore(step, step.left, live) : judgeRecreation(step, live);
    if ('undo' in verdict) judgement.undo.push(verdict.undo);
    if (!('conflict' in verdict)) continue;
    judgement.conflicts.push(verdict.conflict);
    if (overwrite && verdict.conflict.overridable) judgement.undo.push(verdict.conflict.step);
  }
  return judgement;
}

function recordsOf(live: LiveState, kind: UnitKind): readonly LiveRecord[] {
  return live.records.get(kind) ?? [];
}

const isSingleton = (kind: UnitKind) => registry.unit(kind)?.definition?.shape === 'singleton';

/** Undoing a create: only the very record the run created and saw, as it left it. */
function judgeRemoval(step: RevertStep, live: LiveState, readBackRan: boolean): Verdict {
  const conflict = (why: string, overridable = false): Verdict => ({ conflict: { step, why, overridable } });
  if (readBackRan && !step.seen) return conflict("the run's read-back never saw it, so the journal cannot show the run created it");
  if (step.id === undefined) return conflict('the journal holds no id for it (its outcome was never known)');
  const now = recordsOf(live, step.kind).find((r) => r.id === step.id);
  if (!now) {
    const namesake = recordsOf(live, step.kind).find((r) => r.identity === step.leftKey);
    return namesake ? conflict(`the record the run created (id ${step.id}) is gone; the one of that name now (id ${namesake.id}) is another`) : { gone: true };
  }
  if (now.identity !== step.leftKey) return conflict(`the account holds its id ${step.id} under another name, "${now.identity}"`);
  const pinned = { ...step, pin: now.id };
  const changed = describeChanges(step, step.left ?? {}, now, live);
  return changed ? { conflict: { step: pinned, why: changed, overridable: true } } : { undo: pinned };
}

/** Undoing a change: the record, by its id, must hold what the run left. */
function judgeRestore(step: RevertStep, left: Record<string, unknown>, live: LiveState): Verdict {
  const records = recordsOf(live, step.kind);
  const now = isSingleton(step.kind) ? records[0] : records.find((r) => r.id === step.id);
  if (!now) return { conflict: { step, why: 'it was deleted since the run', overridable: true } };
  const pinned = isSingleton(step.kind) ? step : { ...step, pin: now.id };
  const changed = describeChanges(step, left, now, live);
  return changed ? { conflict: { step: pinned, why: changed, overridable: true } } : { undo: pinned };
}

/** Undoing a removal: nothing may have taken the record's place (its name, or its id). */
function judgeRecreation(step: RevertStep, live: LiveState): Verdict {
  const now = recordsOf(live, step.kind).find((r) => r.identity === step.key || r.id === step.before?.id);
  return now ? { conflict: { step, why: `it was re-created since the run (id ${now.id})`, overridable: true } } : { undo: step };
}

/** Why the record is no longer as the run left it, field by field; undefined when it is. */
function describeChanges(step: RevertStep, left: Record<string, unknown>, now: LiveRecord, live: LiveState): string | undefined {
  const differences = differencesSinceRun(registry.unit(step.kind) as KindAdapter, left, now.fields, live);
  if (differences.length === 0) return undefined;
  const shown = differences.filter((d) => !d.sensitive).map((d) => `${d.path} is ${JSON.stringify(d.before)}, the run left ${JSON.stringify(d.after)}`);
  return `changed since the run: ${shown.join('; ') || 'a secret field'}`;
}

/**
 * The fields the account holds otherwise than the run left them, by the plan's comparator. A
 * reference the journal holds as an id (its kind was not read by the run) is named as this read
 * names it, so that only a different record is a difference.
 */
export function differencesSinceRun(adapter: KindAdapter, left: Record<string, unknown>, now: Record<string, unknown>, live: LiveState): FieldChange[] {
  const secrets = new Set((adapter.definition?.secretFields ?? []).map((p) => p.join('.')));
  return diffRecord(adapter, namedAsRead(adapter, left, live), namedAsRead(adapter, now, live), secrets);
}

function namedAsRead(adapter: KindAdapter, fields: Record<string, unknown>, live: LiveState): Record<string, unknown> {
  let named: unknown = fields;
  for (const reference of referencesOf(adapter)) {
    const targets = recordsOf(live, reference.target);
    named = mapPath(named, reference.path, (value) => (typeof value === 'number' ? (targets.find((r) => r.id === value)?.identity ?? value) : value));
  }
  return named as Record<string, unknown>;
}
