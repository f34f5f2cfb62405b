// The local backend's journal: one JSON Lines file per run, `<dir>/<run>.jsonl` in the target's
// journal folder, and beside that folder (never in it: teams commit the journal folder, and a pull
// request must not be able to rewrite what vouches for it) the run index, `<dir>.index/<run>.sha256`,
// one sha256 a line: the hash of each line of the run, in order.
//
// Each line is written synchronously and flushed to disk before `append` returns — its hash in the
// index first, then the line — so a run killed midway leaves every line it announced (an intent
// before the write it names) and no closing line, and at most one hash more than lines. A line that
// cannot be made durable (a full disk) is taken back, hash and all, and the append fails naming
// the file: the run stops before the write that line would announce. The file appears with the
// run's first line, so a run that never wrote leaves none.
//
// Reading trusts nothing in the folder: only regular files of a bounded size are read (no link
// followed, no pipe or device opened), a folder named inside the working tree that resolves
// outside it is refused, and every run goes through the evidence checks (state/journal-evidence)
// against its index. What fails is a damaged run, named; the other runs are read on. It stores
// the lines it is given and decides nothing about what they say.
import { closeSync, constants, fstatSync, fsyncSync, ftruncateSync, lstatSync, mkdirSync, openSync, realpathSync, writeSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { ErpsyncError } from '../../model/errors.js';
import type { DamagedRun, JournalRun } from '../../model/journal.js';
import { describeWriteError } from '../../model/write-file-atomically.js';
import type { RunAnchor } from '../journal-evidence.js';
import { chainedText, hashLine, isDamaged, listingOf, maxRunBytes, readRunEvidence, splitRunText } from '../journal-evidence.js';
import type { JournalLocation, JournalSink, JournalStore } from '../state-store.js';
import { readRegularFile } from './safe-read.js';

/** A run id as erpsync makes them (start time and a random suffix): safe as a file name. */
const runIdPattern = /^[0-9A-Za-z][0-9A-Za-z_-]{0,127}$/;
const hashPattern = /^[0-9a-f]{64}$/;
/** No link is followed at the run's own file or its index entry. */
const appendFlags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0);

export function localJournal(): JournalStore {
  return {
    async open(location, run) {
      requireInsideTree(location);
      return runSink(location, run);
    },
    async list(locations, filter) {
      const entries: (JournalRun | DamagedRun)[] = [];
      const { target, latest } = filter ?? {};
      for (const location of uniqueFolders(locations)) entries.push(...(target !== undefined && latest ? await readLatestRun(location, target) : await readJournalFolder(location)));
      const listing = listingOf(entries);
      if (target === undefined) return listing;
      return { runs: listing.runs.filter((r) => r.header.target.name === target), damaged: listing.damaged.filter((d) => d.target === undefined || d.target === target) };
    },
    async extend(location, run, lines) {
      requireInsideTree(location);
      const id = run.header.run;
      const read = await readLocalRun(location, id);
      const now = read?.entry;
      if (!read || !now || isDamaged(now) || !run.chain || now.chain?.last !== run.chain.last) {
        throw new ErpsyncError('JOURNAL_DAMAGED', `the run ${id} changed since it was read (${runFileOf(location.dir, id)}): nothing was appended to it`, { details: now && isDamaged(now) ? now.problems : [] });
      }
      // The index may hold the hash of a last line the kill cut off, the file a piece of one: both go.
      trimTo(location, id, read);
      const sink = runSink(location, id, run.chain.last);
      let last = run.chain.last;
      try {
        for (const { line, text } of lines) last = hashLine(sink.append(line, text));
      } finally {
        await sink.close();
      }
      return { lines: run.chain.lines + lines.length, last };
    },
  };
}

/** Whether a name is a run id as erpsync makes them (a file name that cannot leave its folder). */
export function isRunId(name: string): boolean {
  return runIdPattern.test(name);
}

/** The file a run's lines go to; a run id that could leave the folder is refused. */
export function runFileOf(dir: string, run: string): string {
  if (!isRunId(run)) throw new ErpsyncError('INTERNAL', `${JSON.stringify(run)} is not a journal run id`);
  return join(dir, `${run}.jsonl`);
}

/** The run index: beside the journal folder, not in it. */
export function indexDirOf(dir: string): string {
  return join(dirname(dir), `${basename(dir)}.index`);
}

function indexFileOf(dir: string, run: string): string {
  return join(indexDirOf(dir), `${run}.sha256`);
}

function uniqueFolders(locations: readonly JournalLocation[]): JournalLocation[] {
  const seen = new Map<string, JournalLocation>();
  for (const location of locations) if (!seen.has(location.dir)) seen.set(location.dir, location);
  return [...seen.values()];
}

function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
}

