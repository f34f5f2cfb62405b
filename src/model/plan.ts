// The Plan: what buildPlan decides and applyPlan executes. Plain data, JSON-serializable, so a
// saved plan file is exactly what runs later. Every safety decision travels in it — what counts
// as a removal, the delete budget and whether it is exceeded, the renames, and what each change
// depends on in the account — so no later stage decides any of them again.
import type { AccountIdentity } from './account.js';
import type { UnitKind } from './kinds.js';

export const changeActions = ['create', 'update', 'set-status', 'set-default', 'delete', 'retire', 'blocked'] as const;
export type ChangeAction = (typeof changeActions)[number];

export const changeReasons = [
  'missing', // declared, not in the account
  'drift', // declared, differs from the account
  'rename', // found under one of its previousNames
  'tombstone', // ensure: absent
  'prune', // owned kind, not declared
  'replace', // cannot be changed in place (re-parenting a product category), replaced on request
  'cascade', // names a record the plan removes, declared nowhere: removed or changed with it on request (--allow-cascade)
  'built-in', // the account's own record: never deleted or changed
  'protected', // protect: true
  'not-supported', // the API cannot make this change
] as const;
export type ChangeReason = (typeof changeReasons)[number];

/**
 * What a change does to the set of records in the account:
 * - `none`: the record stays (creates, updates, blocked changes);
 * - `removal`: a record leaves the account (deleted or retired) and counts against the delete budget;
 * - `replacement`: the delete half of a delete + create the user asked for (--allow-replace); the
 *   record comes back in the same plan, so it does not count against the budget.
 */
export type RemovalClass = 'none' | 'removal' | 'replacement';

export interface FieldChange {
  /** Dot path of the field, e.g. `taxas.aliquota`. */
  path: string;
  before: unknown;
  after: unknown;
  /** Secret: the values are never shown or saved, only that they differ. */
  sensitive?: boolean;
}

/** A live record a change relies on, as it was when the plan was made. */
export interface RecordPrecondition {
  type: 'record';
  /** `self`: the record the change acts on; `parent`/`reference`: a record it names. */
  role: 'self' | 'parent' | 'reference';
  kind: UnitKind;
  id: number;
  identity: string;
  /** Hash of the record as read (see model/fingerprint). */
  fingerprint: string;
  /** Whether the fingerprint covers the record's detail (detail-only fields): a re-check reads it too. */
  detail: boolean;
}

/** A create relies on its identity still being free: otherwise it would duplicate a record. */
export interface AbsencePrecondition {
  type: 'absent';
  kind: UnitKind;
  identity: string;
}

/** A removal relies on the records inside the removed one being exactly those it knew of. */
export interface ChildrenPrecondition {
  type: 'children';
  kind: UnitKind;
  /** Identity of the record being removed. */
  parent: string;
  /** Unit kinds whose records can sit inside it (the kind itself for trees, nested kinds). */
  childKinds: UnitKind[];
  /** The records inside it when the plan was made (all of them planned for removal too). */
  children: { kind: UnitKind; id: number }[];
}

/**
 * A removal relies on the records of other kinds that name the removed one being exactly those it
 * knew of (each removed or changed by the plan before it): a record that names it since would be
 * removed or left naming nothing by the service. The places a name can sit are carried, so a
 * re-check reads them without asking the kinds again.
 */
export interface ReferrersPrecondition {
  type: 'referrers';
  /** The record being removed. */
  kind: UnitKind;
  id: number;
  identity: string;
  /** Where records can name it: a unit kind and the path of the field (`*` for each item of a list). */
  namedBy: { kind: UnitKind; path: string[] }[];
  /** The records naming it when the plan was made. */
  referrers: { kind: UnitKind; id: number }[];
}

export type Precondition = RecordPrecondition | AbsencePrecondition | ChildrenPrecondition | ReferrersPrecondition;

export interface Change {
  /** Stable within a plan, unique, opaque: never parsed back into its parts. */
  id: string;
  action: ChangeAction;
  kind: UnitKind;
  /** Identity of the record: path of names, e.g. `Despesas administrativas > Aluguel`. */
  key: string;
  /** Id of the live record the change acts on; absent for creates. */
  liveId?: number;
  reason: ChangeReason;
  /** Decided by buildPlan (classifyRemoval); everyone else reads it. */
  removal: RemovalClass;
  fields: FieldChange[];
  /**
   * What the record must look like after the change (manifest shape: API field names, codes,
   * references as identities). Secret values are left out of saved plans.
   */
  desired?: Record<string, unknown>;
  /** Secret field (dot path) → environment variable; saved plans hold the name, never the value. */
  secrets?: Record<string, string>;
  /** Changes that must succeed first (parents, referenced records). */
  dependsOn: string[];
  /** What in the account this change relies on; a saved plan re-checks exactly these. */
  requires: Precondition[];
  /** 1-based execution wave; all changes of a wave may run concurrently. */
  wave: number;
  /** Why a change is blocked or special, in words. */
  note?: string;
  /**
   * How apply learns that the change took, decided when planning: `answer` for a delete (its
   * success answer is the proof), `read-back` when the record is read again after the writes by
   * its kind's usual read, `read-by-id` when by its id alone (cheaper for that kind in this plan).
   * Absent (plans saved before this existed): read back.
   */
  verify?: 'answer' | 'read-back' | 'read-by-id';
  /**
   * Ids of other changes this change's request also carries (services nested in the create of
   * their logistics, a batch of service creates, a bulk delete): apply sends one request for all,
   * and each carried change gets its own outcome from the answer. Decided when planning (plan/plan-requests).
   */
  carries?: string[];
  /** The change whose request carries this one; apply sends nothing of its own for it. */
  carriedBy?: string;
}

