// The local backend's lock folder: ERPSYNC_LOCK_DIR, or by default a folder of this user in the
// system's temp dir, shared by every checkout (account leases, the IP ledger). It must be this
// user's own and closed to others (created 0700): one another user made first, or could write to,
// would let them block or forge every lock in it, so it is refused — as is one that is a symbolic
// link, a file or read-only. It holds no secret and decides nothing about who holds a lease.
import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import { access, lstat, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ErpsyncError } from '../../model/errors.js';

/** The user by number: a container's uid may have no passwd entry, so no name is ever asked for. */
export function currentUid(): number | undefined {
  return process.getuid?.();
}

export function lockDirectory(env: NodeJS.ProcessEnv): string {
  return env.ERPSYNC_LOCK_DIR || path.join(tmpdir(), `erpsync-locks-${currentUid() ?? 'user'}`);
}

/** Why a lock folder may not be used, or undefined when it is this user's own and closed to others. */
export function judgeLockFolder(stats: Pick<Stats, 'uid' | 'mode'> & { isDirectory(): boolean; isSymbolicLink(): boolean }, uid: number | undefined): string | undefined {
  if (stats.isSymbolicLink()) return 'it is a symbolic link (point ERPSYNC_LOCK_DIR at the folder itself)';
  if (!stats.isDirectory()) return 'it is not a folder';
  // Permissions and owners are POSIX facts; elsewhere the folder is the user's profile's.
  if (uid === undefined) return undefined;
  if (stats.uid !== uid) return `it belongs to another user (uid ${stats.uid}), who could block or forge every lock in it`;
  if ((stats.mode & 0o022) !== 0) return `others can write to it (mode ${(stats.mode & 0o777).toString(8).padStart(3, '0')}), so they could block or forge every lock in it; \`chmod 700\` it`;
  return undefined;
}

/** The refusal to lock in `dir`, saying why: an apply never runs unlocked. */
export function unsafeLockFolder(dir: string, why: string, cause?: unknown): ErpsyncError {
  return new ErpsyncError('UNSAFE_PATH', `cannot lock the account in ${dir}: ${why}; nothing was changed`, {
    ...(cause === undefined ? {} : { cause }),
    details: ['set ERPSYNC_LOCK_DIR to a folder of your own that only you can write to'],
  });
}

/** Creates the lock folder (0700) when missing and refuses one that is not safe to lock in. */
export async function prepareLockFolder(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 }).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    if (code === 'ENOTDIR') throw unsafeLockFolder(dir, 'a file stands where one of its folders should be', error);
    throw unsafeLockFolder(dir, `it cannot be created (${code ?? String(error)})`, error);
  });
  const stats = await lstat(dir).catch((error: unknown) => {
    throw unsafeLockFolder(dir, `it cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`, error);
  });
  const why = judgeLockFolder(stats, currentUid());
  if (why) throw unsafeLockFolder(dir, why);
  await access(dir, constants.W_OK | constants.X_OK).catch((error: unknown) => {
    throw unsafeLockFolder(dir, 'it is read-only', error);
  });
}
