// One apply per account at a time on this machine. The lock is keyed by the account (its target's
// identity), lives in ERPSYNC_LOCK_DIR (default: a folder of this user in the system's temp dir,
// shared by every checkout), and is taken only by apply. The folder must be this user's own and
// closed to others (created 0700): one another user made first, or could write to, would let them
// block or forge every lock, so it is refused — as is one that is a file or read-only: an apply
// never runs unlocked. After taking over the lock of a run that
// died, apply first waits out the window in which that run's last create could still commit, so
// it cannot plan a record that is about to appear. Across machines, a pipeline's concurrency group
// per account is the lock (see the README).
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { access, lstat, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { acquireLeaseLock, describeOwner } from '../api/lease-lock.js';
import { ErpsyncError } from '../model/errors.js';
import { currentUid, judgeLockFolder, lockDirectory } from '../state/local/lock-folder.js';
import type { HeldLock } from '../api/lease-lock.js';
import type { RunIO } from './run-io.js';
import type { OpenedTarget } from './open-target.js';
import { writeLine } from './run-io.js';

export interface AccountLockOptions {
  /** What identifies the account: see lockKeyOf. */
  key: string;
  timeoutMs: number;
  /** How long a create of unknown outcome may still commit: waited out after taking over from a dead run. */
  inFlightMs: number;
}

/**
 * The account a run changes: a real account by its own id (whatever base URL or target name
 * reaches it); the sandbox by its state file (every sandbox starts from the same seeded company).
 */
export function lockKeyOf(opened: Pick<OpenedTarget, 'target' | 'account'>): string {
  return opened.target.mode === 'sandbox' ? `sandbox ${opened.target.stateFile}` : `account ${opened.account.id}`;
}

/** Creates the lock folder (0700) when missing and refuses one that is not safe to lock in. */
async function prepareLockFolder(dir: string): Promise<void> {
  const refuse = (why: string, cause?: unknown): ErpsyncError =>
    new ErpsyncError('UNSAFE_PATH', `cannot lock the account in ${dir}: ${why}; nothing was changed`, {
      ...(cause === undefined ? {} : { cause }),
      details: ['set ERPSYNC_LOCK_DIR to a folder of your own that only you can write to'],
    });
  await mkdir(dir, { recursive: true, mode: 0o700 }).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    if (code === 'ENOTDIR') throw refuse('a file stands where one of its folders should be', error);
    throw refuse(`it cannot be created (${code ?? String(error)})`, error);
  });
  const stats = await lstat(dir).catch((error: unknown) => {
    throw refuse(`it cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`, error);
  });
  const why = judgeLockFolder(stats, currentUid());
  if (why) throw refuse(why);
  await access(dir, constants.W_OK | constants.X_OK).catch((error: unknown) => {
    throw refuse('it is read-only', error);
  });
}

export async function lockAccount(io: RunIO, options: AccountLockOptions): Promise<HeldLock> {
  const dir = lockDirectory(io.env);
  await prepareLockFolder(dir);
  const file = path.join(dir, `${createHash('sha256').update(options.key).digest('hex').slice(0, 32)}.lock`);
  const leaseMs = Number(io.env.ERPSYNC_LOCK_LEASE_MS) || undefined;
  const lock = await acquireLeaseLock(file, { key: options.key, command: 'erpsync apply', timeoutMs: options.timeoutMs, ...(leaseMs ? { leaseMs } : {}) }).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    // A folder that turned read-only (or full) under a run: refused by name, never run unlocked.
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'ENOSPC') {
      throw new ErpsyncError('UNSAFE_PATH', `cannot lock the account in ${dir}: ${code === 'ENOSPC' ? 'the disk is full' : 'it is read-only'}; nothing was changed`, { cause: error });
    }
    throw error;
  });
  const previous = lock.tookOverFrom;
  if (previous) {
    // The dead run may have died right before its next renewal, with a create just sent.
    const wait = previous.renewedAt + previous.leaseMs / 3 + options.inFlightMs - Date.now();
    if (wait > 0) {
      writeLine(io.stderr, `erpsync: took over the lock of ${describeOwner(previous)}, which stopped; waiting ${Math.ceil(wait / 1000)} s for what it may still have in flight`);
      await delay(wait, undefined, { signal: io.signal }).catch(() => undefined);
    }
  }
  return lock;
}