/** Where a path leads: the real path of its longest existing part, the rest appended; a link that leads nowhere is said so. */
function realPathOf(path: string): { real: string } | { nowhere: string } {
  const rest: string[] = [];
  for (let part = path; ; part = dirname(part)) {
    try {
      return { real: join(realpathSync(part), ...rest) };
    } catch (error) {
      if (lstatSync(part, { throwIfNoEntry: false })?.isSymbolicLink()) return { nowhere: part };
      if (dirname(part) === part) throw error;
      rest.unshift(basename(part));
    }
  }
}

/**
 * Why the journal folder (or its index beside it) may not be used, or undefined: named inside the
 * working tree, it resolves outside it. A folder the config names outside the tree is the user's
 * choice, as folders above the working directory are for every file erpsync writes.
 */
export function journalFolderRefusal(location: JournalLocation): string | undefined {
  const within = resolve(location.within);
  for (const folder of [resolve(location.dir), indexDirOf(resolve(location.dir))]) {
    if (!isInside(folder, within)) continue;
    const tree = realPathOf(within);
    const found = realPathOf(folder);
    if ('nowhere' in found) return `the journal folder ${folder} goes through ${found.nowhere}, a symbolic link that leads nowhere`;
    if ('real' in tree && !isInside(found.real, tree.real)) return `the journal folder ${folder} resolves to ${found.real}, outside the working tree ${within}`;
  }
  return undefined;
}

function requireInsideTree(location: JournalLocation): void {
  const refusal = journalFolderRefusal(location);
  if (refusal !== undefined) {
    throw new ErpsyncError('UNSAFE_PATH', `refusing to journal there: ${refusal}`, {
      details: ["the journal is kept inside the working tree: remove the link, or name a folder inside it in the target's `journal`"],
    });
  }
}

