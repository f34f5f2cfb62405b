// The postgres backend's logins: one row per target and base URL in `logins`, the credentials
// sealed with the key from the environment (state/crypto) and bound to their row. A refresh is
// one transaction holding the row (`select … for update`) while the token endpoint is asked, so a
// single-use refresh token is spent once across every runner: the others wait, then read the
// rotated tokens. The new tokens are committed before `rotate` resolves; a runner that dies
// mid-refresh loses its connection, and postgres rolls back and releases the row by itself.
// What is read back is checked (shape, size, tag, format) before it is used. Nothing here prints,
// and no message quotes a token, the key or the database URL.
import type pg from 'pg';
import { parseStoredCredentials } from '../../api/index.js';
import type { CredentialSlot, StoredCredentials } from '../../api/index.js';
import { ErpsyncError, isErpsyncError } from '../../model/errors.js';
import { seal, unseal } from '../crypto.js';
import type { LoginRef, LoginStore } from '../state-store.js';
import { inTransaction, POOL_SIZE } from './connect.js';
import { backendLost } from './backend-error.js';
import type { PostgresConnection } from './connect.js';

/** How long a refresh waits for another runner's refresh of the same login (the local lock waits as long). */
const rotateWaitMs = 60_000;

/**
 * Refreshes of this process that hold a connection at once, at most: a refresh holds one for its
 * login's lock while it waits for the token call's turn (the service allows 20 token calls a minute
 * per IP), so a fleet of expired logins would otherwise hold them all for minutes and every other
 * query of the run would time out (1,000 expired logins: 8 stores ran). The others wait, holding
 * nothing; the token calls go no slower, as the governor lets one through at a time.
 */
const rotationsAtOnce = POOL_SIZE / 2;
const lockNotAvailable = '55P03';

interface OpenedLogin {
  version: string;
  credentials: StoredCredentials;
}

type Rotation = { next: StoredCredentials } | { failure: unknown };

