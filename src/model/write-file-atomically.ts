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
// The folders above the file are trusted: they are the user's choice of where to write.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { link, lstat, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
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
}

/** Tries at a fresh temporary name when one is taken (a collision, or a name planted on purpose). */
const tempAttempts = 8;
/** Keeps `.name.<random>.tmp` within the usual 255-byte limit of a file name. */
const maxNameInTemp = 200;
/** O_NOFOLLOW is POSIX; where the platform lacks it, O_EXCL alone still refuses a link at the name. */
const createFlags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

export async function writeFileAtomically(file: string, text: string | Uint8Array, options: WriteFileOptions = {}): Promise<void> {
  await refuseSymbolicLink(file);
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

function unsafePath(file: string): ErpsyncError {
  return new ErpsyncError('UNSAFE_PATH', `refusing to write ${file}: it is a symbolic link`, {
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
