// A query of the postgres backend that failed mid-run, as the error a run reports: BACKEND_LOST,
// naming the server (never its URL, whose password it may hold) and what was being done. An
// ErpsyncError already raised (a check that failed) passes through as it is.
import type { QueryResultRow } from 'pg';
import { ErpsyncError } from '../../model/errors.js';
import type { PostgresConnection } from './connect.js';
import { reasonOf } from './connect.js';

export function backendLost(connection: PostgresConnection, doing: string, error: unknown): ErpsyncError {
  if (error instanceof ErpsyncError) return error;
  return new ErpsyncError('BACKEND_LOST', `the postgres backend at ${connection.where} failed while ${doing}: ${reasonOf(error)}`, {
    cause: error,
    details: [`check ${connection.choice.urlEnv} and that the server is running`],
  });
}

/** Runs one query of the backend, a failure reported as BACKEND_LOST. */
export async function queryBackend<R extends QueryResultRow>(connection: PostgresConnection, doing: string, sql: string, values: unknown[] = []): Promise<R[]> {
  try {
    return (await connection.pool.query<R>(sql, values)).rows;
  } catch (error) {
    throw backendLost(connection, doing, error);
  }
}
