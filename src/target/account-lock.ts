// One apply per account at a time: the account's lease, taken from the run's state store (local:
// on this machine; postgres: across every machine sharing the database), and keyed by the account
// (its target's identity). Apply takes it, and whatever settles the outcomes a run's journal left
// unknown (they may be settled only once that run is over). After taking over the lease of a run that died,
// apply first waits out the window in which that run's last create could still commit, so it
// cannot plan a record that is about to appear. How a lease is held and fenced is the store's.
import { setTimeout as delay } from 'node:timers/promises';
import { describeOwner } from '../api/lease-lock.js';
import type { HeldLock } from '../api/lease-lock.js';
import type { LeaseStore } from '../state/state-store.js';
import type { RunIO } from '../model/run-io.js';
import type { OpenedTarget } from './open-target.js';
import { writeLine } from '../model/run-io.js';
import { ErpsyncError } from '../model/errors.js';

export interface AccountLockOptions {
  /** What identifies the account: see lockKeyOf. */
  key: string;
  timeoutMs: number;
  /** How long a create of unknown outcome may still commit: waited out after taking over from a dead run. */
  inFlightMs: number;
  /** What holds it, shown to whoever finds it held (default `erpsync apply`). */
  command?: string;
  /**
   * `refuse`: rather than wait out what a dead run may still have in flight, let the lease go
   * again and refuse (LOCKED, saying how long is left) — for a command that only reads (history).
   */
  inFlight?: 'wait' | 'refuse';
}

/**
 * The account a run changes: a real account by its own id (whatever base URL or target name
 * reaches it); the sandbox by its state file (every sandbox starts from the same seeded company).
 */
export function lockKeyOf(opened: Pick<OpenedTarget, 'target' | 'account'>): string {
  return opened.target.mode === 'sandbox' ? `sandbox ${opened.target.stateFile}` : `account ${opened.account.id}`;
}

export async function lockAccount(leases: LeaseStore, io: RunIO, options: AccountLockOptions): Promise<HeldLock> {
  const leaseMs = Number(io.env.ERPSYNC_LOCK_LEASE_MS) || undefined;
  const lock = await leases.acquire({ key: options.key, command: options.command ?? 'erpsync apply', timeoutMs: options.timeoutMs, ...(leaseMs ? { leaseMs } : {}) });
  const previous = lock.tookOverFrom;
  if (previous) {
    // The dead run may have died right before its next renewal, with a create just sent.
    const wait = previous.renewedAt + previous.leaseMs / 3 + options.inFlightMs - Date.now();
    if (wait > 0 && options.inFlight === 'refuse') {
      await lock.release();
      throw new ErpsyncError('LOCKED', `${describeOwner(previous)} stopped less than ${Math.ceil(wait / 1000)} s before what it may have had in flight can have landed`);
    }
    if (wait > 0) {
      writeLine(io.stderr, `erpsync: took over the lock of ${describeOwner(previous)}, which stopped; waiting ${Math.ceil(wait / 1000)} s for what it may still have in flight`);
      await delay(wait, undefined, { signal: io.signal }).catch(() => undefined);
    }
  }
  return lock;
}
