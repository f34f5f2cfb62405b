// The login store a command uses for a backend choice: `erpsync login`, `login --refresh` and
// `targets --check --json` get their LoginStore here and nowhere else, and close it when done.
// It opens the store and nothing more; it never prints, and no message it makes quotes the
// database URL or the key.
//
// LEAD: this is the one call to replace once src/workflows/run-state.ts is on main —
//   const state = await stateStoreFor(choice, io); return { logins: state.logins, close: async () => {} };
// (the process's store, closed by whoever owns it). Until then it opens the logins sub-store alone.
import type { BackendChoice } from '../api/index.js';
import { sealingKeyFrom } from '../state/crypto.js';
import { localLogins } from '../state/local/logins.js';
import { connectPostgres } from '../state/postgres/connect.js';
import { postgresLogins } from '../state/postgres/logins.js';
import type { LoginStore } from '../state/state-store.js';
import type { RunIO } from './run-io.js';

export interface OpenedLogins {
  logins: LoginStore;
  /** For messages: where the logins are kept (never a password or key). */
  where: string;
  close(): Promise<void>;
}

export async function loginStoreFor(choice: BackendChoice, io: Pick<RunIO, 'cwd' | 'env'>): Promise<OpenedLogins> {
  if (choice.kind === 'local') return { logins: localLogins(), where: 'the local credentials files', close: () => Promise.resolve() };
  // The key first: a run without it is refused before it connects anywhere.
  const key = sealingKeyFrom(io.env, choice.keyEnv);
  const connection = await connectPostgres(choice, io.env);
  return { logins: postgresLogins(connection, key), where: `the postgres backend at ${connection.where} (schema ${choice.schema})`, close: () => connection.close() };
}
