// After apply: did what was written take? Compares every applied change's target values with the
// record as read back. A field the service silently ignores is reported here once, as
// non-convergent, instead of being planned again on every run without anyone noticing.
import type { KindAdapter } from '../kinds/adapter.js';
import type { LiveState } from '../live/model.js';
import { diffFields } from '../plan/diff-fields.js';
import type { ApplyResult } from './apply-plan.js';
import { writePath } from '../model/paths.js';


export function findNonConvergent(result: ApplyResult, live: LiveState, adapters: readonly KindAdapter[]): string[] {
  const problems: string[] = [];
  for (const { change, outcome } of result.outcomes) {
    if (outcome.status !== 'applied' || change.action === 'delete') continue;
    const id = outcome.id ?? change.liveId;
    const record = (live.records.get(change.kind) ?? []).find((r) => r.id === id);
    const subject = `${change.kind} "${change.key}"`;
    if (!record) {
      problems.push(`${subject} is not in the account after ${change.action}`);
      continue;
    }
    let expected: Record<string, unknown> = {};
    for (const field of change.fields) if (!field.sensitive) expected = writePath(expected, field.path.split('.'), field.after);
    const canon = adapters.find((a) => a.kind === change.kind)?.canonicalize ?? ((fields: Record<string, unknown>) => fields);
    const missed = diffFields(canon(expected), canon(record.fields)).map((d) => d.path);
    if (missed.length > 0) problems.push(`${subject}: ${missed.join(', ')} did not take`);
  }
  return problems;
}
