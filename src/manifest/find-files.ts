// Expands the paths a user names into the sorted list of manifest files, and reads them. Only
// regular files are read: a FIFO would hang the run, a device (`/dev/zero`) would fill memory, so
// anything else — directly or behind a symbolic link — is refused with a diagnostic naming the
// path the user has. Sizes are checked before reading and again while reading (a file may grow),
// and a folder with more files or depth than any store's configuration needs is refused.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Diagnostic, SourcePosition } from '../model/diagnostics.js';

const manifestExtension = /\.ya?ml$/i;
/** erpsync's own config sits beside the manifests but is never one of them. */
export const configFileName = /^erpsync\.config\.ya?ml$/i;
const skippedDirectories = new Set(['node_modules', '.git', '.erpsync']);

/** Whether a folder scan descends into a folder of this name. */
function scansDirectory(name: string): boolean {
  return !skippedDirectories.has(name) && !name.startsWith('.');
}

/** Whether a folder scan takes a file of this name as a manifest candidate. */
function scansFile(name: string): boolean {
  return manifestExtension.test(name) && !configFileName.test(name);
}

/**
 * Whether a folder scan of `folder` meets `file` (absolute paths; depth and count limits aside): what
 * a target reads of a folder, told from the paths alone (a file gone from the work tree too).
 */
export function isScannedFrom(folder: string, file: string): boolean {
  const relative = path.relative(folder, file);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return false;
  const segments = relative.split(path.sep);
  const name = segments.pop() ?? '';
  return segments.every(scansDirectory) && scansFile(name);
}

/** Larger files are refused before parsing: no store's configuration is this big. */
export const maxFileBytes = 8 * 1024 * 1024;
/** More manifest files than this in one set is a wrong folder, not a store. */
export const maxManifestFiles = 1000;
/** Read size once the file has given what its size claimed (it is growing). */
const growthChunkBytes = 64 * 1024;
/** Folders nested deeper than this below a named folder are not read. */
export const maxDepth = 16;

export interface FoundFiles {
  /** Absolute paths, in reading order. */
  files: string[];
  /** Files found by a directory scan (not named one by one): read only when they look like manifests. */
  scanned: ReadonlySet<string>;
  diagnostics: Diagnostic[];
}

export function displayPath(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

/** What a path is, in words, for a file that is not a regular file. */
function describeType(info: Stats): string {
  if (info.isFIFO()) return 'a named pipe (FIFO)';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  if (info.isDirectory()) return 'a directory';
  return 'not a regular file';
}

function describeErrno(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return 'the symbolic link leads in a loop';
  if (code === 'ENOENT') return 'the symbolic link points at nothing';
  return `cannot read this path (${code ?? 'unknown error'})`;
}

/** The walk of one named folder: what it found, and how much it may still take. */
interface Walk {
  cwd: string;
  files: string[];
  /** Files found by scanning a folder (not named one by one): read only when they look like manifests. */
  scanned: Set<string>;
  diagnostics: Diagnostic[];
  stopped: boolean;
}

function at(file: string, cwd: string): SourcePosition {
  return { file: displayPath(file, cwd), line: 1, col: 1 };
}

/** A manifest-named entry that is not a plain file: followed when a link to a regular file, refused otherwise. */
async function admitSpecial(full: string, isLink: boolean, walk: Walk): Promise<boolean> {
  if (!isLink) {
    const info = await lstat(full);
    walk.diagnostics.push({ severity: 'error', code: 'not-a-regular-file', message: `the path is ${describeType(info)}, not a file; only regular files are read`, position: at(full, walk.cwd) });
    return false;
  }
  try {
    const target = await stat(full);
    if (target.isFile()) return true;
    walk.diagnostics.push({ severity: 'error', code: 'not-a-regular-file', message: `the symbolic link leads to ${describeType(target)}; only regular files are read`, position: at(full, walk.cwd) });
  } catch (error) {
    walk.diagnostics.push({ severity: 'error', code: 'unreadable', message: describeErrno(error), position: at(full, walk.cwd) });
  }
  return false;
}

async function walkDirectory(directory: string, depth: number, walk: Walk): Promise<void> {
  const entries = await readdir(directory, { withFileTypes: true });
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (walk.stopped) return;
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) {
      if (!scansDirectory(entry.name)) continue;
      if (depth >= maxDepth) {
        walk.diagnostics.push({ severity: 'error', code: 'too-deep', message: `folders nest more than ${maxDepth} levels deep here; the folder is not read`, hint: 'name the folder that holds the manifests', position: at(full, walk.cwd) });
        continue;
      }
      await walkDirectory(full, depth + 1, walk);
      continue;
    }
    // Links to folders are not followed (a loop would never end); links to files are.
    if (!scansFile(entry.name)) continue;
    if (!entry.isFile() && !(await admitSpecial(full, entry.isSymbolicLink(), walk))) continue;
    if (walk.files.length >= maxManifestFiles) {
      walk.stopped = true;
      walk.diagnostics.push({ severity: 'error', code: 'too-many-files', message: `the folder holds more than ${maxManifestFiles} manifest files; none past that is read`, hint: 'name the folder that holds the manifests', position: at(directory, walk.cwd) });
      return;
    }
    walk.files.push(full);
    walk.scanned.add(full);
  }
}

