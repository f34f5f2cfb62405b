// The comparison of two stores (or a folder of manifests and a store): what `erpsync compare`
// finds and its reporters (text, JSON, markdown) render. Plain data, JSON-serializable. The left
// side is the reference, the right side the store compared with it.
import type { AccountIdentity } from './account.js';
import type { UnitKind } from './kinds.js';

/**
 * - `differs`: both sides have the record (matched by identity), some fields differ.
 * - `only-left`: the left side has it, the right does not.
 * - `only-right`: the right side has it, the left does not (the account's own records as the
 *   account made them are left out on both sides, as export leaves them out).
 */
export type CompareStatus = 'differs' | 'only-left' | 'only-right';

export interface CompareField {
  path: string;
  left: unknown;
  right: unknown;
  /** A secret: neither value is shown, only that they differ. */
  sensitive?: boolean;
}

export interface CompareRecord {
  kind: UnitKind;
  /** Identity of the record (path of names), the same on both sides. */
  key: string;
  status: CompareStatus;
  /** Field by field, for `differs`. */
  fields: CompareField[];
}

export interface CompareSideInfo {
  /** A target of the config (or `default` / `sandbox`). */
  target?: string;
  account?: AccountIdentity;
  /** A folder (or files) of manifests. */
  manifests?: string[];
}

export interface CompareReport {
  formatVersion: 1;
  left: CompareSideInfo;
  right: CompareSideInfo;
  summary: { compared: number; same: number; differs: number; onlyLeft: number; onlyRight: number };
  records: CompareRecord[];
}

export function storesDiffer(report: CompareReport): boolean {
  return report.records.length > 0;
}
