// The account as read for one run: live records per unit kind, in the manifest's shape.
import type { LiveRecord } from '../kinds/adapter.js';
import type { UnitKind } from '../plan/model.js';

export interface LiveState {
  records: ReadonlyMap<UnitKind, readonly LiveRecord[]>;
  /** Requests spent reading. */
  reads: number;
}
