// `erpsync backend status` for the postgres backend: the schema's version against this erpsync's,
// and how much of each kind of state the database holds. Counts and names only: no token, no
// journal line, nothing secret is read.
import type { PostgresConnection } from './connect.js';
import { readSchemaVersion, schemaVersion } from './migrations.js';

export interface BackendStatus {
  backend: 'postgres';
  where: string;
  schema: string;
  schemaVersion: number;
  binarySchemaVersion: number;
  counts: { leasesHeld: number; logins: number; journalRuns: number; journalLines: number; driftSnapshots: number; ipHolders: number; readBackAccounts: number; quotaDays: number };
  leases: { key: string; holder: string; renewedAt: string; expired: boolean }[];
  logins: { target: string; baseUrl: string; updatedAt: string; expiresAt: string | null }[];
}

const countOf = async (connection: PostgresConnection, sql: string): Promise<number> => Number((await connection.pool.query<{ n: string }>(sql)).rows[0]?.n ?? 0);

const nothingYet: BackendStatus['counts'] = { leasesHeld: 0, logins: 0, journalRuns: 0, journalLines: 0, driftSnapshots: 0, ipHolders: 0, readBackAccounts: 0, quotaDays: 0 };

export async function readBackendStatus(connection: PostgresConnection): Promise<BackendStatus> {
  const version = await readSchemaVersion(connection);
  const head = { backend: 'postgres' as const, where: connection.where, schema: connection.choice.schema, schemaVersion: version, binarySchemaVersion: schemaVersion };
  // No tables yet (nothing ran against it), or tables this erpsync does not know: counts only where they are ours.
  if (version === 0 || version > schemaVersion) return { ...head, counts: nothingYet, leases: [], logins: [] };
  const s = connection.schema;
  const count = (table: string, where = 'true'): Promise<number> => countOf(connection, `select count(*) as n from ${s}.${table} where ${where}`);
  const leases = await connection.pool.query<{ key: string; owner: { host?: unknown; pid?: unknown; command?: unknown }; renewed_at: Date; expired: boolean }>(
    `select key, owner, renewed_at, renewed_at + lease_ms * interval '1 ms' < now() as expired from ${s}.leases order by key`,
  );
  const logins = await connection.pool.query<{ target: string; base_url: string; updated_at: Date; expires_at: Date | null }>(`select target, base_url, updated_at, expires_at from ${s}.logins order by target, base_url`);
  return {
    ...head,
    counts: {
      leasesHeld: await count('leases', `renewed_at + lease_ms * interval '1 ms' >= now()`),
      logins: logins.rows.length,
      journalRuns: await count('journal_runs'),
      journalLines: await count('journal_lines'),
      driftSnapshots: await count('drift_snapshots'),
      ipHolders: await count('ip_holders'),
      readBackAccounts: await count('read_back'),
      quotaDays: await count('quota_counts'),
    },
    leases: leases.rows.map((row) => ({ key: row.key, holder: describeHolder(row.owner), renewedAt: row.renewed_at.toISOString(), expired: row.expired })),
    logins: logins.rows.map((row) => ({ target: row.target, baseUrl: row.base_url, updatedAt: row.updated_at.toISOString(), expiresAt: row.expires_at?.toISOString() ?? null })),
  };
}

/** A lease's owner as stored, checked before it is shown (it is evidence, not truth). */
function describeHolder(owner: { host?: unknown; pid?: unknown; command?: unknown } | null): string {
  const text = (value: unknown): string => (typeof value === 'string' || typeof value === 'number' ? String(value).slice(0, 80) : '?');
  return owner ? `${text(owner.command)} (pid ${text(owner.pid)} on ${text(owner.host)})` : '?';
}
