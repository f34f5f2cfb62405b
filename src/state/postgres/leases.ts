// The postgres backend's leases: one row per key in `leases`, shared by every machine using the
// database. Taking one is one statement that inserts the row, or replaces it only when its lease
// ran out by the server's clock (`now()`: no runner's clock is judged against another's), with a
// fencing token from the sequence `lease_tokens`: unique to one holding, increasing across
// takeovers. A holder renews every third of its lease; before every write it renews and checks, in
// one round trip, that the row still holds its token. Once it does not, the holding is lost for
// good (LOCK_LOST, naming the taker); a database it cannot reach stops its writes (BACKEND_LOST).
// A process on another machine is known dead only by its lease running out; one on this machine
// (same boot, same pid namespace) also by its pid. What is read back is checked before it is shown.
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import type { HeldLock, LockOwner, LockRecord } from '../../api/lease-lock.js';
import { defaultLeaseMs, inCallOrder, isProcessAlive, lockedBy, lockLost, renewalClock } from '../../api/lease-lock.js';
import { ErpsyncError } from '../../model/errors.js';
import { isPlainRecord } from '../../model/paths.js';
import type { LeaseStore } from '../state-store.js';
import type { PostgresConnection } from './connect.js';
import { reasonOf } from './connect.js';

/** The longest lease the `lease_ms integer` column holds. */
const longestLeaseMs = 2 ** 31 - 1;
/** How many late answers confirm() takes before it calls the database lost. */
const timelyTries = 3;
/** A field of a stored owner longer than this is not shown: the row is evidence, not truth. */
const longestOwnerField = 200;

/** A row of `leases` as the queries return it: its times in the server's epoch ms, with the server's now. */
interface LeaseRow {
  token: string;
  owner: unknown;
  renewed_ms: number;
  lease_ms: number;
  now_ms: number;
}

/**
 * This boot of this machine and this pid namespace (Linux): a holder's pid means the same process
 * only where both match. None elsewhere, and then a holder is judged by its lease alone.
 */
