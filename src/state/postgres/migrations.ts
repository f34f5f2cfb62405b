// The postgres backend's schema, versioned. `migrate` runs every step this erpsync knows and the
// database lacks, in one transaction under an advisory lock, so runners that start at once apply
// each step once (the others wait, then find nothing to do); a database whose schema is newer
// than this erpsync is refused — an older binary must not write tables it does not understand.
// A step is never edited once released: a change is a new step.
import { ErpsyncError } from '../../model/errors.js';
import type { PostgresConnection } from './connect.js';

/** The advisory lock every migration takes (an arbitrary constant: "erps" in ASCII). */
const migrationLock = 0x65727073;

export interface Migration {
  version: number;
  name: string;
  sql: (schema: string) => string;
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'leases, logins, the IP budget, the journal, drift results, read-back memory, request counts',
    sql: (s) => `
      create sequence ${s}.lease_tokens;
      create table ${s}.leases (
        key text primary key,
        token bigint not null,
        owner jsonb not null,
        renewed_at timestamptz not null,
        lease_ms integer not null check (lease_ms > 0)
      );
      create table ${s}.logins (
        target text not null,
        base_url text not null,
        version bigint not null,
        sealed bytea not null,
        expires_at timestamptz,
        scope text,
        updated_at timestamptz not null default now(),
        primary key (target, base_url)
      );
      create table ${s}.ip_holders (
        egress text not null,
        holder text not null,
        host text not null,
        pid integer not null,
        saved_at bigint not null,
        requests bigint[] not null default '{}',
        errors bigint[] not null default '{}',
        token_calls bigint[] not null default '{}',
        seen_at timestamptz not null default now(),
        primary key (egress, holder)
      );
      create table ${s}.journal_runs (
        run text primary key,
        target text not null,
        account_id text,
        started_at timestamptz not null,
        git_revision text,
        runner text,
        actor jsonb,
        lines integer not null default 0,
        ended boolean not null default false,
        last_hash text,
        updated_at timestamptz not null default now()
      );
      create index on ${s}.journal_runs (target, started_at);
      create table ${s}.journal_lines (
        run text not null references ${s}.journal_runs (run),
        seq integer not null,
        line text not null check (octet_length(line) <= 1048576),
        primary key (run, seq)
      );
      create table ${s}.drift_snapshots (
        id bigserial primary key,
        at timestamptz not null,
        runner text,
        git_revision text,
        rows jsonb not null
      );
      create index on ${s}.drift_snapshots (at);
      create table ${s}.read_back (
        account_id text primary key,
        memory jsonb not null,
        updated_at timestamptz not null default now()
      );
      create table ${s}.quota_counts (
        account_id text not null,
        day text not null,
        sent bigint not null default 0,
        spent boolean not null default false,
        primary key (account_id, day)
      );
      create table ${s}.quota_targets (
        target_key text primary key,
        account_id text not null
      );
    `,
  },
];

export const schemaVersion = Math.max(...migrations.map((m) => m.version));

/** The schema's version in the database: 0 when erpsync has not made it yet. */
export async function readSchemaVersion(connection: PostgresConnection): Promise<number> {
  const exists = await connection.pool.query<{ present: boolean }>(`select to_regclass($1) is not null as present`, [`${connection.schema}.schema_versions`]);
  if (!exists.rows[0]?.present) return 0;
  const found = await connection.pool.query<{ version: number | null }>(`select max(version) as version from ${connection.schema}.schema_versions`);
  return Number(found.rows[0]?.version ?? 0);
}

/** Brings the schema up to this erpsync's version; what it applied, by version (none when current). */
export async function migrate(connection: PostgresConnection): Promise<number[]> {
  const refuseNewer = (found: number): void => {
    if (found > schemaVersion) {
      throw new ErpsyncError('BACKEND_SCHEMA', `the backend's schema at ${connection.where} is version ${found}, newer than this erpsync knows (${schemaVersion}); nothing was written`, {
        details: ['upgrade erpsync on this runner to the version the other runners use'],
      });
    }
  };
  const before = await readSchemaVersion(connection);
  refuseNewer(before);
  if (before === schemaVersion) return [];
  const client = await connection.pool.connect();
  const s = connection.schema;
  try {
    await client.query('begin');
    await client.query('select pg_advisory_xact_lock($1)', [migrationLock]);
    await client.query(`create schema if not exists ${s}`);
    await client.query(`create table if not exists ${s}.schema_versions (version integer primary key, name text not null, applied_at timestamptz not null default now())`);
    const found = await client.query<{ version: number | null }>(`select max(version) as version from ${s}.schema_versions`);
    const current = Number(found.rows[0]?.version ?? 0);
    refuseNewer(current);
    const applied: number[] = [];
    for (const step of migrations.filter((m) => m.version > current)) {
      await client.query(step.sql(s));
      await client.query(`insert into ${s}.schema_versions (version, name) values ($1, $2)`, [step.version, step.name]);
      applied.push(step.version);
    }
    await client.query('commit');
    return applied;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