export async function findManifestFiles(paths: readonly string[], cwd: string): Promise<FoundFiles> {
  const walk: Walk = { cwd, files: [], scanned: new Set(), diagnostics: [], stopped: false };
  for (const given of paths) {
    const absolute = path.resolve(cwd, given);
    const position = at(absolute, cwd);
    let info;
    try {
      info = await stat(absolute);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      walk.diagnostics.push({ severity: 'error', code: 'path-not-found', message: code === 'ENOENT' ? 'no such file or directory' : describeErrno(error), position });
      continue;
    }
    if (info.isDirectory()) {
      const [filesBefore, problemsBefore] = [walk.files.length, walk.diagnostics.length];
      try {
        await walkDirectory(absolute, 0, walk);
      } catch (error) {
        walk.diagnostics.push({ severity: 'error', code: 'unreadable', message: `cannot list this directory (${(error as NodeJS.ErrnoException).code ?? 'error'})`, position });
        continue;
      }
      if (walk.files.length === filesBefore && walk.diagnostics.length === problemsBefore) {
        walk.diagnostics.push({ severity: 'warning', code: 'no-manifests', message: 'the directory holds no .yaml or .yml files', position });
      }
    } else if (configFileName.test(path.basename(absolute))) {
      walk.diagnostics.push({ severity: 'warning', code: 'config-not-manifest', message: `${path.basename(absolute)} is erpsync's config file, not a manifest; skipped`, position });
    } else if (info.isFile()) {
      walk.files.push(absolute);
    } else {
      walk.diagnostics.push({ severity: 'error', code: 'not-a-regular-file', message: `the path is ${describeType(info)}, not a file; only regular files are read`, position });
    }
  }
  return { files: [...new Set(walk.files)], scanned: walk.scanned, diagnostics: markNothingFound(walk) };
}

/**
 * An empty folder beside others that hold manifests is a warning; when the whole set found none, a
 * plan would read "no changes" for a manifest set that is not there, so it is an error naming the
 * folders it searched.
 */
function markNothingFound(walk: Walk): Diagnostic[] {
  if (walk.files.length > 0) return walk.diagnostics;
  return walk.diagnostics.map((d) =>
    d.code === 'no-manifests' ? { ...d, severity: 'error', message: 'no manifests found: this folder and its subfolders hold no .yaml or .yml files', hint: 'run in the folder that holds the manifests, or name it: `erpsync plan path/to/manifests`' } : d,
  );
}

/**
 * The bytes of one manifest file, or a diagnostic. The file is opened without blocking (a FIFO
 * swapped in after the walk cannot hang the run), checked to be a regular file no larger than
 * the limit, and read no further than the limit whatever its size claimed. Synchronous: the
 * files are local and read one after another, and each asynchronous call was a round trip
 * through the thread pool, five a file, some 6% of `erpsync validate`'s whole run.
 */
export function readManifestFile(file: string, shown: string, diagnostics: Diagnostic[]): Uint8Array | undefined {
  const position = { file: shown, line: 1, col: 1 };
  const tooLarge = (): undefined => {
    diagnostics.push({ severity: 'error', code: 'file-too-large', message: `the file is larger than ${maxFileBytes / 1024 / 1024} MiB`, position });
    return undefined;
  };
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    diagnostics.push({ severity: 'error', code: 'unreadable', message: code === 'EISDIR' ? 'this is a directory, not a file' : describeErrno(error), position });
    return undefined;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) {
      diagnostics.push({ severity: 'error', code: 'not-a-regular-file', message: `the path is ${describeType(info)}, not a file; only regular files are read`, position });
      return undefined;
    }
    if (info.size > maxFileBytes) return tooLarge();
    const chunks: Buffer[] = [];
    let total = 0;
    // The first read asks for the size the file claims (and one byte more), so a file that does
    // not change is read in one go; only a file that grows meanwhile needs more chunks.
    let chunkSize = info.size + 1;
    for (;;) {
      const chunk = Buffer.allocUnsafe(chunkSize);
      const bytesRead = readSync(fd, chunk, 0, chunk.length, total);
      // A file read in one go is that chunk: copying it again cost more than parsing a shared one.
      if (bytesRead === 0) return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
      total += bytesRead;
      if (total > maxFileBytes) return tooLarge();
      chunks.push(chunk.subarray(0, bytesRead));
      chunkSize = growthChunkBytes;
    }
  } finally {
    closeSync(fd);
  }
}
