// One owner per sandbox state file. `erpsync sandbox` and the CLI's embedded sandbox both persist
// the whole state on every change, so two of them on one file would undo each other's writes.
// The owner claims `<state>.owner` with an exclusive create; a server also publishes where it
// listens, so a CLI run that finds it talks to it instead of starting a second emulator. A claim
// left by a process that no longer exists is taken over.
import { open, readFile, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ErpsyncError } from '../model/errors.js';
import { describeWriteError, makeDirectory, writeFileAtomically } from '../model/write-file-atomically.js';

export interface StateOwner {
  pid: number;
  /** `server`: a running `erpsync sandbox`; `cli`: a command's embedded sandbox. */
  role: 'server' | 'cli';
  /** Where a server listens, and the token it accepts (the owner file is mode 0600). */
  baseUrl?: string;
  token?: string;
  /** A server's requests per second (its rate limit; 0 = off), so runs that talk to it pace themselves. */
  rateLimit?: number;
}

export interface StateClaim {
  /** Tells later runs where this owner's server listens. */
  publish(baseUrl: string, token: string, rateLimit?: number): Promise<void>;
  release(): Promise<void>;
}

export function ownerFileOf(stateFile: string): string {
  return `${stateFile}.owner`;
}

/** Claims the state file, or returns the live owner that holds it. */
export async function claimStateFile(stateFile: string, role: StateOwner['role']): Promise<StateClaim | StateOwner> {
  const file = ownerFileOf(stateFile);
  // The claim is created in place (exclusively), not through writeFileAtomically: its folder is checked here.
  await makeDirectory(dirname(file));
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const created = await createOwnerFile(file, { pid: process.pid, role });
    if (created) return claimOf(file, role);
    const owner = await readOwner(file);
    if (owner && isAlive(owner.pid)) return owner;
    await rm(file, { force: true });
  }
  throw new ErpsyncError('SANDBOX_BUSY', `cannot claim the sandbox state ${stateFile}: ${file} keeps reappearing`);
}

function claimOf(file: string, role: StateOwner['role']): StateClaim {
  let released = false;
  return {
    async publish(baseUrl, token, rateLimit) {
      // Holds the server's token: never through a link planted at a guessable temporary name.
      await writeFileAtomically(file, `${JSON.stringify({ pid: process.pid, role, baseUrl, token, ...(rateLimit === undefined ? {} : { rateLimit }) } satisfies StateOwner)}\n`, { mode: 0o600 });
    },
    async release() {
      if (released) return;
      released = true;
      const owner = await readOwner(file);
      if (owner?.pid === process.pid && owner.role === role) await rm(file, { force: true });
    },
  };
}

/** The claim: an exclusive create (O_EXCL never follows a link), false when the file exists. */
async function createOwnerFile(file: string, owner: StateOwner): Promise<boolean> {
  let handle;
  try {
    handle = await open(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new ErpsyncError('STATE_FILE', `cannot write ${file}`, { cause: error });
  }
  let failed: unknown;
  try {
    await handle.writeFile(`${JSON.stringify(owner)}\n`, 'utf8');
  } catch (error) {
    failed = error;
  } finally {
    await handle.close();
  }
  if (failed === undefined) return true;
  // A full disk: the claim created here is this run's own and holds nothing; none is left behind.
  await rm(file, { force: true });
  throw describeWriteError(failed, file);
}

async function readOwner(file: string): Promise<StateOwner | undefined> {
  try {
    const value = JSON.parse(await readFile(file, 'utf8')) as Partial<StateOwner>;
    return typeof value.pid === 'number' && (value.role === 'server' || value.role === 'cli') ? (value as StateOwner) : undefined;
  } catch {
    // Missing, or caught half-written by its owner: treated as no owner (the exclusive create decides).
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
