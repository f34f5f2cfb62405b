// Fields the service did not keep when erpsync wrote them, remembered across runs (the apply
// workflow keeps them in .erpsync/read-back.json, per account). A field that failed its read-back
// on two runs with the same value is "a field the service does not keep": the planner stops
// sending it — until the manifest asks for another value — and says so, instead of re-sending it
// on every run.
import { deepEqual } from './diff-fields.js';
import type { UnitKind } from './kinds.js';
import type { FieldChange } from './plan.js';

export interface UnkeptField {
  kind: UnitKind;
  /** The record's identity. */
  key: string;
  /** The field's path, as the plan shows it. */
  path: string;
  /** The value sent (the manifest's, in the kind's comparable form). */
  sent: unknown;
  /** Runs whose read-back found it not kept. */
  runs: number;
}

/** Runs after which a field is taken as one the service does not keep. */
export const unkeptAfterRuns = 2;

/** The remembered field a difference would send again in vain, if any. */
export function findUnkept(unkept: readonly UnkeptField[] | undefined, kind: UnitKind, key: string, difference: FieldChange): UnkeptField | undefined {
  return unkept?.find((u) => u.runs >= unkeptAfterRuns && u.kind === kind && u.key === key && u.path === difference.path && deepEqual(u.sent, difference.after));
}
