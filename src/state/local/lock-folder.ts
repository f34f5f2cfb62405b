// The per-user lock folder the local backend keeps its machine-wide state in (account locks, the
// IP budget's ledger): where it is, and whether it is safe to use. It must be this user's own and
// closed to others: one another user made first, or could write to, would let them block or forge
// everything in it. This file only judges; creating the folder and refusing it are its callers'.
import type { Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

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
