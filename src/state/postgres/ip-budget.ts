// The postgres backend's IP budget: the windows of one egress name shared live by every process
// that names it, on any machine, through the table `ip_holders` (one row per holder: a process's
// governor, keyed by a random id). The claims' logic is ../ip-claims, shared with the local
// backend; here a claim is one transaction under an advisory lock on the egress, so it reads every
// holder's marks, writes its own with the new batch and commits with no other claim between: no
// second read is needed. Requests are claimed in batches, so the database is not a round trip per
// request. Marks are the clients' wall-clock ms (the governor's clock); a row is judged stale by
// the server's clock (`seen_at`, now()), so a machine whose clock is off cannot make another's row
// look old. No process across machines can be checked for life: a killed holder's claims count
// until their leases end. Nothing here prints; a database that fails is no book for a while (the
// governor's own windows still hold); the rows hold nothing but times, a host name and a pid.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Governor } from '../../api/index.js';
import { handOnShare, keepHolderMs, marksOf, shareThrough } from '../ip-claims.js';
import type { HolderBook, HolderMarks, OwnMarks } from '../ip-claims.js';
import type { IpBudgetStore } from '../state-store.js';
import type { PostgresConnection } from './connect.js';
import { inTransaction } from './connect.js';

/** The advisory locks' first key for IP budget claims ("ipbu" in ASCII); the second is the egress's hash. */
const claimLockClass = 0x69706275;

interface Queryable {
  query: PostgresConnection['pool']['query'];
}

/** A row read back as a holder's marks, or none when it is not one erpsync writes. */
function holderOf(row: Record<string, unknown>): HolderMarks | undefined {
  const [requests, errors, tokenCalls] = [marksOf(row.requests), marksOf(row.errors), marksOf(row.token_calls)];
  const savedAt = row.saved_at;
  if (typeof savedAt !== 'number' || !Number.isFinite(savedAt) || requests === undefined || errors === undefined || tokenCalls === undefined) return undefined;
  return { savedAt, gone: false, requests, errors, tokenCalls };
}

/** The holders of `egress` in the schema, as this holder reads and writes them. */
function holderBook(connection: PostgresConnection, egress: string, holder: string, storeId: string): HolderBook {
  const s = connection.schema;
  const table = `${s}.ip_holders`;
  // Stale rows are removed by the statement that reads the others (it cannot see its own delete, so it skips them too).
  const readOthers = async (on: Queryable): Promise<HolderMarks[]> => {
    const found = await on.query<Record<string, unknown>>(
      `with stale as (delete from ${table} where egress = $1 and seen_at < now() - make_interval(secs => $3::float8 / 1000))
       select saved_at::float8 as saved_at, requests::float8[] as requests, errors::float8[] as errors, token_calls::float8[] as token_calls
       from ${table} where egress = $1 and holder <> $2 and seen_at >= now() - make_interval(secs => $3::float8 / 1000)`,
      [egress, holder, keepHolderMs],
    );
    return found.rows.flatMap((row) => holderOf(row) ?? []);
  };
  // A write that arrives after a later one of the same holder (one given up on, then answered) changes nothing.
  const write = async (on: Queryable, own: OwnMarks): Promise<void> => {
    await on.query(
      `insert into ${table} as held (egress, holder, host, pid, saved_at, requests, errors, token_calls, seen_at)
       values ($1, $2, $3, $4, $5, $6::bigint[], $7::bigint[], $8::bigint[], now())
       on conflict (egress, holder) do update set saved_at = excluded.saved_at, requests = excluded.requests, errors = excluded.errors, token_calls = excluded.token_calls, seen_at = excluded.seen_at
       where held.saved_at <= excluded.saved_at`,
      [egress, holder, hostname(), process.pid, own.savedAt, own.requests, own.errors, own.tokenCalls],
    );
  };
  return {
    key: `${storeId} ${egress}`,
    read: () => readOthers(connection.pool),
    write: (own) => write(connection.pool, own),
    claimExclusively: (decide) =>
      inTransaction(connection, async (client) => {
        await client.query('select pg_advisory_xact_lock($1, hashtext($2))', [claimLockClass, `${connection.choice.schema} ${egress}`]);
        const own = decide(await readOthers(client));
        if (own !== undefined) await write(client, own);
      }),
  };
}

/**
 * The IP budget shared by every process naming the same egress on this database: `share` counts
 * what the others sent in the last windows before the governor's first request, and tells them
 * of its own as it sends (once per governor and egress); `handOn` writes what its windows hold and
 * gives back the slots it held. `runner` names this runner in its holders' ids.
 */
export function postgresIpBudget(connection: PostgresConnection, context: { runner?: string } = {}): IpBudgetStore {
  const storeId = randomBytes(6).toString('hex');
  return {
    async share(governor: Governor, egress: string) {
      const holder = `${context.runner === undefined ? '' : `${context.runner.slice(0, 100)} `}${randomBytes(8).toString('hex')}`;
      await shareThrough(governor, holderBook(connection, egress, holder, storeId));
    },
    handOn: handOnShare,
  };
}
