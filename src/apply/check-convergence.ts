// After apply: did what was written take? Compares every applied change's written values with the
// record as read back, by meaning, the way the planner compared them (kinds/compare-records: the
// kind's canonical form, each field by its type). A field the service did not keep fails the run,
// named with what was sent and what the account holds, instead of being planned again on every
// run without anyone noticing; a field it keeps in another form that means the same (a code with
// its dots, money as float32) is noted once, and is no change. It reads nothing itself.
import type { KindAdapter } from '../kinds/kind.js';
import { diffRecord, restatedInRecord } from '../kinds/compare-records.js';
import type { ApplyResult } from '../model/events.js';
import type { LiveState } from '../model/live.js';
import { writePath } from '../model/paths.js';
import type { Change } from '../model/plan.js';
import { needsReadBack } from '../model/plan.js';

/** A written field the account does not hold as sent. */
export interface FieldMiss {
  kind: Change['kind'];
  key: string;
  path: string;
  sent: unknown;
  stored: unknown;
}

export interface ReadBackCheck {
  /** The ids of the changes whose write was not kept (their record missing, or a field): the journal's verdict. */
  notKept: string[];
  /** Records missing after their write: each a line that fails the run. */
  missing: string[];
  /** Written fields not kept: each fails the run too (describeMiss). */
  misses: FieldMiss[];
  /** Fields kept in another form that means the same, with both forms. */
  restated: FieldMiss[];
}

/** What the record must hold after the change: the desired record, or the fields a retirement sets. */
function expectedOf(change: Change): Record<string, unknown> {
  if (change.desired) return change.desired;
  let expected: Record<string, unknown> = {};
  for (const field of change.fields) if (!field.sensitive) expected = writePath(expected, field.path.split('.'), field.after);
  return expected;
}

/** A value as a message shows it. */
export function showValue(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value);
}

export function checkReadBack(result: ApplyResult, live: LiveState, adapters: readonly KindAdapter[]): ReadBackCheck {
  const check: ReadBackCheck = { notKept: [], missing: [], misses: [], restated: [] };
  for (const { change, outcome } of result.outcomes) {
    if (outcome.status !== 'applied' || !needsReadBack(change)) continue;
    // A create carried in another's request (services in their logistics' create) has no id of its own: found by identity.
    const id = outcome.id ?? change.liveId;
    const records = live.records.get(change.kind) ?? [];
    const record = id === undefined ? records.find((r) => r.identity === change.key) : records.find((r) => r.id === id);
    const subject = `${change.kind} "${change.key}"`;
    if (!record) {
      check.missing.push(`${subject} is not in the account after ${change.action}`);
      check.notKept.push(change.id);
      continue;
    }
    // Only the fields this change wrote: another change of the same record may have failed.
    const written = (path: string) => change.fields.some((f) => !f.sensitive && (path === f.path || path.startsWith(`${f.path}.`) || f.path.startsWith(`${path}.`)));
    const adapter = adapters.find((a) => a.kind === change.kind) ?? {};
    const expected = expectedOf(change);
    const misses = diffRecord(adapter, expected, record.fields).filter((d) => written(d.path));
    for (const miss of misses) check.misses.push({ kind: change.kind, key: change.key, path: miss.path, sent: miss.after, stored: miss.before });
    if (misses.length > 0) check.notKept.push(change.id);
    for (const same of restatedInRecord(adapter, expected, record.fields).filter((d) => written(d.path))) {
      check.restated.push({ kind: change.kind, key: change.key, path: same.path, sent: same.after, stored: same.before });
    }
  }
  return check;
}

/** The line that fails a run for a field not kept. */
export function describeMiss(field: FieldMiss): string {
  return `${field.kind} "${field.key}": ${field.path} was not kept: sent ${showValue(field.sent)}, the account holds ${showValue(field.stored)}`;
}

/** Every line that fails the run, and every note, as a check without memory of earlier runs words them. */
export function describeReadBack(check: ReadBackCheck): { notConverged: string[]; notes: string[] } {
  return { notConverged: [...check.missing, ...check.misses.map(describeMiss)], notes: check.restated.map(describeRestated) };
}

/** The note a restated field gets: the form the service keeps for the form sent. */
export function describeRestated(field: FieldMiss): string {
  return `the account holds ${showValue(field.stored)} where the manifest has ${showValue(field.sent)} (${field.kind} "${field.key}" ${field.path}); they mean the same, so it is no change`;
}
