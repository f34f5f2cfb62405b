// What the read-back after apply saw on earlier runs, per account, in the words of this run: the
// fields the service did not keep (so one that fails again is reported as a field the service does
// not keep, and the planner stops sending it: model/unkept-fields), and the other forms it keeps
// values in (noted the first time only). Where the memory is kept is the state store's business
// (state/: a file beside the run, or the shared backend); this works on one account's memory and
// neither reads nor writes it.
import type { ReadBackCheck } from '../apply/check-convergence.js';
import { describeMiss, describeRestated } from '../apply/check-convergence.js';
import { deepEqual } from '../model/diff-fields.js';
import type { UnkeptField } from '../model/unkept-fields.js';
import { unkeptAfterRuns } from '../model/unkept-fields.js';
import type { AccountReadBack } from '../state/state-store.js';

/** The fields this account's service did not keep on earlier runs, for the planner. */
export function unkeptFields(memory: AccountReadBack): UnkeptField[] {
  return memory.unkept;
}

/**
 * A read-back's findings in the words of what was seen before: a field not kept on an earlier run
 * too is a field the service does not keep; another form already noted is not noted again. The
 * memory is updated (kept fields forgotten, failures counted); save it afterwards when `changed`
 * (a run that saw nothing new writes nothing).
 */
export function recallReadBack(account: AccountReadBack, check: ReadBackCheck): { notConverged: string[]; notes: string[]; changed: boolean } {
  const missed = new Set(check.misses.map((m) => `${m.kind}\u0000${m.key}\u0000${m.path}`));
  const notConverged = [...check.missing];
  const unkept: UnkeptField[] = account.unkept.filter((u) => !missed.has(`${u.kind}\u0000${u.key}\u0000${u.path}`) && !checkedAndKept(check, u));
  for (const miss of check.misses) {
    const before = account.unkept.find((u) => u.kind === miss.kind && u.key === miss.key && u.path === miss.path && deepEqual(u.sent, miss.sent));
    const runs = (before?.runs ?? 0) + 1;
    unkept.push({ kind: miss.kind, key: miss.key, path: miss.path, sent: miss.sent, runs });
    const line = describeMiss(miss);
    notConverged.push(runs >= unkeptAfterRuns ? `${line} — the service does not keep this field (not kept on ${runs} runs); erpsync will not send this value again` : line);
  }
  const changed = check.misses.length > 0 || unkept.length !== account.unkept.length;
  account.unkept = unkept;
  const notes: string[] = [];
  for (const field of check.restated) {
    const seen = `${field.kind} ${field.path}`;
    if (account.restated.includes(seen)) continue;
    account.restated.push(seen);
    notes.push(describeRestated(field));
  }
  return { notConverged, notes, changed: changed || notes.length > 0 };
}

/** A remembered field this read-back wrote and found kept: forgotten. */
function checkedAndKept(check: ReadBackCheck, field: UnkeptField): boolean {
  return check.restated.some((r) => r.kind === field.kind && r.key === field.key && r.path === field.path);
}
