// What every backend's leases promise (state-store.ts, LeaseStore): one holder per key, a release
// lets the next in, a lease that ran out is taken over saying whose, the old holder's next confirm()
// is refused for good, and of acquirers racing exactly one wins. The same cases run against the
// local lock folder and a real PostgreSQL (a schema of its own); "another process" is a second
// store instance (postgres: a second connection), and a holder that stopped renewing is left as it
// leaves its record: renewed longer ago than its lease. Postgres alone: fencing tokens, a holder
// gone from this machine, and a database that went away under a holder.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HeldLock, LockRecord } from '../../src/api/lease-lock.js';
import { leaseFileOf, localLeases } from '../../src/state/local/leases.js';
import { lockDirectory } from '../../src/state/local/lock-folder.js';
import { connectPostgres } from '../../src/state/postgres/connect.js';
import type { PostgresConnection } from '../../src/state/postgres/connect.js';
import { postgresLeases } from '../../src/state/postgres/leases.js';
import type { LeaseStore } from '../../src/state/state-store.js';
import { freshBackend } from '../support/postgres.js';

interface Backend {
  /** The store under test, and the same store as another process sees it. */
  leases: LeaseStore;
  other: LeaseStore;
  /** Leaves the holding of `key` renewed twice its lease ago, as a holder that stopped renewing does. */
  expire(key: string): Promise<void>;
  close(): Promise<void>;
}

async function openLocal(): Promise<Backend> {
  const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-leases-'));
  const env = { ERPSYNC_LOCK_DIR: path.join(dir, 'locks') };
  return {
    leases: localLeases({ cwd: dir, env }),
    other: localLeases({ cwd: dir, env }),
    async expire(key) {
      const file = leaseFileOf(lockDirectory(env), key);
      const record = JSON.parse(readFileSync(file, 'utf8')) as LockRecord;
      writeFileSync(file, JSON.stringify({ ...record, renewedAt: record.renewedAt - 2 * record.leaseMs }));
    },
    close: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

interface PostgresBackend extends Backend {
  connection: PostgresConnection;
  /** A further connection, as another machine has: closed with the backend. */
  connect(): Promise<PostgresConnection>;
}

async function openPostgres(): Promise<PostgresBackend> {
  const backend = freshBackend();
  const connect = () => connectPostgres(backend.choice, { ...process.env, ...backend.env });
  const connection = await connect();
  const others = [await connect()];
  return {
    connection,
    leases: postgresLeases(connection),
    other: postgresLeases(others[0] as PostgresConnection),
    async connect() {
      const another = await connect();
      others.push(another);
      return another;
    },
    async expire(key) {
      await connection.pool.query(`update ${connection.schema}.leases set renewed_at = now() - 2 * lease_ms * interval '1 ms' where key = $1`, [key]);
    },
    async close() {
      for (const open of [connection, ...others]) await open.close().catch(() => undefined);
      await backend.drop();
    },
  };
}

let opened: Backend | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

const key = 'account 42';
const request = (command: string, more: { timeoutMs?: number; leaseMs?: number; pollMs?: number } = {}) => ({ key, command, timeoutMs: 0, ...more });

describe.each([
  ['local', openLocal],
  ['postgres', openPostgres],
] as const)('%s leases', (_name, open) => {
  it('are held by one holder at a time: another is refused at once, naming the holder and how to wait', async () => {
    const { leases, other } = (opened = await open());
    const held = await leases.acquire(request('first'));
    expect(held.tookOverFrom).toBeUndefined();
    await held.confirm();
    const refused = other.acquire(request('second'));
    await expect(refused).rejects.toMatchObject({
      code: 'LOCKED',
      message: expect.stringMatching(new RegExp(`^account 42 is locked by \`first\` \\(pid ${process.pid} on ${hostname()}, since \\d{4}-\\d\\d-\\d\\dT`)),
      details: ['one run at a time may change an account: wait for it, or pass --lock-timeout SECONDS to wait here'],
    });
    await held.release();
  });

  it('let the next holder in on release, and one waiting takes it then', async () => {
    const { leases, other } = (opened = await open());
    const first = await leases.acquire(request('first'));
    // A timeout longer than the test may run: only the release ends the wait.
    const waiting = other.acquire(request('second', { timeoutMs: 120_000, pollMs: 20 }));
    await first.release();
    const second = await waiting;
    expect(second.record.owner.command).toBe('second');
    expect(second.tookOverFrom).toBeUndefined();
    await second.confirm();
    await second.release();
    const third = await leases.acquire(request('third'));
    await third.release();
  });

  it('are taken over once they ran out, saying whose; the old holder is refused from its next confirm() on and releases nothing', async () => {
    const backend = (opened = await open());
    const old = await backend.other.acquire(request('first'));
    await backend.expire(key);
    const taker = await backend.leases.acquire(request('second'));
    expect(taker.tookOverFrom).toMatchObject({ key, token: old.record.token, owner: old.record.owner, leaseMs: 60_000 });
    const previous = taker.tookOverFrom as LockRecord;
    expect(previous.renewedAt + previous.leaseMs).toBeLessThan(Date.now());
    const lost = { code: 'LOCK_LOST', message: expect.stringMatching(/^the lock on account 42 was taken over by `second` \(pid \d+ on .*\); this run stopped writing$/) };
    await expect(old.confirm()).rejects.toMatchObject(lost);
    await expect(old.confirm()).rejects.toMatchObject(lost);
    await old.release();
    await expect(backend.other.acquire(request('third'))).rejects.toMatchObject({ code: 'LOCKED', message: expect.stringContaining('locked by `second`') });
    await taker.confirm();
    await taker.release();
  });

  it('stay held through a pause longer than the lease when nobody took them: the next confirm() renews', async () => {
    const { leases, other } = (opened = await open());
    const held = await leases.acquire(request('first', { leaseMs: 300 }));
    // The whole process stops (the event loop included, so no renewal runs), as under SIGSTOP.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 600);
    await held.confirm();
    await expect(other.acquire(request('second'))).rejects.toMatchObject({ code: 'LOCKED' });
    await held.release();
  });

  it('go to exactly one of ten acquirers racing', async () => {
    const { leases, other } = (opened = await open());
    const settled = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? leases : other).acquire(request(`racer ${i}`))));
    const won = settled.filter((result): result is PromiseFulfilledResult<HeldLock> => result.status === 'fulfilled');
    const refused = settled.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(refused.map((result) => (result.reason as { code?: unknown }).code)).toEqual(Array(9).fill('LOCKED'));
    await won[0]?.value.confirm();
    await won[0]?.value.release();
  });
});

