// The local backend's leases: one lock file per key in the lock folder (lock-folder.ts), taken and
// fenced by the lease lock of src/api/lease-lock.ts. It holds on this machine only: across
// machines a pipeline's concurrency group per account must serialize runs (or the postgres
// backend). It never runs a caller unlocked: a folder that is unsafe, read-only or full refuses.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { acquireLeaseLock } from '../../api/lease-lock.js';
import type { LeaseStore } from '../state-store.js';
import { lockDirectory, prepareLockFolder, unsafeLockFolder } from './lock-folder.js';

/** The lock file of `key` in the lock folder `dir`: named by a hash, so no key can name a path. */
export function leaseFileOf(dir: string, key: string): string {
  return path.join(dir, `${createHash('sha256').update(key).digest('hex').slice(0, 32)}.lock`);
}

/** Leases in this user's lock folder; `cwd` plays no part: every checkout of this user shares the folder. */
export function localLeases(context: { cwd: string; env: NodeJS.ProcessEnv }): LeaseStore {
  return {
    async acquire(request) {
      const dir = lockDirectory(context.env);
      await prepareLockFolder(dir);
      const { key, command, timeoutMs, leaseMs, pollMs } = request;
      const options = { key, command, timeoutMs, ...(leaseMs ? { leaseMs } : {}), ...(pollMs ? { pollMs } : {}) };
      return acquireLeaseLock(leaseFileOf(dir, key), options).catch((error: unknown) => {
        const code = (error as NodeJS.ErrnoException).code;
        // A folder that turned read-only (or full) under a run: refused by name, never run unlocked.
        if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'ENOSPC') {
          throw unsafeLockFolder(dir, code === 'ENOSPC' ? 'the disk is full' : 'it is read-only', error);
        }
        throw error;
      });
    },
  };
}
