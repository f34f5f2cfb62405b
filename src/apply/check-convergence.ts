// After apply: did what was written take? Compares every applied change's target values with the
// record as read back, the way the planner compared them (the kind's canonical form, the same
// field paths). A field the service silently ignores is reported here once, as non-convergent,
// instead of being planned again on every run without anyone noticing.
import type { KindAdapter } from '../kinds/kind.js';
import { diffFields } from '../model/diff-fields.js';
import type { ApplyResult } from '../model/events.js';
import type { LiveState } from '../model/live.js';
import { writePath } from '../model/paths.js';
import type { Change } from '../model/plan.js';
import { needsReadBack } from '../model/plan.js';

/** What the record must hold after the change: the desired record, or the fields a retirement sets. */
function expectedOf(change: Change): Record<string, unknown> {
  if (change.desired) return change.desired;
  let expected: Record<string, unknown> = {};
  for (const field of change.fields) if (!field.sensitive) expected = writePath(expected, field.path.split('.'), field.after);
  return expected;
}

export function findNonConvergent(result: ApplyResult, live: LiveState, adapters: readonly KindAdapter[]): string[] {
  const problems: string[] = [];
  for (const { change, outcome } of result.outcomes) {
    // A change whose own answer proved it (Change.verify) was not read back, unless that answer was lost (adopted).
    if (outcome.status !== 'applied' || change.action === 'delete' || !(needsReadBack(change) || outcome.adopted === true)) continue;
    const id = outcome.id ?? change.liveId;
    // A record created in a request whose answer was lost has no id known: it is found by its identity.
    const record = (live.records.get(change.kind) ?? []).find((r) => (id === undefined ? r.identity === change.key : r.id === id));
    const subject = `${change.kind} "${change.key}"`;
    if (!record) {
      problems.push(`${subject} is not in the account after ${change.action}`);
      continue;
    }
    // Only the fields this change set: another change of the same record may have failed.
    const paths = new Set(change.fields.filter((f) => !f.sensitive).map((f) => f.path));
    const canon = adapters.find((a) => a.kind === change.kind)?.canonicalize ?? ((fields: Record<string, unknown>) => fields);
    const missed = diffFields(canon(expectedOf(change)), canon(record.fields)).filter((d) => paths.has(d.path)).map((d) => d.path);
    if (missed.length > 0) problems.push(`${subject}: ${missed.join(', ')} did not take`);
  }
  return problems;
}
