// The one way erpsync writes a file it owns: saved plans, drift reports, exports, adopted
// manifests, OAuth credentials, the sandbox state and its key. It lives in model/ although it is
// file-system code rather than vocabulary because every layer that writes needs it, and the
// emulator may import nothing but model/ (DESIGN §1): one helper here instead of one per layer.
//
// A file is written whole or not at all: the text goes into a new temporary file beside it (same
// folder, so the rename cannot cross file systems), is flushed to disk, and is renamed over the
// final path; then the folder's entry is flushed too. A reader sees the old file or the new one,
// never half of one, and a crash leaves at most a stray `.name.<random>.tmp`.
//
// No write goes through a symbolic link. The temporary name is unpredictable and created with
// O_CREAT|O_EXCL|O_NOFOLLOW, so a link planted at it fails the create instead of redirecting it.
// A link at the final path is refused (UNSAFE_PATH) and left as it is, target and all: silently
// replacing it would break whatever layout it serves, and writing through it could overwrite any
// file the user can write. Should a link appear between the check and the rename, the rename
// replaces the link itself (rename never follows one), so its target is still never written.
// Nor does a write go through a linked folder: the file's own folder, and every folder below the
// caller's working directory (`within`: where a repository could plant `reports -> ~/.ssh`), must
// be real folders, checked before any folder is created (makeDirectory) and before the write.
// Folders above the working directory are the user's choice of where to write, and trusted.
//
// A write that fails — the disk full (ENOSPC, EDQUOT), no permission (EACCES, EPERM, a read-only
// file system) — is a FILE_UNWRITABLE error naming the file and the cause, the old file is left
// as it was, and the temporary file is removed.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { link, lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { ErpsyncError } from './errors.js';

export interface WriteFileOptions {
  /**
   * The file's permission bits, set exactly (the umask does not filter them): 0o600 for files
   * that hold secrets, the old file's mode for a file rewritten in place. Without it, the mode a
   * new file gets (0o666 less the umask).
   */
  mode?: number;
  /**
   * Creates the file only if nothing is at its path yet (a key two processes may create at once:
   * the first one wins, the other gets EEXIST and reads the winner's). Still atomic: the file
   * appears complete, through a hard link from the temporary file.
   */
  exclusive?: boolean;
  /** The working directory: no folder below it on the way to the file may be a symbolic link. */
  within?: string;
}

/** Tries at a fresh temporary name when one is taken (a collision, or a name planted on purpose). */
const tempAttempts = 8;
/** Keeps `.name.<random>.tmp` within the usual 255-byte limit of a file name. */
const maxNameInTemp = 200;
/** O_NOFOLLOW is POSIX; where the platform lacks it, O_EXCL alone still refuses a link at the name. */
const createFlags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

export async function writeFileAtomically(file: string, text: string | Uint8Array, options: WriteFileOptions = {}): Promise<void> {
  await refuseLinkedFolders(file, options.within);
  await refuseSymbolicLink(file);
  try {
    await writeThroughTemporary(file, text, options);
  } catch (error) {
    throw describeWriteError(error, file);
  }
}

