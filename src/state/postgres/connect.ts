// The postgres backend's connection: a small pool on the URL from the environment variable the
// config names, in the schema the config names (default `erpsync`). Opening checks the server is
// reachable and brings the schema up to this erpsync's version (migrations.ts) before anything
// else is asked of it; an unreachable server is refused (exit 3) naming the variable, never
// quoting the URL, whose password it may hold.
import pg from 'pg';
import { ErpsyncError } from '../../model/errors.js';
import { migrate } from './migrations.js';

export interface PostgresChoice {
  /** The variable holding the connection URL (`postgres://…`). */
  urlEnv: string;
  /** The variable holding the key logins are encrypted with (32 bytes, base64 or hex). */
  keyEnv: string;
  /** The schema erpsync keeps its tables in. */
  schema: string;
}

export interface PostgresConnection {
  pool: pg.Pool;
  /** The schema, quoted for SQL. */
  schema: string;
  /** host:port/database, for messages: no user, no password. */
  where: string;
  choice: PostgresChoice;
  close(): Promise<void>;
}

const schemaName = /^[a-z_][a-z0-9_]{0,62}$/;

/** `"schema"` for SQL; the config's schema is checked against a plain identifier first. */
export function quoteSchema(name: string): string {
  if (!schemaName.test(name)) throw new ErpsyncError('CONFIG', `the backend's schema name ${JSON.stringify(name)} is not a plain lowercase identifier`);
  return `"${name}"`;
}

/** Where a URL points, without its user or password. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname}`;
  } catch {
    return 'an unreadable URL';
  }
}

/** Connections a process keeps to the server at most. */
export const POOL_SIZE = 8;

/** `migrate: false` leaves the schema as it is (`backend status`, and `backend migrate`, which says what it applied). */
export async function connectPostgres(choice: PostgresChoice, env: NodeJS.ProcessEnv, options: { migrate?: boolean } = {}): Promise<PostgresConnection> {
  const url = env[choice.urlEnv];
  if (url === undefined || url.trim() === '') {
    throw new ErpsyncError('BACKEND_UNREACHABLE', `the postgres backend is configured but ${choice.urlEnv} is not set; nothing was sent to the service`, {
      details: [`set ${choice.urlEnv} to the database's URL (postgres://user:password@host:5432/database)`],
    });
  }
  const schema = quoteSchema(choice.schema);
  const where = describeUrl(url);
  // A query unanswered for longer than the longest wait erpsync asks of the server (a login's lock,
  // 60 s) is a server gone silent (a partition, a stopped host): it fails as BACKEND_LOST rather than
  // hang the run.
  const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 5_000, allowExitOnIdle: true, keepAlive: true, query_timeout: 70_000, application_name: 'erpsync' });
  // A connection that breaks while idle is an event, not a crash; the next query reports it.
  pool.on('error', () => undefined);
  const connection: PostgresConnection = { pool, schema, where, choice, close: () => pool.end() };
  try {
    await pool.query('select 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new ErpsyncError('BACKEND_UNREACHABLE', `the postgres backend at ${where} (${choice.urlEnv}) cannot be reached: ${reasonOf(error)}; nothing was sent to the service`, {
      cause: error,
      details: [`check ${choice.urlEnv} and that the server is running`],
    });
  }
  if (options.migrate === false) return connection;
  try {
    await migrate(connection);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  return connection;
}

/** A driver error's reason in a few words: its code and message, never the URL. */
export function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && !error.message.includes(code) ? `${code} ${error.message}` : error.message;
}

/** Runs `work` in one transaction on one connection: committed when it resolves, rolled back when it throws. */
export async function inTransaction<T>(connection: PostgresConnection, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await connection.pool.connect();
  // The pool listens for a broken connection only while it is idle: one that breaks while `work`
  // awaits something else (a token endpoint) would be an uncaught 'error' event ending the
  // process. Heard here, the next query fails with it, and the connection is not pooled again.
  let broken = false;
  const onBroken = (): void => {
    broken = true;
  };
  client.on('error', onBroken);
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.removeListener('error', onBroken);
    client.release(broken);
  }
}
