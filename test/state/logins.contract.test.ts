// The logins sub-store's contract, run against both backends: a login written is read back as it
// was; a refresh commits before it resolves and is exclusive across stores opened apart (two
// store instances stand for two runners: for postgres, two pools), so a single-use refresh token
// is spent once — shown against the emulator, which rotates refresh tokens. Postgres only: what
// the table holds is ciphertext, bound to its row, that opens with no other key; a missing key
// is refused naming its variable; a runner whose connection dies mid-refresh leaves the login
// as it was and the row free.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createGovernor, createOAuthProvider, storedFromTokenSet } from '../../src/api/index.js';
import type { StoredCredentials } from '../../src/api/index.js';
import type { Emulator, OAuthClient } from '../../src/emulator/index.js';
import { ErpsyncError } from '../../src/model/errors.js';
import { sealingKeyFrom } from '../../src/state/crypto.js';
import { localLogins } from '../../src/state/local/logins.js';
import { connectPostgres } from '../../src/state/postgres/connect.js';
import type { PostgresConnection } from '../../src/state/postgres/connect.js';
import { postgresLogins } from '../../src/state/postgres/logins.js';
import type { LoginRef, LoginStore } from '../../src/state/state-store.js';
import { answersWith, authorizeOnEmulator, startEmulator } from '../api/support.js';
import { freshBackend, testStateKey } from '../support/postgres.js';
import type { TestBackend } from '../support/postgres.js';

const app: OAuthClient = { clientId: 'erpsync-logins', clientSecret: 'app-secret-for-logins', redirectUri: 'http://127.0.0.1:1/callback' };
const baseUrl = 'https://api.bling.com.br/Api/v3';

/** One backend's state, and stores opened on it as separate runners would open them. */
interface LoginBackend {
  /** A new store on the same state (for postgres, on a pool of its own). */
  open(): Promise<LoginStore>;
  /** A login's reference; the local backend's file lies in this test's temp folder. */
  ref(target: string, base?: string): LoginRef;
  /** Where the local files go: the postgres backend must write nothing there. */
  dir: string;
  close(): Promise<void>;
}

async function localBackend(): Promise<LoginBackend> {
  const dir = await mkdtemp(join(tmpdir(), 'erpsync-logins-'));
  return {
    dir,
    open: () => Promise.resolve(localLogins()),
    ref: (target, base = baseUrl) => ({ target, baseUrl: base, file: join(dir, target, 'credentials.json') }),
    close: () => rm(dir, { recursive: true, force: true }),
  };
}

/** The postgres backend on a fresh schema, with what the postgres-only cases need to reach under the store. */
interface PostgresBackend extends LoginBackend {
  test: TestBackend;
  env: NodeJS.ProcessEnv;
  connect(): Promise<PostgresConnection>;
}