async function writeThroughTemporary(file: string, text: string | Uint8Array, options: WriteFileOptions): Promise<void> {
  const { handle, temp } = await createTemporary(file, options.mode);
  try {
    try {
      // The creation mode went through the umask; the asked-for mode is set exactly.
      if (options.mode !== undefined) await handle.chmod(options.mode);
      await handle.writeFile(text, typeof text === 'string' ? 'utf8' : undefined);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (options.exclusive) await linkInPlace(temp, file);
    else await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  if (options.exclusive) await rm(temp, { force: true });
  await syncDirectory(dirname(file));
}

/** Creates a folder erpsync writes into (and those above it), refusing a linked one on the way first. */
export async function makeDirectory(directory: string, options: { within?: string; mode?: number } = {}): Promise<void> {
  await refuseLinkedFolders(join(directory, '.'), options.within, true);
  try {
    await mkdir(directory, { recursive: true, ...(options.mode === undefined ? {} : { mode: options.mode }) });
  } catch (error) {
    // EEXIST from mkdir is a file where the folder should be (an exclusive write's EEXIST is its caller's business).
    throw (error as NodeJS.ErrnoException).code === 'EEXIST' ? new ErpsyncError('FILE_UNWRITABLE', `cannot create the folder ${directory}: a file stands at its path`) : describeWriteError(error, directory);
  }
  // A link planted between the check and the creation is refused before anything is written into it.
  await refuseLinkedFolders(join(directory, '.'), options.within, true);
}

/** What the user can do about a write that failed, by its cause; other failures keep their own error. */
const writeFailures: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'a folder stands at its path',
  ENOTEMPTY: 'a folder stands at its path',
};

/** A failed write of `file` as FILE_UNWRITABLE naming the file and the cause, where the cause is one a user can act on; other errors as they are. */
export function describeWriteError(error: unknown, file: string): unknown {
  if (error instanceof ErpsyncError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const why = code === undefined ? undefined : writeFailures[code];
  if (why === undefined) return error;
  return new ErpsyncError('FILE_UNWRITABLE', `cannot write ${file}: ${why} (${code})`, {
    details: ['the file that was there is unchanged, and no temporary file was left behind'],
  });
}

/**
 * Refuses (UNSAFE_PATH) when a folder on the way to `file` is a symbolic link: its own folder,
 * and every folder below `within`. A folder that does not exist yet is fine: erpsync creates it.
 * `self` checks `file` itself as a folder too (makeDirectory).
 */
async function refuseLinkedFolders(file: string, within: string | undefined, self = false): Promise<void> {
  const absolute = resolve(file);
  const base = within === undefined ? undefined : resolve(within);
  const folders: string[] = [];
  for (let folder = self ? absolute : dirname(absolute); ; folder = dirname(folder)) {
    const below = base !== undefined && folder.startsWith(`${base}${sep}`);
    if (folders.length === 0 ? folder !== base : below) folders.push(folder);
    if (!below || dirname(folder) === folder) break;
  }
  for (const folder of folders) {
    let isLink: boolean;
    try {
      isLink = (await lstat(folder)).isSymbolicLink();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') continue;
      throw error;
    }
    if (isLink) throw unsafePath(file, folder);
  }
}

/**
 * Refuses (UNSAFE_PATH) when `file` is a symbolic link; nothing there, or a file, passes. For a
 * caller that must know before it does something it cannot undo (a refresh token is rotated
 * before the new one is written).
 */
export async function refuseSymbolicLink(file: string): Promise<void> {
  let isLink: boolean;
  try {
    isLink = (await lstat(file)).isSymbolicLink();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (isLink) throw unsafePath(file);
}

function unsafePath(file: string, folder?: string): ErpsyncError {
  return new ErpsyncError('UNSAFE_PATH', `refusing to write ${file}: ${folder === undefined ? 'it' : `the folder ${folder}`} is a symbolic link`, {
    details: ['erpsync never writes through a link, and left it and the file it points to as they are: remove the link, or use the real path'],
  });
}

async function createTemporary(file: string, mode: number | undefined): Promise<{ handle: FileHandle; temp: string }> {
  const prefix = join(dirname(file), `.${basename(file).slice(0, maxNameInTemp)}.`);
  for (let attempt = 1; ; attempt += 1) {
    const temp = `${prefix}${randomBytes(9).toString('base64url')}.tmp`;
    try {
      return { handle: await open(temp, createFlags, mode ?? 0o666), temp };
    } catch (error) {
      // Something is already at that name (a link, a file): never touch it, take another name.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= tempAttempts) throw error;
    }
  }
}

/** The exclusive variant of the rename: a hard link fails, rather than replaces, when the path is taken. */
async function linkInPlace(temp: string, file: string): Promise<void> {
  try {
    await link(temp, file);
  } catch (error) {
    // A link planted after the first check: refused as one, not reported as someone else's file.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') await refuseSymbolicLink(file);
    throw error;
  }
}

/** Makes the rename itself survive a crash. Platforms that cannot open a folder for it skip this. */
async function syncDirectory(directory: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(directory, constants.O_RDONLY);
  } catch (error) {
    if (isUnsupported(error)) return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    if (!isUnsupported(error)) throw error;
  } finally {
    await handle.close();
  }
}

function isUnsupported(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EISDIR' || code === 'EPERM' || code === 'EINVAL' || code === 'ENOTSUP';
}