describe('postgres leases', () => {
  it('carry fencing tokens that increase with every holding, across releases and takeovers', async () => {
    const backend = await openPostgres();
    opened = backend;
    const tokens: bigint[] = [];
    const first = await backend.leases.acquire(request('first'));
    tokens.push(BigInt(first.record.token));
    await first.release();
    const second = await backend.other.acquire(request('second'));
    tokens.push(BigInt(second.record.token));
    await backend.expire(key);
    const third = await backend.leases.acquire(request('third'));
    tokens.push(BigInt(third.record.token));
    expect(third.tookOverFrom?.token).toBe(second.record.token);
    expect(tokens[1]).toBeGreaterThan(tokens[0] as bigint);
    expect(tokens[2]).toBeGreaterThan(tokens[1] as bigint);
    await third.release();
  });

  it('are taken over at once from a holder whose process is gone from this machine', async () => {
    const backend = await openPostgres();
    opened = backend;
    const held = await backend.other.acquire(request('first'));
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    await backend.connection.pool.query(`update ${backend.connection.schema}.leases set owner = jsonb_set(owner, '{pid}', to_jsonb($2::int)) where key = $1`, [key, gone]);
    const taker = await backend.leases.acquire(request('second'));
    expect(taker.tookOverFrom).toMatchObject({ token: held.record.token, owner: { pid: gone } });
    await expect(held.confirm()).rejects.toMatchObject({ code: 'LOCK_LOST' });
    await taker.release();
  });

  it('of a holder whose database went away run out by the server\'s clock and are taken over; its confirm() says the backend is lost', async () => {
    const backend = await openPostgres();
    opened = backend;
    const gone = await backend.connect();
    const held = await postgresLeases(gone).acquire(request('first', { leaseMs: 300 }));
    await gone.close();
    await expect(held.confirm()).rejects.toMatchObject({
      code: 'BACKEND_LOST',
      message: expect.stringMatching(new RegExp(`^the state backend at ${backend.connection.where.replace(/[.]/g, '\\.')} \\(ERPSYNC_DATABASE_URL\\) cannot be reached: .*; this run stopped writing$`)),
    });
    // Waits for the lease to run out, however long the server takes to say so.
    const taker = await backend.leases.acquire(request('second', { timeoutMs: 120_000, pollMs: 20 }));
    expect(taker.tookOverFrom?.token).toBe(held.record.token);
    await taker.release();
  });
});
