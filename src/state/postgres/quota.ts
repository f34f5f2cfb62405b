// The postgres backend's request count: per account and service day in `quota_counts`, the
// account each target reached in `quota_targets`, shared by every runner — so the count is what
// all of them sent, not one machine's. A run's requests are added in one statement (an insert
// that adds to the row already there), so runners recording at once never lose a count. What is
// read back is checked before it is used. It decides nothing and prints nothing.
import { ErpsyncError } from '../../model/errors.js';
import { serviceDayOf } from '../../model/service-day.js';
import { quotaLeftOf } from '../quota-left.js';
import type { QuotaStore } from '../state-store.js';
import { queryBackend } from './backend-error.js';
import type { PostgresConnection } from './connect.js';

export function postgresQuota(connection: PostgresConnection): QuotaStore {
  const s = connection.schema;
  return {
    async knownAccount(_quota, targetKey) {
      const rows = await queryBackend<{ account_id: unknown }>(connection, 'reading the request count', `select account_id from ${s}.quota_targets where target_key = $1`, [targetKey]);
      const accountId = rows[0]?.account_id;
      return typeof accountId === 'string' ? accountId : undefined;
    },
    async rememberAccount(_quota, targetKey, accountId) {
      await queryBackend(
        connection,
        'writing the request count',
        `insert into ${s}.quota_targets as t (target_key, account_id) values ($1, $2)
         on conflict (target_key) do update set account_id = excluded.account_id where t.account_id <> excluded.account_id`,
        [targetKey, accountId],
      );
    },
    async left(quota, accountId, sentThisRun, now = new Date()) {
      const day = serviceDayOf(now);
      const rows = await queryBackend<{ sent: unknown; spent: unknown }>(connection, 'reading the request count', `select sent, spent from ${s}.quota_counts where account_id = $1 and day = $2`, [accountId, day]);
      const row = rows[0];
      return quotaLeftOf(quota, { sent: row ? sentOf(row.sent, connection.where) : 0, spent: row?.spent === true, day }, sentThisRun);
    },
    async record(_quota, accountId, sent, dailyQuotaMet, now = new Date()) {
      if (sent === 0 && !dailyQuotaMet) return;
      await queryBackend(
        connection,
        'writing the request count',
        `insert into ${s}.quota_counts as c (account_id, day, sent, spent) values ($1, $2, $3, $4)
         on conflict (account_id, day) do update set sent = c.sent + excluded.sent, spent = c.spent or excluded.spent`,
        [accountId, serviceDayOf(now), sent, dailyQuotaMet],
      );
    },
  };
}

/** A count as the driver hands a bigint (a string), checked: a whole number of requests, not negative. */
function sentOf(value: unknown, where: string): number {
  const sent = typeof value === 'string' || typeof value === 'number' ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(sent) || sent < 0) throw new ErpsyncError('STATE_FILE', `the request count in the postgres backend at ${where} is not one erpsync wrote`);
  return sent;
}
