// The tests' PostgreSQL: each caller gets a schema of its own on the server the global setup
// provides (test/support/postgres-global-setup.ts), so test files running at once never see each
// other's rows. A missing server fails the test with the reason.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import type { PostgresChoice } from '../../src/state/postgres/connect.js';

export function testDatabaseUrl(): string {
  const url = process.env.ERPSYNC_TEST_DATABASE_URL ?? inject('databaseUrl');
  if (!url || url.startsWith('unavailable: ')) {
    throw new Error(`no PostgreSQL for the tests (${url ? url.slice('unavailable: '.length) : 'none provided'}); see the README's "Tests"`);
  }
  return url;
}

/** A 32-byte key for the logins, as the environment carries it (base64). */
export function testStateKey(): string {
  return randomBytes(32).toString('base64');
}

export interface TestBackend {
  /** The config's `backend:` entry for it, as YAML-ready data. */
  choice: PostgresChoice;
  /** The variables the backend reads: the URL and the key. */
  env: Record<string, string>;
  /** The schema's name. */
  schema: string;
  drop(): Promise<void>;
}

/** A fresh, empty schema on the test server, or on the server at `url` (erpsync creates its tables there on first use). */
export function freshBackend(url = testDatabaseUrl()): TestBackend {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  return {
    choice: { urlEnv: 'ERPSYNC_DATABASE_URL', keyEnv: 'ERPSYNC_STATE_KEY', schema },
    env: { ERPSYNC_DATABASE_URL: url, ERPSYNC_STATE_KEY: testStateKey(), ERPSYNC_BACKEND: 'postgres', ERPSYNC_BACKEND_SCHEMA: schema },
    schema,
    async drop() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`drop schema if exists "${schema}" cascade`);
      } finally {
        await client.end();
      }
    },
  };
}
