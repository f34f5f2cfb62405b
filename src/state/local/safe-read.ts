// Reading a file the local backend did not necessarily write itself — a journal run committed by
// anyone, a drift result — without trusting what stands at its name: no symbolic link is followed
// (the open refuses one), a named pipe cannot block the open, only a regular file is read, and no
// more than `maxBytes` is read whatever its size claims (it may grow meanwhile). What is refused
// comes back in words, for the caller to name the file; nothing here throws on what it finds.
import { constants } from 'node:fs';
import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';

export type SafeRead = { text: string } | { refused: string };

/** What a path is, in words, for a file that is not a regular file. */
function describeType(info: Stats): string {
  if (info.isFIFO()) return 'a named pipe (FIFO)';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  if (info.isDirectory()) return 'a folder';
  return 'not a regular file';
}

function tooLarge(maxBytes: number): SafeRead {
  return { refused: `larger than ${maxBytes / 1024 / 1024} MiB: not read` };
}

/** The text of a regular file of at most `maxBytes`, or why it was not read; undefined when nothing is there. */
export async function readRegularFile(file: string, maxBytes: number): Promise<SafeRead | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    return { refused: code === 'ELOOP' ? 'a symbolic link: not followed' : `cannot be read (${code ?? 'error'})` };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { refused: `${describeType(info)}, not a file: not read` };
    if (info.size > maxBytes) return tooLarge(maxBytes);
    // One byte more than the size claims tells a file that grows (a run still being written):
    // read on, never past one byte more than allowed.
    let buffer = Buffer.allocUnsafe(info.size + 1);
    let total = 0;
    for (;;) {
      if (total === buffer.length) {
        if (total > maxBytes) return tooLarge(maxBytes);
        buffer = Buffer.concat([buffer, Buffer.allocUnsafe(Math.min(buffer.length, maxBytes + 1 - buffer.length))]);
      }
      const { bytesRead } = await handle.read(buffer, total, buffer.length - total, total);
      if (bytesRead === 0) break;
      total += bytesRead;
    }
    return { text: buffer.toString('utf8', 0, total) };
  } catch (error) {
    return { refused: `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  } finally {
    await handle.close();
  }
}