/** A failed journal write, named by its file: the run stops before the write the line would announce. */
function journalUnwritable(error: unknown, file: string): ErpsyncError {
  const described = describeWriteError(error, file);
  const message = described instanceof ErpsyncError ? described.message : `cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
  return new ErpsyncError('FILE_UNWRITABLE', message, { cause: error, details: ['the journal keeps every line written before this one; the write this line announced was not sent'] });
}

/** Appends `data` and flushes it; on failure the file is cut back to its size before (no piece of a line stays) and the error names it. */
function appendDurably(fd: number, data: string, file: string): number {
  const size = fstatSync(fd).size;
  const bytes = Buffer.from(data, 'utf8');
  try {
    for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
    fsyncSync(fd);
  } catch (error) {
    cutBack(fd, size);
    throw journalUnwritable(error, file);
  }
  return size;
}

function cutBack(fd: number, size: number): void {
  try {
    ftruncateSync(fd, size);
    fsyncSync(fd);
  } catch {
    // Shrinking needs no space; a file that cannot shrink keeps a torn piece, which the reader leaves out.
  }
}

function syncFolder(folder: string): void {
  const fd = openSync(folder, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Opens (creating) a run's file and its index entry, their folders made and flushed too. */
function openRunFiles(location: JournalLocation, run: string): { fd: number; indexFd: number } {
  const file = runFileOf(location.dir, run);
  const index = indexFileOf(location.dir, run);
  requireInsideTree(location);
  let fd: number | undefined;
  try {
    for (const folder of [dirname(file), dirname(index)]) mkdirSync(folder, { recursive: true });
    requireInsideTree(location);
    fd = openSync(file, appendFlags, 0o644);
    const indexFd = openSync(index, appendFlags, 0o644);
    // The new files' names are durable too, not only their lines.
    for (const folder of [dirname(file), dirname(index)]) syncFolder(folder);
    return { fd, indexFd };
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new ErpsyncError('UNSAFE_PATH', `refusing to journal in ${file}: it or its index entry is a symbolic link`);
    throw error instanceof ErpsyncError ? error : journalUnwritable(error, file);
  }
}

/** A run's sink, from its first line or after the line whose hash is `last`. */
function runSink(location: JournalLocation, run: string, last?: string): JournalSink {
  const file = runFileOf(location.dir, run);
  let files: { fd: number; indexFd: number } | undefined;
  let previous = last;
  return {
    append(_line, text) {
      // One line each: a newline inside would split it in two on the way back.
      if (text.includes('\n')) throw new ErpsyncError('INTERNAL', 'a journal line holds a line break');
      const stored = chainedText(text, previous);
      const hash = hashLine(stored);
      files ??= openRunFiles(location, run);
      // The hash first: a kill between the two leaves a hash without its line, never a line without its hash.
      const indexSize = appendDurably(files.indexFd, `${hash}\n`, indexFileOf(location.dir, run));
      try {
        appendDurably(files.fd, `${stored}\n`, file);
      } catch (error) {
        cutBack(files.indexFd, indexSize);
        throw error;
      }
      previous = hash;
      return stored;
    },
    async close() {
      if (files) {
        closeSync(files.fd);
        closeSync(files.indexFd);
      }
      files = undefined;
    },
  };
}

/** Cuts a run's file to its complete lines and its index to their hashes (before a line is appended to an old run). */
function trimTo(location: JournalLocation, run: string, read: RunRead): void {
  for (const [path, size] of [
    [runFileOf(location.dir, run), read.complete],
    [indexFileOf(location.dir, run), read.texts.length * 65],
  ] as const) {
    const fd = openSync(path, constants.O_RDWR | (constants.O_NOFOLLOW ?? 0));
    try {
      if (fstatSync(fd).size > size) cutBack(fd, size);
    } finally {
      closeSync(fd);
    }
  }
}

/** One run as read from its folder: the run or its damage, its complete lines and their length in bytes. */
export interface RunRead {
  entry: JournalRun | DamagedRun;
  texts: string[];
  complete: number;
}

function refused(run: string, file: string, why: string): RunRead {
  return { entry: { run, file, problems: [`${file}: ${why}`] }, texts: [], complete: 0 };
}

/** A run's file checked against its index, as `list` reads it; undefined when the file is gone. */
export async function readLocalRun(location: JournalLocation, run: string): Promise<RunRead | undefined> {
  const file = runFileOf(location.dir, run);
  const read = await readRegularFile(file, maxRunBytes);
  if (!read) return undefined;
  if ('refused' in read) return refused(run, file, read.refused);
  const { lines, torn } = splitRunText(read.text);
  const index = indexFileOf(location.dir, run);
  const anchor = await readIndex(index);
  if (anchor && 'refused' in anchor) return refused(run, file, `its run index entry ${index} is ${anchor.refused}`);
  const entry = readRunEvidence(lines, { file, run, torn }, anchor);
  const complete = lines.reduce((bytes, line) => bytes + Buffer.byteLength(line, 'utf8') + 1, 0);
  return { entry: isDamaged(entry) ? { ...entry, ...targetNamedBy(lines[0]) } : entry, texts: lines, complete };
}

/** The hashes the index keeps of a run (a hash cut off by a kill left out); undefined when it keeps none. */
async function readIndex(index: string): Promise<RunAnchor | { refused: string } | undefined> {
  const read = await readRegularFile(index, maxRunBytes);
  if (!read) return undefined;
  if ('refused' in read) return read;
  const { lines } = splitRunText(read.text);
  if (!lines.every((line) => hashPattern.test(line))) return { refused: 'not a list of hashes as erpsync writes it' };
  return { type: 'hashes', hashes: lines };
}

/** The target a damaged run's first line names, when it names one (so `--target` can tell whose it is). */
function targetNamedBy(text: string | undefined): { target?: string } {
  try {
    const target = (JSON.parse(text ?? '') as { target?: { name?: unknown } }).target?.name;
    return typeof target === 'string' ? { target } : {};
  } catch {
    return {};
  }
}

/** Every run file in a journal folder, each read and checked; a folder that resolves outside the working tree is one damaged entry. */
async function readJournalFolder(location: JournalLocation): Promise<(JournalRun | DamagedRun)[]> {
  const refusal = journalFolderRefusal(location);
  if (refusal !== undefined) return [{ run: '', file: location.dir, problems: [`${location.dir}: refused: ${refusal}`] }];
  const entries: (JournalRun | DamagedRun)[] = [];
  for (const name of await runFilesIn(location.dir)) {
    const run = name.slice(0, -'.jsonl'.length);
    const read = isRunId(run) ? await readLocalRun(location, run) : refused(run, join(location.dir, name), 'not a run file erpsync names: not read');
    if (read) entries.push(read.entry);
  }
  return entries;
}

/** A target's newest run in a journal folder: the files read newest first, until one names the target. */
async function readLatestRun(location: JournalLocation, target: string): Promise<(JournalRun | DamagedRun)[]> {
  if (journalFolderRefusal(location) !== undefined) return readJournalFolder(location);
  for (const name of (await runFilesIn(location.dir)).reverse()) {
    const run = name.slice(0, -'.jsonl'.length);
    const entry = isRunId(run) ? (await readLocalRun(location, run))?.entry : undefined;
    if (entry && (isDamaged(entry) ? entry.target : entry.header.target.name) === target) return [entry];
  }
  return [];
}

/** The run files in a journal folder, by name, oldest first; none when the folder does not exist. */
export async function runFilesIn(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((n) => n.endsWith('.jsonl')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new ErpsyncError('FILE_UNREADABLE', `cannot read the journal folder ${dir}`, { cause: error });
  }
}