export function postgresLogins(connection: PostgresConnection, key: Buffer): LoginStore {
  const table = `${connection.schema}.logins`;
  const admitRotation = admission(rotationsAtOnce);
  const keyEnv = connection.choice.keyEnv;

  /** A row read back, checked and opened; a missing one is AUTH_MISSING. */
  const open = (ref: LoginRef, row: unknown): OpenedLogin => {
    const describe = describeLogin(ref);
    const relogin = `run \`erpsync login --target ${ref.target}\` to store it again`;
    if (row === undefined) throw new ErpsyncError('AUTH_MISSING', `the backend holds no login of target ${ref.target} for ${ref.baseUrl}`, { details: [ref.target === 'default' ? `run \`erpsync login --base-url ${ref.baseUrl}\` to log in` : `run \`erpsync login --target ${ref.target}\` to log in`] });
    const { version, sealed } = row as { version?: unknown; sealed?: unknown };
    if (typeof version !== 'string' || !/^\d{1,19}$/.test(version) || !Buffer.isBuffer(sealed)) {
      throw new ErpsyncError('BACKEND_SCHEMA', `${describe} is damaged (its row is not what this erpsync wrote)`, { details: [relogin] });
    }
    let text: string;
    try {
      text = unseal(key, sealed, rowBinding(ref));
    } catch (error) {
      if (!isErpsyncError(error) || error.code !== 'BACKEND_KEY') throw new ErpsyncError('BACKEND_SCHEMA', `${describe} cannot be used: ${(error as Error).message}`, { details: [relogin] });
      throw new ErpsyncError('BACKEND_KEY', `the logins in the backend cannot be opened with ${keyEnv}: it is not the key they were sealed with`, {
        details: [`set ${keyEnv} to the key the other runners use`, `if it is that key, ${describe} was altered or copied from another row: ${relogin}`],
      });
    }
    try {
      return { version, credentials: parseStoredCredentials(text, describe) };
    } catch {
      throw new ErpsyncError('BACKEND_SCHEMA', `${describe} opens but holds no login this erpsync reads`, { details: [relogin] });
    }
  };

  /** Runs under the row's lock: what `work` returns, committed with a compare-and-swap on the version. */
  const rotateLocked = async (client: pg.PoolClient, ref: LoginRef, work: (current: StoredCredentials) => Promise<StoredCredentials>): Promise<Rotation> => {
    await client.query(`set local lock_timeout = ${rotateWaitMs}`);
    const found = await client.query(`select version, sealed from ${table} where target = $1 and base_url = $2 for update`, [ref.target, ref.baseUrl]);
    const current = open(ref, found.rows[0]);
    let next: StoredCredentials;
    try {
      next = await work(current.credentials);
    } catch (failure) {
      // Nothing was written: the transaction commits a lock and no change, and the failure is the caller's.
      return { failure };
    }
    if (next === current.credentials) return { next };
    const updated = await client.query(
      `update ${table} set version = version + 1, sealed = $4, expires_at = $5, scope = $6, updated_at = now() where target = $1 and base_url = $2 and version = $3`,
      [ref.target, ref.baseUrl, current.version, seal(key, JSON.stringify(next), rowBinding(ref)), expiryOf(next), next.scope ?? null],
    );
    if (updated.rowCount !== 1) throw new ErpsyncError('INTERNAL', `${describeLogin(ref)} changed while this runner held it`);
    return { next };
  };

  /** A driver failure as the error erpsync reports; erpsync's own errors pass unchanged. */
  const backendFailure = (error: unknown, doing: string): unknown => {
    if (isErpsyncError(error)) return error;
    if ((error as { code?: unknown }).code === lockNotAvailable) {
      return new ErpsyncError('LOCKED', `another runner has been ${doing} for over ${rotateWaitMs / 1000} s; nothing was sent to the token endpoint`, { details: ['run again once it is done'] });
    }
    return backendLost(connection, doing, error);
  };

  const slot = (ref: LoginRef): CredentialSlot => {
    const describe = describeLogin(ref);
    return {
      describe,
      async read() {
        try {
          const found = await connection.pool.query(`select version, sealed from ${table} where target = $1 and base_url = $2`, [ref.target, ref.baseUrl]);
          return open(ref, found.rows[0]).credentials;
        } catch (error) {
          throw backendFailure(error, `reading ${describe}`);
        }
      },
      async rotate(work) {
        let rotation: Rotation;
        try {
          rotation = await admitRotation(() => inTransaction(connection, (client) => rotateLocked(client, ref, work)));
        } catch (error) {
          throw backendFailure(error, `refreshing ${describe}`);
        }
        if ('failure' in rotation) throw rotation.failure;
        return rotation.next;
      },
    };
  };

  return {
    slot,
    async write(ref, credentials) {
      try {
        await connection.pool.query(
          `insert into ${table} as l (target, base_url, version, sealed, expires_at, scope, updated_at) values ($1, $2, 1, $3, $4, $5, now())
           on conflict (target, base_url) do update set version = l.version + 1, sealed = excluded.sealed, expires_at = excluded.expires_at, scope = excluded.scope, updated_at = now()`,
          [ref.target, ref.baseUrl, seal(key, JSON.stringify(credentials), rowBinding(ref)), expiryOf(credentials), credentials.scope ?? null],
        );
      } catch (error) {
        throw backendFailure(error, `storing ${describeLogin(ref)}`);
      }
    },
    async count() {
      try {
        const found = await connection.pool.query(`select count(*)::integer as logins from ${table}`);
        const logins: unknown = found.rows[0]?.logins;
        if (typeof logins !== 'number') throw new ErpsyncError('BACKEND_SCHEMA', `the backend at ${connection.where} did not answer how many logins it holds`);
        return logins;
      } catch (error) {
        throw backendFailure(error, 'counting the logins');
      }
    },
  };
}

/** Runs at most `size` works at once, the others in arrival order as places free. */
function admission(size: number): <T>(work: () => Promise<T>) => Promise<T> {
  let inside = 0;
  const waiting: (() => void)[] = [];
  return async (work) => {
    if (inside < size) inside += 1;
    else await new Promise<void>((enter) => waiting.push(enter));
    try {
      return await work();
    } finally {
      // A place freed goes straight to the next in line.
      const next = waiting.shift();
      if (next) next();
      else inside -= 1;
    }
  };
}

function describeLogin(ref: LoginRef): string {
  return `the login of target ${ref.target} in the backend`;
}

/** The associated data that binds a sealed login to its row: unambiguous whatever the names hold. */
function rowBinding(ref: LoginRef): string {
  return JSON.stringify(['erpsync login', ref.target, ref.baseUrl]);
}

/** The expiry column (for `targets --check` and upkeep without opening the row): null when unknown. */
function expiryOf(credentials: StoredCredentials): string | null {
  const at = credentials.expiresAt === undefined ? Number.NaN : Date.parse(credentials.expiresAt);
  return Number.isFinite(at) ? new Date(at).toISOString() : null;
}
