// `erpsync backend`: operating the state store's backend — bring its schema up to date, say what
// it holds, and move a repository's local state (logins, journal) into it. Prints nothing; the
// command renders what these return.
import type { BackendChoice } from '../api/index.js';
import { ErpsyncError } from '../model/errors.js';
import { connectPostgres } from '../state/postgres/connect.js';
import type { PostgresConnection } from '../state/postgres/connect.js';
import { migrate, readSchemaVersion, schemaVersion } from '../state/postgres/migrations.js';
import type { BackendStatus } from '../state/postgres/status.js';
import { readBackendStatus } from '../state/postgres/status.js';
import type { RunIO } from './run-io.js';

export interface MigrateOutcome {
  where: string;
  schema: string;
  applied: number[];
  version: number;
}

export type StatusOutcome = BackendStatus | { backend: 'local'; where: string };

function requirePostgres(choice: BackendChoice, what: string): Extract<BackendChoice, { kind: 'postgres' }> {
  if (choice.kind === 'postgres') return choice;
  throw new ErpsyncError('USAGE', `${what} is for the postgres backend; this run's backend is local`, {
    details: ['name it in erpsync.config.yaml (`backend: { postgres: { urlEnv: ERPSYNC_DATABASE_URL } }`) or set ERPSYNC_BACKEND=postgres'],
  });
}

async function withConnection<T>(choice: Extract<BackendChoice, { kind: 'postgres' }>, io: Pick<RunIO, 'env'>, work: (connection: PostgresConnection) => Promise<T>): Promise<T> {
  const connection = await connectPostgres(choice, io.env, { migrate: false });
  try {
    return await work(connection);
  } finally {
    await connection.close();
  }
}

export function migrateBackend(choice: BackendChoice, io: Pick<RunIO, 'env'>): Promise<MigrateOutcome> {
  const postgres = requirePostgres(choice, '`erpsync backend migrate`');
  return withConnection(postgres, io, async (connection) => {
    const applied = await migrate(connection);
    return { where: connection.where, schema: postgres.schema, applied, version: await readSchemaVersion(connection) };
  });
}

export async function backendStatus(choice: BackendChoice, io: Pick<RunIO, 'env' | 'cwd'>): Promise<StatusOutcome> {
  if (choice.kind === 'local') return { backend: 'local', where: `files under ${io.cwd}/.erpsync and a per-user folder` };
  return withConnection(choice, io, (connection) => readBackendStatus(connection));
}

/** Whether the database's schema is the one this erpsync writes (status says what to do when not). */
export function schemaAdvice(status: BackendStatus): string | undefined {
  if (status.schemaVersion === schemaVersion) return undefined;
  if (status.schemaVersion > schemaVersion) return `the schema is newer (${status.schemaVersion}) than this erpsync (${schemaVersion}): upgrade erpsync`;
  return `the schema is at version ${status.schemaVersion}, this erpsync writes ${schemaVersion}: run \`erpsync backend migrate\` (any run also does it first)`;
}
