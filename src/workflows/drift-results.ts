// What a drift run comes to beyond its output: each store as the drift reporters and notifications
// take it (its report or why it has none, its account, its owners from the config), and a fleet's
// snapshot kept for the dashboard in the state store every runner shares — each store's counts and
// its drifted records, fields and attribution (drift/summarize-drift). Prints nothing.
import { ownersOf } from '../api/index.js';
import type { TargetsConfig } from '../api/index.js';
import { summarizeDrift } from '../drift/summarize-drift.js';
import type { DriftSnapshotRow, FleetDriftStore } from '../model/drift.js';
import type { ExitCode } from '../model/errors.js';
import type { RunIO } from '../model/run-io.js';
import { stateStoreFor } from '../target/run-state.js';
import { backendChoiceOf } from '../target/resolve-target.js';
import type { FleetStore } from './fleet-workflow.js';
import type { StoreResult } from './store-workflow.js';

/** A store's drift as the reporters take it: `result` when it ran, `error` when it stopped or its manifests had errors. */
export function driftStoreOf(target: string, config: TargetsConfig | undefined, outcome: { result?: StoreResult; error?: string; exitCode: ExitCode }): FleetDriftStore {
  const { result, error, exitCode } = outcome;
  const account = result?.opened?.account;
  const report = result?.status === 'drift' ? result.report : undefined;
  return { target, ...(account ? { account } : {}), owners: ownersOf(config, target), ...(report ? { report } : {}), ...(error !== undefined ? { error } : {}), exitCode };
}

export function fleetDriftStores(stores: readonly FleetStore[], config: TargetsConfig | undefined): FleetDriftStore[] {
  return stores.map((store) => ({
    ...driftStoreOf(store.name, config, { ...(store.result ? { result: store.result } : {}), ...(store.row.error !== undefined ? { error: store.row.error } : {}), exitCode: store.row.exitCode }),
    // The table's account: a store that failed after naming its account keeps it.
    ...(store.row.account ? { account: store.row.account } : {}),
  }));
}

/** A store's row of a drift snapshot: its counts, owners and its drifted records as a snapshot keeps them. */
export function snapshotRowOf(store: FleetDriftStore): DriftSnapshotRow {
  return {
    target: store.target,
    changes: store.report?.findings.length ?? 0,
    ...(store.error === undefined ? {} : { error: store.error }),
    ...(store.owners.length > 0 ? { owners: store.owners } : {}),
    ...(store.report ? summarizeDrift(store.report) : {}),
  };
}

/** A fleet drift kept over time for the dashboard, in the backend every runner shares (or .erpsync/drift-results). */
export async function recordDriftSnapshot(stores: readonly FleetDriftStore[], config: TargetsConfig | undefined, io: RunIO, at: string): Promise<void> {
  const state = await stateStoreFor(backendChoiceOf(config, io.env), io);
  await state.driftResults.record({ at, rows: stores.map(snapshotRowOf) });
}
