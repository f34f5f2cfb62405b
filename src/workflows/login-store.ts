// The login store a command uses for a backend choice: `erpsync login`, `login --refresh` and
// `targets --check --json` get their LoginStore here — the logins of the process's state store
// (run-state.ts), which the CLI's edge closes. It never prints, and no message it makes quotes
// the database URL or the key.
import type { BackendChoice } from '../api/index.js';
import type { StateStore } from '../state/state-store.js';
import type { RunIO } from './run-io.js';
import { stateStoreFor } from './run-state.js';

export interface OpenedLogins {
  logins: StateStore['logins'];
  /** The store's IP budget: a refresh is a token call, counted per egress name. */
  ipBudget: StateStore['ipBudget'];
  /** For messages: where the logins are kept (never a password or key). */
  where: string;
}

export async function loginStoreFor(choice: BackendChoice, io: Pick<RunIO, 'cwd' | 'env'>): Promise<OpenedLogins> {
  const state = await stateStoreFor(choice, io);
  // The key is read here: a run without it is refused before it asks for any login.
  const logins = state.logins;
  return { logins, ipBudget: state.ipBudget, where: choice.kind === 'local' ? 'the local credentials files' : state.location };
}
