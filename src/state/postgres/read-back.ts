// The postgres backend's read-back memory: one row per account in `read_back`, the memory as
// jsonb, shared by every runner. What is read is checked entry by entry as the local file's is
// (state/read-checks): a row of another shape is an empty memory, never used as it is. Saving
// replaces that account's row in one statement. It decides nothing about runs.
import { accountReadBackOf } from '../read-checks.js';
import type { AccountReadBack, ReadBackStore } from '../state-store.js';
import { queryBackend } from './backend-error.js';
import type { PostgresConnection } from './connect.js';

export function postgresReadBack(connection: PostgresConnection): ReadBackStore {
  const s = connection.schema;
  return {
    async load(accountId) {
      const rows = await queryBackend<{ memory: unknown }>(connection, 'reading the read-back memory', `select memory from ${s}.read_back where account_id = $1`, [accountId]);
      return accountReadBackOf(rows[0]?.memory);
    },
    async save(accountId, memory) {
      await queryBackend(
        connection,
        'saving the read-back memory',
        `insert into ${s}.read_back (account_id, memory) values ($1, $2::jsonb)
         on conflict (account_id) do update set memory = excluded.memory, updated_at = now()`,
        [accountId, JSON.stringify(memory)],
      );
    },
  };
}

/** `backend import`: each account's local memory the backend lacks; an account it holds already keeps the backend's (the shared one is the newer). */
export async function importReadBack(connection: PostgresConnection, accounts: Record<string, AccountReadBack>): Promise<number> {
  let imported = 0;
  for (const [accountId, memory] of Object.entries(accounts)) {
    const rows = await queryBackend(
      connection,
      'importing the read-back memory',
      `insert into ${connection.schema}.read_back (account_id, memory) values ($1, $2::jsonb) on conflict (account_id) do nothing returning account_id`,
      [accountId, JSON.stringify(memory)],
    );
    imported += rows.length;
  }
  return imported;
}