async function postgresBackend(): Promise<PostgresBackend> {
  const dir = await mkdtemp(join(tmpdir(), 'erpsync-logins-'));
  const test = freshBackend();
  const env = { ...process.env, ...test.env };
  const connections: PostgresConnection[] = [];
  const connect = async (): Promise<PostgresConnection> => {
    const connection = await connectPostgres(test.choice, env);
    connections.push(connection);
    return connection;
  };
  return {
    dir,
    test,
    env,
    connect,
    open: async () => postgresLogins(await connect(), sealingKeyFrom(env, test.choice.keyEnv)),
    ref: (target, base = baseUrl) => ({ target, baseUrl: base, file: join(dir, target, 'credentials.json') }),
    async close() {
      for (const connection of connections) await connection.close();
      await test.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

const opened: LoginBackend[] = [];
afterEach(async () => {
  for (const backend of opened.splice(0)) await backend.close();
});

async function using<T extends LoginBackend>(make: () => Promise<T>): Promise<T> {
  const backend = await make();
  opened.push(backend);
  return backend;
}

function credentials(refreshToken: string, extra: Partial<StoredCredentials> = {}): StoredCredentials {
  return {
    version: 1,
    baseUrl,
    clientId: app.clientId,
    tokenUrl: `${baseUrl}/oauth/token`,
    refreshToken,
    accessToken: `access-of-${refreshToken}`,
    expiresAt: '2031-01-02T03:04:05.000Z',
    scope: 'produtos contatos',
    updatedAt: '2030-12-31T00:00:00.000Z',
    ...extra,
  };
}

/** A promise and the function that settles it: to hold a refresh open until the test has looked. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

const tokenCalls = (emulator: Emulator): number => emulator.requestLog().filter((e) => e.path === '/oauth/token').length;


describe.each([
  ['local', localBackend],
  ['postgres', postgresBackend],
] as const)('logins on the %s backend', (name, make) => {
  it('reads back a login as it was written, from another store too, and a new login replaces it', async () => {
    const backend = await using(make);
    const [writer, reader] = [await backend.open(), await backend.open()];
    const ref = backend.ref('loja-a');
    await writer.write(ref, credentials('first'));
    expect(await reader.slot(ref).read()).toEqual(credentials('first'));
    await reader.write(ref, credentials('second', { scope: undefined, expiresAt: undefined }));
    expect(await writer.slot(ref).read()).toEqual(credentials('second', { scope: undefined, expiresAt: undefined }));
    expect(await writer.count()).toBe(name === 'local' ? undefined : 1);
  });

  it('keeps the logins of two targets apart', async () => {
    const backend = await using(make);
    const store = await backend.open();
    await store.write(backend.ref('loja-a'), credentials('of-a'));
    await store.write(backend.ref('loja-b'), credentials('of-b'));
    expect((await store.slot(backend.ref('loja-a')).read()).refreshToken).toBe('of-a');
    expect((await store.slot(backend.ref('loja-b')).read()).refreshToken).toBe('of-b');
  });

  it('says there is no login (AUTH_MISSING) where none was written, and a refresh runs no work there', async () => {
    const backend = await using(make);
    const slot = (await backend.open()).slot(backend.ref('nowhere'));
    await expect(slot.read()).rejects.toMatchObject({ code: 'AUTH_MISSING' });
    let worked = false;
    const work = (current: StoredCredentials): Promise<StoredCredentials> => {
      worked = true;
      return Promise.resolve(current);
    };
    await expect(slot.rotate(work)).rejects.toMatchObject({ code: 'AUTH_MISSING' });
    expect(worked).toBe(false);
  });

  it('commits a refresh before it resolves, and not before its work returns', async () => {
    const backend = await using(make);
    const [refresher, other] = [await backend.open(), await backend.open()];
    const ref = backend.ref('loja-a');
    await refresher.write(ref, credentials('old'));
    const working = gate();
    const release = gate();
    const rotation = refresher.slot(ref).rotate(async (current) => {
      expect(current.refreshToken).toBe('old');
      working.open();
      await release.opened;
      return credentials('new');
    });
    await working.opened;
    expect((await other.slot(ref).read()).refreshToken).toBe('old');
    release.open();
    expect((await rotation).refreshToken).toBe('new');
    expect(await other.slot(ref).read()).toEqual(credentials('new'));
  });

  it('leaves the login as it was when the work fails (its error passes unchanged) or returns what it was given', async () => {
    const backend = await using(make);
    const store = await backend.open();
    const ref = backend.ref('loja-a');
    await store.write(ref, credentials('kept'));
    const failure = new ErpsyncError('AUTH_FAILED', 'the token endpoint refused');
    await expect(store.slot(ref).rotate(() => Promise.reject(failure))).rejects.toBe(failure);
    await expect(store.slot(ref).rotate((current) => Promise.resolve(current))).resolves.toEqual(credentials('kept'));
    expect(await (await backend.open()).slot(ref).read()).toEqual(credentials('kept'));
  });

  it('spends a refresh token once when ten providers on two stores refresh at once, and every one gets a working token', async () => {
    const backend = await using(make);
    const emulator = await startEmulator({ oauthClients: [app] });
    const stores = [await backend.open(), await backend.open()];
    const ref = backend.ref('loja-a', emulator.baseUrl);
    const tokens = await authorizeOnEmulator(emulator, app);
    const tokenUrl = `${emulator.baseUrl}/oauth/token`;
    await stores[0]?.write(ref, { ...storedFromTokenSet(tokens, { baseUrl: emulator.baseUrl, clientId: app.clientId, tokenUrl, now: Date.now() }), expiresAt: new Date(0).toISOString() });
    emulator.clearLog();

    const providers = Array.from({ length: 10 }, (_, i) => createOAuthProvider({ slot: (stores[i % 2] as LoginStore).slot(ref), clientSecret: app.clientSecret }));
    const handedOut = await Promise.all(providers.map((provider) => provider.accessToken()));

    expect(tokenCalls(emulator)).toBe(1);
    expect(new Set(handedOut).size).toBe(1);
    expect(handedOut[0]).not.toBe(tokens.accessToken);
    for (const accessToken of new Set(handedOut)) expect(await answersWith(emulator, accessToken)).toBe(200);
    const stored = await (await backend.open()).slot(ref).read();
    expect(stored.accessToken).toBe(handedOut[0]);
    expect(stored.refreshToken).not.toBe(tokens.refreshToken);
  });

  it('serves while more refreshes than the backend has connections queue for their token calls', async () => {
    const backend = await using(make);
    const emulator = await startEmulator({ oauthClients: [app] });
    const [store, otherRunner] = [await backend.open(), await backend.open()];
    // One token call in a long window: the first refresh goes, the others queue for the window's turn.
    const governor = createGovernor({ requests: 1_000, errors: 1_000, windowMs: 10_000, tokenCalls: 1, tokenWindowMs: 600_000 });
    const targets = Array.from({ length: 12 }, (_, i) => `loja-${i}`);
    for (const target of targets) {
      const tokens = await authorizeOnEmulator(emulator, app);
      const login = storedFromTokenSet(tokens, { baseUrl: emulator.baseUrl, clientId: app.clientId, tokenUrl: `${emulator.baseUrl}/oauth/token`, now: Date.now() });
      await store.write(backend.ref(target, emulator.baseUrl), { ...login, expiresAt: new Date(0).toISOString() });
    }
    emulator.clearLog();
    const stop = new AbortController();
    const refreshes = targets.map((target) => createOAuthProvider({ slot: store.slot(backend.ref(target, emulator.baseUrl)), clientSecret: app.clientSecret, governor }).accessToken(stop.signal));
    const settled = refreshes.map((refresh) => refresh.then(() => 'refreshed', (error: unknown) => (error as ErpsyncError).code));
    await Promise.race(refreshes);

    // Eleven refreshes wait for the turn; the store still reads and writes, and another runner refreshes another login.
    await expect(store.slot(backend.ref('loja-11', emulator.baseUrl)).read()).resolves.toMatchObject({ clientId: app.clientId });
    const other = backend.ref('loja-other', emulator.baseUrl);
    await store.write(other, credentials('written-meanwhile'));
    await expect(otherRunner.slot(other).rotate(() => Promise.resolve(credentials('rotated-meanwhile')))).resolves.toEqual(credentials('rotated-meanwhile'));
    stop.abort();
    expect((await Promise.all(settled)).sort()).toEqual([...Array.from({ length: 11 }, () => 'INTERRUPTED'), 'refreshed']);
    expect(tokenCalls(emulator)).toBe(1);
  });
});

describe('logins on the postgres backend, at rest', () => {
  /** The login's row as a driver of its own reads it, every column. */
  async function rowsOf(backend: PostgresBackend): Promise<Record<string, unknown>[]> {
    const client = new pg.Client({ connectionString: backend.test.env.ERPSYNC_DATABASE_URL });
    await client.connect();
    try {
      return (await client.query<Record<string, unknown>>(`select * from "${backend.test.schema}".logins order by target`)).rows;
    } finally {
      await client.end();
    }
  }

  async function sql(backend: PostgresBackend, text: string, values: unknown[] = []): Promise<pg.QueryResult> {
    const connection = await backend.connect();
    return connection.pool.query(text.replaceAll('$schema', connection.schema), values);
  }

  it('holds ciphertext: neither token appears in the sealed bytes nor anywhere in the row', async () => {
    const backend = await using(postgresBackend);
    const store = await backend.open();
    const login = credentials('refresh-token-text-9f8e7d', { accessToken: 'access-token-text-1a2b3c' });
    await store.write(backend.ref('loja-a'), login);
    const rows = await rowsOf(backend);
    expect(rows).toHaveLength(1);
    const sealed = rows[0]?.sealed;
    expect(Buffer.isBuffer(sealed)).toBe(true);
    for (const secret of [login.refreshToken, login.accessToken ?? '']) {
      expect((sealed as Buffer).includes(Buffer.from(secret))).toBe(false);
      expect((sealed as Buffer).toString('latin1')).not.toContain(secret);
      expect(JSON.stringify(rows, (_, v: unknown) => (Buffer.isBuffer(v) ? v.toString('hex') : v))).not.toContain(secret);
    }
    // What the columns beside it keep in clear, for upkeep and status without the key.
    expect(rows[0]).toMatchObject({ target: 'loja-a', base_url: baseUrl, scope: login.scope, expires_at: new Date(login.expiresAt ?? '') });
    expect(existsSync(join(backend.dir, 'loja-a'))).toBe(false);
  });

  it('refuses another key with BACKEND_KEY naming its variable, and no token in what it says', async () => {
    const backend = await using(postgresBackend);
    const ref = backend.ref('loja-a');
    await (await backend.open()).write(ref, credentials('refresh-token-text-9f8e7d'));
    const otherKey = sealingKeyFrom({ KEY: testStateKey() }, 'KEY');
    const error = await postgresLogins(await backend.connect(), otherKey)
      .slot(ref)
      .read()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ErpsyncError);
    const refused = error as ErpsyncError;
    expect(refused.code).toBe('BACKEND_KEY');
    expect(refused.message).toBe(`the logins in the backend cannot be opened with ${backend.test.choice.keyEnv}: it is not the key they were sealed with`);
    expect(`${refused.message}\n${refused.details.join('\n')}`).not.toMatch(/refresh-token-text|access-of/);
  });

  it('does not open a sealed login moved to another target’s row', async () => {
    const backend = await using(postgresBackend);
    const store = await backend.open();
    await store.write(backend.ref('loja-a'), credentials('of-a'));
    await store.write(backend.ref('loja-b'), credentials('of-b'));
    await sql(backend, `update $schema.logins set sealed = (select sealed from $schema.logins where target = 'loja-a') where target = 'loja-b'`);
    await expect(store.slot(backend.ref('loja-b')).read()).rejects.toMatchObject({ code: 'BACKEND_KEY' });
    // Nor under the same target at another base URL.
    await sql(backend, `update $schema.logins set base_url = 'https://other.example/Api/v3' where target = 'loja-a'`);
    await expect(store.slot(backend.ref('loja-a', 'https://other.example/Api/v3')).read()).rejects.toMatchObject({ code: 'BACKEND_KEY' });
  });

  it('refuses a sealed login too large to be one as damaged, without opening it', async () => {
    const backend = await using(postgresBackend);
    const store = await backend.open();
    await store.write(backend.ref('loja-a'), credentials('of-a'));
    await sql(backend, `update $schema.logins set sealed = $1`, [Buffer.alloc(70 * 1024, 1)]);
    await expect(store.slot(backend.ref('loja-a')).read()).rejects.toMatchObject({ code: 'BACKEND_SCHEMA', message: expect.stringContaining('damaged') as unknown });
  });

  it('refuses a missing or malformed key with BACKEND_KEY naming the variable and how to make one, never its value', () => {
    for (const env of [{}, { ERPSYNC_STATE_KEY: '' }, { ERPSYNC_STATE_KEY: 'c2hvcnQta2V5LXZhbHVl' }, { ERPSYNC_STATE_KEY: 'z'.repeat(64) }]) {
      let error: unknown;
      try {
        sealingKeyFrom(env, 'ERPSYNC_STATE_KEY');
      } catch (caught) {
        error = caught;
      }
      expect(error).toMatchObject({ code: 'BACKEND_KEY', message: expect.stringContaining('ERPSYNC_STATE_KEY') as unknown });
      const said = `${(error as ErpsyncError).message}\n${(error as ErpsyncError).details.join('\n')}`;
      expect(said).toContain('openssl rand -base64 32');
      if (env.ERPSYNC_STATE_KEY) expect(said).not.toContain(env.ERPSYNC_STATE_KEY);
    }
  });

  it('leaves the login as it was and the row free when a refresher’s connection dies mid-refresh', async () => {
    const backend = await using(postgresBackend);
    const [dying, survivor] = [await backend.open(), await backend.open()];
    const ref = backend.ref('loja-a');
    await dying.write(ref, credentials('old'));
    const rotation = dying.slot(ref).rotate(async () => {
      // The server ends the session holding the row, as it does when a runner's machine vanishes.
      const ended = await sql(backend, `select pg_terminate_backend(pid) as ended from pg_stat_activity where state = 'idle in transaction' and query like '%for update%' and query like $1`, [`%${backend.test.schema}%`]);
      expect(ended.rows).toEqual([{ ended: true }]);
      return credentials('never-stored');
    });
    await expect(rotation).rejects.toMatchObject({ code: 'BACKEND_LOST' });
    await expect(survivor.slot(ref).rotate(() => Promise.resolve(credentials('next')))).resolves.toEqual(credentials('next'));
    expect((await dying.slot(ref).read()).refreshToken).toBe('next');
  });
});
