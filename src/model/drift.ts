import type { AccountIdentity } from './account.js';
import type { IgnoreRule } from './desired.js';
import type { ExitCode } from './errors.js';
import type { ChangeAction, PlanTarget } from './plan.js';
import type { UnitKind } from './kinds.js';
// The drift report: what findDrift decides and the drift reporters (text, JSON, markdown, JUnit)
// render. Plain data, JSON-serializable; `--json` prints it as is.

/**
 * - `modified`: the account differs from what the manifests declare (changed in the ERP).
 * - `missing`: declared, not in the account (deleted in the ERP, or never applied).
 * - `unmanaged`: in the account, in a kind the manifests manage, named by no manifest.
 * - `pending`: the manifests changed and the change is not applied yet (see DriftReport.pendingBasis).
 */
export type FindingType = 'modified' | 'missing' | 'unmanaged' | 'pending';

export const findingTypes: readonly FindingType[] = ['modified', 'missing', 'pending', 'unmanaged'];

export interface DriftField {
  /** Dot path of the field, e.g. `taxas.aliquota`. */
  path: string;
  /** What the manifests declare. */
  manifest: unknown;
  /** What the account holds. */
  account: unknown;
  /** A secret: neither value is shown, only that they differ. */
  sensitive?: boolean;
}

export interface DriftFinding {
  type: FindingType;
  kind: UnitKind;
  /** Identity of the record: path of names, e.g. `Despesas administrativas > Aluguel`. */
  key: string;
  liveId?: number;
  /** Field by field, for modified and pending records; empty otherwise. */
  fields: DriftField[];
  /** What `erpsync apply` would do about it; empty when it would do nothing (an unmanaged record of a kind not pruned). */
  actions: ChangeAction[];
  note?: string;
  /** Unmanaged records: YAML in the manifest language, ready to paste. */
  snippet?: string;
  /** Who made the account's value, from the journal (drift/attribute-drift); absent without a journal. */
  attribution?: DriftAttribution;
}

/**
 * - `erpsync`: the account holds what that run wrote (the manifests moved on since);
 * - `erp`: changed in the ERP since that run, the last one that touched the record;
 * - `never-applied`: no run of the journal touched the record.
 */
export interface DriftAttribution {
  by: 'erpsync' | 'erp' | 'never-applied';
  /** The last run that touched the record, and when it started. */
  run?: string;
  at?: string;
}

export type ManagedStatus = 'in-sync' | 'drifted' | 'ignored';

/** A record some manifest declares (or a unit nested in one). */
export interface ManagedRecord {
  kind: UnitKind;
  key: string;
  liveId?: number;
  /** `absent` for a tombstone (`ensure: absent`). */
  ensure: 'present' | 'absent';
  status: ManagedStatus;
  /** The reason of the ignore rule, for an ignored record. */
  ignoredBecause?: string;
}

export interface IgnoredCount {
  rule: IgnoreRule;
  /** Findings and field differences the rule kept out of the report. */
  count: number;
}

/**
 * How `pending` was told apart from `modified`/`missing`:
 * - `manifest-intent`: no baseline; only renames (previousNames) and removals (ensure: absent)
 *   are known to come from the manifests, every other difference is reported as modified or missing.
 * - `baseline`: compared with the manifests at a git revision that is known to be applied.
 */
export type PendingBasis = 'manifest-intent' | 'baseline';

export interface DriftSummary {
  managed: number;
  inSync: number;
  modified: number;
  missing: number;
  unmanaged: number;
  pending: number;
  /** Findings and field differences policy.ignore kept out. */
  ignored: number;
  /** Records the account itself owns or starts with, not reported as unmanaged. */
  accountOwn: number;
}

export interface DriftReport {
  formatVersion: 1;
  target: PlanTarget;
  manifestDigest: string;
  pendingBasis: PendingBasis;
  /** The git revision pending changes were measured against. */
  baseline?: { ref: string; digest: string };
  /** Unit kinds read completely for this report. */
  kinds: UnitKind[];
  /** Whether the account's own records were reported as unmanaged too (--include-builtin). */
  includeBuiltin: boolean;
  summary: DriftSummary;
  findings: DriftFinding[];
  managed: ManagedRecord[];
  ignored: IgnoredCount[];
  /** Requests spent reading the account. */
  reads: number;
  warnings: string[];
}

/** Whether the report shows drift (exit 2). */
export function hasDrift(report: DriftReport): boolean {
  return report.findings.length > 0;
}

/** One store of a fleet drift: its report, or why it has none (`drift --all-targets --json` lists them under `stores`). */
export interface FleetDriftStore {
  target: string;
  /** Absent when the store failed before its account could be read. */
  account?: AccountIdentity;
  /** Who owns the store: the config's `owners` (its own, then its groups'). */
  owners: string[];
  /** Absent when the store failed: its manifests had errors, or the account could not be read. */
  report?: DriftReport;
  error?: string;
  exitCode: ExitCode;
}

/**
 * A drifted record as a drift snapshot keeps it for the dashboard: what it is, which fields differ
 * (paths, no values) and who made the account's value. Bounded (drift/summarize-drift.ts), as a
 * snapshot holds every store of a fleet and is kept for months.
 */
export interface DriftedRecord {
  type: FindingType;
  kind: string;
  key: string;
  fields: string[];
  /** Fields beyond those kept in `fields`. */
  fieldsLeftOut?: number;
  attribution?: DriftAttribution;
}

/** How much of a store's drift a snapshot keeps: the summary writes no more, and a read-back holding more is not trusted. */
export const driftSnapshotLimits = { records: 25, fields: 20, textLength: 300 } as const;

/**
 * A store's row of a fleet drift snapshot (StateStore.driftResults). `drifted` and `driftedLeftOut`
 * came with the notifications (issue 35): snapshots taken before have neither, and read the same.
 */
export interface DriftSnapshotRow {
  target: string;
  /** Findings: drifted records (modified, missing, pending, unmanaged). */
  changes: number;
  error?: string;
  owners?: string[];
  /** The first drifted records, in the report's order. */
  drifted?: DriftedRecord[];
  /** Drifted records beyond those kept in `drifted`. */
  driftedLeftOut?: number;
  [key: string]: unknown;
}
