// One apply per account at a time on this machine. The lock is keyed by the account (its target's
// identity), lives in ERPSYNC_LOCK_DIR (default: a folder of this user in the system's temp dir,
// shared by every checkout), and is taken only by apply. After taking over the lock of a run that
// died, apply first waits out the window in which that run's last create could still commit, so
// it cannot plan a record that is about to appear. Across machines, a pipeline's concurrency group
// per account is the lock (see the README).
import { createHash } from 'node:crypto';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { acquireLeaseLock, describeOwner } from '../api/lease-lock.js';
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

export function lockDirectory(env: NodeJS.ProcessEnv): string {
  return env.ERPSYNC_LOCK_DIR || path.join(tmpdir(), `erpsync-locks-${userInfo().uid}`);
}

export async function lockAccount(io: RunIO, options: AccountLockOptions): Promise<HeldLock> {
  const file = path.join(lockDirectory(io.env), `${createHash('sha256').update(options.key).digest('hex').slice(0, 32)}.lock`);
  const leaseMs = Number(io.env.ERPSYNC_LOCK_LEASE_MS) || undefined;
  const lock = await acquireLeaseLock(file, { key: options.key, command: 'erpsync apply', timeoutMs: options.timeoutMs, ...(leaseMs ? { leaseMs } : {}) });
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
