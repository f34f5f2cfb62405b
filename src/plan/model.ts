// The Plan: what buildPlan decides and applyPlan executes. Plain data, JSON-serializable, so a
// saved plan file is exactly what runs later.
import type { KindKey } from '../kinds/kind.js';

export type ChangeAction = 'create' | 'update' | 'set-status' | 'set-default' | 'delete' | 'retire' | 'blocked';

export type ChangeReason =
  | 'missing' // declared, not in the account
  | 'drift' // declared, differs from the account
  | 'rename' // found under one of its previousNames
  | 'tombstone' // ensure: absent
  | 'prune' // owned kind, not declared
  | 'replace' // cannot be changed in place (re-parenting a product category), replaced on request
  | 'built-in' // the account's own record: never deleted or changed
  | 'protected' // protect: true
  | 'not-supported'; // the API cannot make this change

export interface FieldChange {
  /** Dot path of the field, e.g. `taxas.aliquota`. */
  path: string;
  before: unknown;
  after: unknown;
  /** Secret: the values are never shown or saved, only that they differ. */
  sensitive?: boolean;
}

/** A unit the plan works on: a manifest kind, or a record nested in one (a logistics service). */
export type UnitKind = KindKey | 'logisticasServicos';

export interface Change {
  /** Stable within a plan: `<kind>:<key>:<action>`. */
  id: string;
  action: ChangeAction;
  kind: UnitKind;
  /** Identity of the record: path of names, e.g. `Despesas administrativas > Aluguel`. */
  key: string;
  /** Id of the live record the change acts on; absent for creates. */
  liveId?: number;
  reason: ChangeReason;
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
  /** 1-based execution wave; all changes of a wave may run concurrently. */
  wave: number;
  /** Why a change is blocked or special, in words. */
  note?: string;
}

export interface PlanTarget {
  mode: 'sandbox' | 'remote';
  /** The base URL, or `sandbox:<state file>`: a saved plan applies only to the target it was made for. */
  id: string;
  name: string;
}

export interface Plan {
  formatVersion: 1;
  target: PlanTarget;
  manifestDigest: string;
  /** Kinds whose live records were read for this plan. */
  kinds: UnitKind[];
  changes: Change[];
  /** `<kind>:<liveId>` → fingerprint of the live record as read, for every record a change depends on. */
  fingerprints: Record<string, string>;
  /** Identities that must still be absent for the creates to be valid: `<kind>:<key>`. */
  absent: string[];
  warnings: string[];
  cost: PlanCost;
}

export interface PlanCost {
  /** Requests spent reading the account for this plan. */
  reads: number;
  /** Write requests the plan will send. */
  writes: number;
  /** Seconds the writes take at the configured rate. */
  seconds: number;
  rate: number;
}
