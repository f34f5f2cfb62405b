// The postgres backend's drift results: one row per fleet drift in `drift_snapshots`, appended
// with the runner and git revision that took it, read back by any machine (the dashboard). Each
// row is checked for the snapshot's shape as the local files are (state/read-checks); a row that
// fails is skipped. It decides nothing and prints nothing.
import { instantOf } from '../local/drift-results.js';
import { driftSnapshotOf } from '../read-checks.js';
import type { DriftResultStore, DriftSnapshot } from '../state-store.js';
import { queryBackend } from './backend-error.js';
import type { PostgresConnection } from './connect.js';

export function postgresDriftResults(connection: PostgresConnection, context: { runner?: string; gitRevision?: string }): DriftResultStore {
  const s = connection.schema;
  return {
    async record(snapshot) {
      const at = instantOf(snapshot.at, 'the snapshot time');
      await queryBackend(connection, 'recording the drift results', `insert into ${s}.drift_snapshots (at, runner, git_revision, rows) values ($1, $2, $3, $4::jsonb)`, [
        at,
        context.runner ?? null,
        context.gitRevision ?? null,
        JSON.stringify(snapshot.rows),
      ]);
    },
    async list(since) {
      const start = instantOf(since, 'the start of the drift results asked for');
      const rows = await queryBackend<{ at: unknown; rows: unknown }>(connection, 'reading the drift results', `select at, rows from ${s}.drift_snapshots where at >= $1 order by at, id`, [start]);
      return rows.flatMap((row): DriftSnapshot[] => {
        const snapshot = row.at instanceof Date ? driftSnapshotOf({ at: row.at.toISOString(), rows: row.rows }) : undefined;
        return snapshot ? [snapshot] : [];
      });
    },
  };
}
