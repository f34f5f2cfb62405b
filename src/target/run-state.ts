// The run's state stores: one per backend choice for the whole process (a fleet's stores share
// one pool of database connections), opened on first use and closed by the CLI's edge when the
// command ends. A workflow asks for the store of its target's choice; it never opens its own.
import { createHash } from 'node:crypto';
import type { BackendChoice } from '../api/index.js';
import type { StateStore } from '../state/state-store.js';
import { isErpsyncError } from '../model/errors.js';
import type { RunIO } from '../model/run-io.js';
import { writeLine } from '../model/run-io.js';

const opened = new Map<string, Promise<StateStore>>();

/** The store of `choice` for this process, opened once (a failed opening is tried again by the next caller). */
export function stateStoreFor(choice: BackendChoice, io: Pick<RunIO, 'cwd' | 'env'>): Promise<StateStore> {
  // The same choice names other servers and keys in another environment (commands run in one process with their own).
  const reads = choice.kind === 'postgres' ? createHash('sha256').update(`${io.env[choice.urlEnv] ?? ''}\0${io.env[choice.keyEnv] ?? ''}`).digest('hex') : '';
  const key = JSON.stringify([choice, io.cwd, reads]);
  let store = opened.get(key);
  if (store === undefined) {
    // Loaded on first use: a command that keeps no state (validate, --version) never loads a backend.
    store = import('../state/open-state.js').then(({ openStateStore }) => openStateStore(choice, { cwd: io.cwd, env: io.env }));
    opened.set(key, store);
    store.catch(() => opened.delete(key));
  }
  return store;
}

let commandsRunning = 0;

/**
 * Runs one command and then closes every store this process opened, once no other command of the
 * same process (tests run several at once) still runs.
 */
export async function withStateStores<T>(command: () => Promise<T>): Promise<T> {
  commandsRunning += 1;
  try {
    return await command();
  } finally {
    commandsRunning -= 1;
    if (commandsRunning === 0) {
      const stores = [...opened.values()];
      opened.clear();
      await Promise.all(stores.map((store) => store.then((s) => s.close()).catch(() => undefined)));
    }
  }
}

/**
 * For state that only saves requests or counts (read-back memory, the daily request count): a
 * write the store could not make is a warning naming `what`, never the run's failure — the run
 * itself went as it went. Any other error is thrown on.
 */
export function warnWhenUnwritten(io: Pick<RunIO, 'stderr'>, what: string): (error: unknown) => void {
  return (error) => {
    if (!isErpsyncError(error) || !['FILE_UNWRITABLE', 'UNSAFE_PATH', 'BACKEND_LOST'].includes(error.code)) throw error;
    writeLine(io.stderr, `erpsync: warning: ${what} was not updated: ${error.message}`);
  };
}