export interface PlanTarget {
  mode: 'sandbox' | 'remote';
  /** The base URL, or `sandbox:<state file>`: a saved plan applies only to the target it was made for. */
  id: string;
  name: string;
  /** The company the plan was made on: a saved plan applies only to this account (ACCOUNT_MISMATCH). */
  account: AccountIdentity;
}

/** The delete budget, decided when planning: apply refuses a plan whose budget is exceeded. */
export interface PlanBudget {
  /** Records the plan may delete or retire. */
  limit: number;
  source: 'flag' | 'policy' | 'default';
  /** Changes whose removal class is `removal`. */
  removals: number;
  exceeded: boolean;
}

/** A live record that this plan gives a new identity (renamed, or under a renamed parent). */
export interface PlanRename {
  kind: UnitKind;
  liveId: number;
  from: string;
  to: string;
}

/**
 * What a targeted run (--only / --exclude) selected. Its presence makes the plan partial: changes
 * outside the selection were left out on purpose, so an empty targeted plan does not mean the
 * account matches the manifests.
 */
export interface PlanSelection {
  /** `KIND[/IDENTITY]` patterns (globs); empty selects every change. */
  only: string[];
  /** `KIND[/IDENTITY]` patterns (globs) left out, unless a selected change depends on them. */
  exclude: string[];
  /** Ids of changes outside the selection that were added because a selected change depends on them. */
  addedDependencies: string[];
}

/** A git commit, and whether the files it is taken for had uncommitted changes. */
export interface GitRevision {
  revision: string;
  dirty: boolean;
}

/**
 * Where a saved plan was made (`plan --out`): apply checks the checkout's manifests against the
 * plan's digest before anything is read, and journals the commit. Absent in a plan that was not
 * saved, and in plans saved before erpsync recorded it.
 */
export interface PlanOrigin {
  /** The manifest paths given to plan; empty: the target's own `manifests` (or the working folder). */
  manifests: string[];
  /** The git commit of those manifests when the plan was made; null outside git. */
  git: GitRevision | null;
  /** `--from-target`: the template store whose account the plan copies (there are no manifests then). */
  template?: string;
}

export interface Plan {
  formatVersion: 2;
  target: PlanTarget;
  manifestDigest: string;
  origin?: PlanOrigin;
  /** Kinds whose live records were read for this plan. */
  kinds: UnitKind[];
  /** Present only on a targeted (partial) plan. */
  selection?: PlanSelection;
  changes: Change[];
  budget: PlanBudget;
  renames: PlanRename[];
  warnings: string[];
  cost: PlanCost;
}

export interface PlanCost {
  /** Requests spent reading the account for this plan. */
  reads: number;
  /** Write requests the plan will send (batched changes share one). */
  writes: number;
  /**
   * Requests apply spends reading back what it wrote (changes whose answer proves them are not
   * read); absent in plans saved before it was counted.
   */
  verifyReads?: number;
  /** Seconds the writes and the read-back take at the configured rate. */
  seconds: number;
  rate: number;
}

/** The one answer to "is this change a removal?"; buildPlan stores it in every change. */
export function classifyRemoval(action: ChangeAction, reason: ChangeReason): RemovalClass {
  if (action !== 'delete' && action !== 'retire') return 'none';
  return reason === 'replace' ? 'replacement' : 'removal';
}

/** Whether a change takes a record out of the account (deleted or retired), replacements included. */
export function removesRecord(change: Pick<Change, 'removal'>): boolean {
  return change.removal !== 'none';
}

/** Whether a change counts against the delete budget. */
export function countsAgainstBudget(change: Pick<Change, 'removal'>): boolean {
  return change.removal === 'removal';
}

/** Whether apply sends anything for the change (blocked changes are shown, never sent). */
export function isActionable(change: Pick<Change, 'action'>): boolean {
  return change.action !== 'blocked';
}

/** Changes apply never sends (and names, failing the apply): the plan says why in each one's note. */
export function blockedChanges(plan: Pick<Plan, 'changes'>): Change[] {
  return plan.changes.filter((change) => !isActionable(change));
}

/** Changes apply would send. */
export function actionableChanges(plan: Pick<Plan, 'changes'>): Change[] {
  return plan.changes.filter(isActionable);
}

/** Whether apply reads the change's record back after the writes (Change.verify). */
export function needsReadBack(change: Pick<Change, 'action' | 'verify'>): boolean {
  return isActionable(change) && change.verify !== 'answer';
}
