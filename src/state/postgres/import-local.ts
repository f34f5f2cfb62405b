// `erpsync backend import`: moves what a local `.erpsync/` kept into the postgres backend — the
// journal's run files (every line the database lacks) and the read-back memory (each account the
// database lacks) — without duplicating anything when run twice: lines are keyed by run and place,
// memories by account, and what the database holds already is kept. The local files are left as
// they are. It prints nothing: the caller reports the counts.
import { readLocalReadBack } from '../local/read-back.js';
import type { PostgresConnection } from './connect.js';
import type { JournalImport } from './journal.js';
import { importLocalJournal } from './journal.js';
import { importReadBack } from './read-back.js';
import type { JournalLocation } from '../state-store.js';

export interface LocalStateImport {
  journal: JournalImport;
  /** Accounts whose read-back memory the database did not have. */
  readBackAccounts: number;
}

export async function importLocalState(connection: PostgresConnection, from: { journals: readonly JournalLocation[]; cwd: string }, context: { runner?: string }): Promise<LocalStateImport> {
  const journal = await importLocalJournal(connection, from.journals, context);
  const readBackAccounts = await importReadBack(connection, await readLocalReadBack(from.cwd));
  return { journal, readBackAccounts };
}