function processSpace(): string | undefined {
  try {
    return `${readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()} ${readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    return undefined;
  }
}

function ownerOf(stored: unknown): LockOwner {
  const fields = isPlainRecord(stored) ? stored : {};
  const text = (name: string): string => {
    const value = fields[name];
    return typeof value === 'string' && value.length <= longestOwnerField ? value : '?';
  };
  const pid = Number.isSafeInteger(fields.pid) ? (fields.pid as number) : 0;
  return { host: text('host'), pid, startedAt: text('startedAt'), command: text('command') };
}

/** A row as a lock record, its renewal moved onto this machine's clock (so a caller may compare it with Date.now()). */
function recordOf(key: string, row: LeaseRow): LockRecord {
  return { key, owner: ownerOf(row.owner), token: row.token, renewedAt: Date.now() - (row.now_ms - row.renewed_ms), leaseMs: row.lease_ms };
}

/** Whether the stored owner is a process of this machine's pid space that is gone. */
function goneFromThisMachine(stored: unknown, space: string | undefined): boolean {
  if (space === undefined || !isPlainRecord(stored) || stored.space !== space) return false;
  return Number.isSafeInteger(stored.pid) && (stored.pid as number) > 0 && !isProcessAlive(stored.pid as number);
}

function rowColumns(table: string): string {
  return `${table}.token::text as token, ${table}.owner, extract(epoch from ${table}.renewed_at)::float8 * 1000 as renewed_ms, ${table}.lease_ms`;
}

async function readHolder(connection: PostgresConnection, key: string): Promise<LockRecord | undefined> {
  const found = await connection.pool.query<LeaseRow>(
    `select ${rowColumns('leases')}, extract(epoch from now())::float8 * 1000 as now_ms from ${connection.schema}.leases where key = $1`,
    [key],
  );
  const row = found.rows[0];
  return row ? recordOf(key, row) : undefined;
}

function backendError(code: 'BACKEND_UNREACHABLE' | 'BACKEND_LOST', connection: PostgresConnection, error: unknown, outcome: string, detail: string): ErpsyncError {
  const { where, choice } = connection;
  return new ErpsyncError(code, `the state backend at ${where} (${choice.urlEnv}) cannot be reached: ${reasonOf(error)}; ${outcome}`, { cause: error, details: [detail] });
}

function backendLost(connection: PostgresConnection, key: string, error: unknown): ErpsyncError {
  return backendError('BACKEND_LOST', connection, error, 'this run stopped writing', `the lease on ${key} could not be confirmed before the next write; run again once the database is back`);
}

interface Attempt {
  /** This holding's token when it took the lease. */
  taken: string | null;
  /** The row as it was before (none: there was none), and whether it could be replaced. */
  holder?: LeaseRow;
  replaceable: boolean;
}

/**
 * One try: inserts the lease, or replaces the row when its lease ran out by the server's clock
 * (or it holds `goneToken`, a holding whose process is gone from this machine). The row before is
 * read in the same statement, from its snapshot: the holder to name, or the holding taken over.
 */
async function attempt(connection: PostgresConnection, key: string, owner: object, leaseMs: number, goneToken: string | null): Promise<Attempt> {
  const s = connection.schema;
  const replaceable = (table: string) => `(${table}.renewed_at + ${table}.lease_ms * interval '1 ms' < now() or ${table}.token = $4::bigint)`;
  const result = await connection.pool.query<Partial<LeaseRow> & { taken: string | null; replaceable: boolean | null; now_ms: number }>(
    `with previous as (
       select ${rowColumns('leases')}, ${replaceable('leases')} as replaceable from ${s}.leases where key = $1
     ), taken as (
       insert into ${s}.leases as held (key, token, owner, renewed_at, lease_ms)
       values ($1, nextval('${s}.lease_tokens'), $2::jsonb, now(), $3)
       on conflict (key) do update set token = excluded.token, owner = excluded.owner, renewed_at = excluded.renewed_at, lease_ms = excluded.lease_ms
       where ${replaceable('held')}
       returning held.token::text as taken
     )
     select taken.taken, previous.*, extract(epoch from now())::float8 * 1000 as now_ms
     from (select 1) as one left join taken on true left join previous on true`,
    [key, JSON.stringify(owner), leaseMs, goneToken],
  );
  const row = result.rows[0];
  const holder = row?.token == null ? undefined : { token: row.token, owner: row.owner, renewed_ms: Number(row.renewed_ms), lease_ms: Number(row.lease_ms), now_ms: row.now_ms };
  return { taken: row?.taken ?? null, ...(holder ? { holder } : {}), replaceable: row?.replaceable === true };
}

/** Leases in the database: one apply per account at a time across every machine that shares it. */
export function postgresLeases(connection: PostgresConnection): LeaseStore {
  const space = processSpace();
  return {
    async acquire(request) {
      const leaseMs = Math.min(longestLeaseMs, Math.max(1, Math.round(request.leaseMs ?? defaultLeaseMs)));
      const owner: LockOwner = { host: hostname(), pid: process.pid, startedAt: new Date().toISOString(), command: request.command };
      const deadline = Date.now() + request.timeoutMs;
      let goneToken: string | null = null;
      for (;;) {
        const tried: Attempt = await attempt(connection, request.key, { ...owner, space }, leaseMs, goneToken).catch((error: unknown) => {
          throw backendError('BACKEND_UNREACHABLE', connection, error, `the lease on ${request.key} was not taken and nothing was changed`, `check ${connection.choice.urlEnv} and that the server is running`);
        });
        const holder: LockRecord | undefined = tried.holder ? recordOf(request.key, tried.holder) : undefined;
        if (tried.taken !== null) {
          const record: LockRecord = { key: request.key, owner, token: tried.taken, renewedAt: Date.now(), leaseMs };
          return holdLease(connection, record, tried.replaceable ? holder : undefined);
        }
        // No row in the snapshot, yet one at the insert (another took it meanwhile): look again at once, to name it.
        if (!holder) continue;
        if (holder.token !== goneToken && goneFromThisMachine(tried.holder?.owner, space)) {
          goneToken = holder.token;
          continue;
        }
        if (Date.now() >= deadline) throw lockedBy(request.key, holder);
        await delay(Math.min(request.pollMs ?? 500, Math.max(1, deadline - Date.now())));
      }
    },
  };
}

/** A held lease: renewed while the process lives, confirmed before each write, released once. */
function holdLease(connection: PostgresConnection, record: LockRecord, tookOverFrom: LockRecord | undefined): HeldLock {
  const s = connection.schema;
  const clock = renewalClock();
  let lost: ErpsyncError | undefined;
  let released = false;
  /** Renews the row while it holds this holding's token; else the loss, for good. Throws when the database cannot be reached. */
  const renew = async (): Promise<ErpsyncError | undefined> => {
    const at = clock.now();
    const gap = clock.gapMs();
    const result = await connection.pool.query(`update ${s}.leases set renewed_at = now() where key = $1 and token = $2::bigint`, [record.key, record.token]);
    if (result.rowCount === 1) {
      clock.renewed(at);
      return undefined;
    }
    lost ??= lockLost(record, await readHolder(connection, record.key).catch(() => undefined), gap);
    return lost;
  };
  // A renewal the database misses is no loss yet: the next confirm() asks again and says why.
  const timer = setInterval(() => void renew().catch(() => undefined), Math.max(100, record.leaseMs / 3));
  timer.unref();
  const confirmHeld = async (): Promise<void> => {
    for (let asked = 1; ; asked += 1) {
      if (lost) throw lost;
      const loss = await renew().catch((error: unknown) => {
        throw backendLost(connection, record.key, error);
      });
      if (loss) throw loss;
      // An answer that arrived past half the lease may be stale (the process paused while it was
      // on its way, and the lease ran out meanwhile): only a timely one lets a write go.
      if (clock.gapMs() < record.leaseMs / 2) return;
      if (asked === timelyTries) throw backendLost(connection, record.key, new Error(`${timelyTries} answers in a row came later than half the lease (${record.leaseMs} ms)`));
    }
  };
  return {
    record,
    ...(tookOverFrom ? { tookOverFrom } : {}),
    confirm: inCallOrder(confirmHeld),
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      // A database out of reach keeps the row until its lease runs out: the next run waits that long, no more.
      await connection.pool.query(`delete from ${s}.leases where key = $1 and token = $2::bigint`, [record.key, record.token]).catch(() => undefined);
    },
  };
}
