// What one store's run is told by the command line: read once from the flags (src/cli), then handed
// whole to the per-store workflow — by a single target, by a saved plan and by every store of a
// fleet alike. Every key is required (an absent flag is `undefined` or its default, never a
// missing key), so a caller that builds settings of its own without an option fails to compile,
// and the fleet passes this object through untouched instead of building one.
import type { Selection } from '../model/selection.js';

/** What a plan decides; a saved plan carries these decisions instead, and refuses them as flags. */
export interface PlanSettings {
  allowReplace: boolean;
  /** Plan the deletes and changes of undeclared records that name a removed one (--allow-cascade). */
  allowCascade: boolean;
  /** The delete budget of this run (--max-deletes); undefined: policy.maxDeletes or the default. */
  maxDeletes: number | undefined;
  /** A targeted run (--only / --exclude). */
  selection: Selection | undefined;
  /** The day policy.ignore rules are checked on (YYYY-MM-DD). */
  today: string;
}

/** How apply runs a plan. */
export interface ApplySettings {
  autoApprove: boolean;
  concurrency: number;
  lockTimeoutMs: number;
  /** How long a create of unknown outcome may still commit before it may be sent again. */
  outcomeWindowMs: number;
}

export interface DriftSettings {
  includeBuiltin: boolean;
  /** The git revision last applied (--baseline). */
  baseline: string | undefined;
  /** Write the account's values of modified fields into the manifest files. */
  adopt: boolean;
}

export interface StoreSettings {
  plan: PlanSettings;
  apply: ApplySettings;
  drift: DriftSettings;
  /** How long one store of a fleet may take before it is stopped and reported as failed (timeout). */
  storeTimeoutMs: number;
  /** plan: exit 2 when there are changes (--detailed-exitcode). */
  detailedExitCode: boolean;
  /** Trace every request on stderr. */
  debug: boolean;
}

/** The options a saved plan carries itself: given again as flags, they are refused, for one store as for a fleet. */
export function describePlanOptionsGiven(plan: PlanSettings): string[] {
  return [
    ...(plan.maxDeletes !== undefined ? ['--max-deletes'] : []),
    ...(plan.allowReplace ? ['--allow-replace'] : []),
    ...(plan.allowCascade ? ['--allow-cascade'] : []),
    ...(plan.selection !== undefined ? ['--only/--exclude'] : []),
  ];
}
