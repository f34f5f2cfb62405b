// A run of the journal read back as evidence (model/journal): its lines as they were stored, in
// order, turned into a JournalRun only after every check, or into a DamagedRun naming each line at
// fault as `file:line: what`. Both backends read through here, so a local file and a database row
// are trusted alike. It reads no file and never throws on bad input.
//
// The checks, in order: each line is JSON of at most maxLineBytes and matches the published
// schema (model/journal-schema); its hashes match what the store kept when the run was written
// (the anchor: every line's hash for the local backend, the count and the last hash for postgres),
// which finds a changed, removed, inserted or reordered line; each line carries the hash of the
// one before it (format 2); and the lines make sense in their place (the run line first, an
// outcome after its intent, nothing after the closing line but resolutions).
//
// The hash chain is the store's to write: the writer hands over a line's text and the store adds
// the hash of the line before as its last field (chainedText), so whatever the writer masked stays
// masked and no secret can alter a hash.
import { createHash } from 'node:crypto';
import { journalLine } from '#standalone-validators';
import type {
  DamagedRun,
  JournalChangeLine,
  JournalEndLine,
  JournalIntentLine,
  JournalLine,
  JournalListing,
  JournalOutcomeLine,
  JournalReadBackLine,
  JournalResolutionLine,
  JournalRun,
  JournalRunLine,
} from '../model/journal.js';
import { settleChange, statusOfRun } from '../model/journal.js';

/** A run of tens of thousands of changes stays well under this; a larger file is no run erpsync wrote. */
export const maxRunBytes = 64 * 1024 * 1024;
/** The shared backend refuses longer lines too (journal_lines.line). */
export const maxLineBytes = 1024 * 1024;
/** A damaged run names its first problems; past this many, the rest are counted. */
const maxProblems = 20;

/** What the store kept of a run as it was written: every line's hash (local), or the count and the last hash (postgres). */
export type RunAnchor = { type: 'hashes'; hashes: readonly string[] } | { type: 'last'; lines: number; last: string };

/** Where the lines were read, for the names of problems. */
export interface RunSource {
  /** The file (or the shared backend's name of the run). */
  file: string;
  /** The run the lines must be: the file's name, the database's key (not checked when absent). */
  run?: string;
  /** The file ended in a piece of a line without its line break (the run was killed while writing it). */
  torn?: boolean;
}

export function hashLine(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The text a store keeps for a line: the writer's JSON object with `prev`, the hash of the line before, as its last field. */
export function chainedText(text: string, prev: string | undefined): string {
  if (prev === undefined) return text;
  return `${text.slice(0, text.lastIndexOf('}'))},"prev":"${prev}"}`;
}

/** A file's complete lines (each ended by a line break) and whether a piece of one follows them. */
export function splitRunText(text: string): { lines: string[]; torn: boolean } {
  const pieces = text.split('\n');
  const tail = pieces.pop() ?? '';
  return { lines: pieces, torn: tail !== '' };
}

/** Problems of one run, each named `file:line: what`, at most maxProblems of them. */
class Problems {
  readonly list: string[] = [];
  private more = 0;
  constructor(private readonly file: string) {}
  add(line: number | undefined, what: string): void {
    if (this.list.length < maxProblems) this.list.push(`${this.file}${line === undefined ? '' : `:${line}`}: ${what}`);
    else this.more += 1;
  }
  get all(): string[] {
    return this.more > 0 ? [...this.list, `${this.file}: and ${this.more} more problem(s)`] : this.list;
  }
}

/** The run these lines make, or the damage found in them. */
export function readRunEvidence(texts: readonly string[], source: RunSource, anchor?: RunAnchor): JournalRun | DamagedRun {
  const problems = new Problems(source.file);
  const lines = texts.map((text, i) => parseLine(text, i + 1, problems));
  const notes = anchor ? checkAnchor(texts, anchor, problems) : [];
  if (source.torn) notes.push('its last line was cut off (the run was killed while writing it) and is left out');
  const header = lines[0];
  if (problems.list.length === 0) checkPlaces(lines as JournalLine[], texts, source, problems);
  if (problems.list.length > 0 || header?.type !== 'run') {
    const named = header?.type === 'run' && problems.list.length === 0 ? header.run : (source.run ?? '');
    return { run: named, file: source.file, problems: problems.list.length > 0 ? problems.all : [`${source.file}: holds no run`] };
  }
  const run = assembleRun(lines as JournalLine[], header, source.file);
  const last = texts[texts.length - 1];
  return {
    ...run,
    trust: anchor ? 'verified' : 'unanchored',
    notes,
    ...(header.formatVersion >= 2 && last !== undefined ? { chain: { lines: texts.length, last: hashLine(last) } } : {}),
  };
}

/** A run file's text read on its own, without what the store kept of it (tests, and a file handed over): undefined when damaged. */
export function parseJournalRun(text: string, file: string): JournalRun | undefined {
  const { lines, torn } = splitRunText(text);
  const run = readRunEvidence(lines, { file, torn });
  return isDamaged(run) ? undefined : run;
}

/** Whether a listing entry is a damaged run. */
export function isDamaged(run: JournalRun | DamagedRun): run is DamagedRun {
  return 'problems' in run;
}

/** Runs and damaged runs apart, each oldest first (run ids start with their start time). */
export function listingOf(entries: readonly (JournalRun | DamagedRun)[]): JournalListing {
  const idOf = (entry: JournalRun | DamagedRun): string => (isDamaged(entry) ? entry.run : entry.header.run);
  const sorted = [...entries].sort((a, b) => (idOf(a) < idOf(b) ? -1 : idOf(a) > idOf(b) ? 1 : 0));
  return { runs: sorted.filter((e): e is JournalRun => !isDamaged(e)), damaged: sorted.filter(isDamaged) };
}

function parseLine(text: string, number: number, problems: Problems): JournalLine | undefined {
  if (Buffer.byteLength(text, 'utf8') > maxLineBytes) {
    problems.add(number, `the line is longer than ${maxLineBytes / 1024 / 1024} MiB`);
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    problems.add(number, 'the line is not JSON');
    return undefined;
  }
  if (!journalLine(value)) {
    for (const error of journalLine.errors ?? []) problems.add(number, `${error.instancePath === '' ? 'the line' : error.instancePath.slice(1).replaceAll('/', '.')} ${error.message ?? 'is not valid'}`);
    return undefined;
  }
  return value as JournalLine;
}

/**
 * The lines against what the store kept. Local hashes name each line at fault: one the run never
 * wrote there (changed, or inserted), one out of the order the run wrote it in, one of the run's
 * that is missing. The hash of a line is kept before the line is written, so a kill between the
 * two leaves one hash more than lines: a missing LAST line is a kill, not damage (the write it
 * would have announced was never sent), and is only noted.
 */
function checkAnchor(texts: readonly string[], anchor: RunAnchor, problems: Problems): string[] {
  const hashes = texts.map(hashLine);
  if (anchor.type === 'last') {
    if (texts.length !== anchor.lines || hashes[hashes.length - 1] !== anchor.last) {
      problems.add(undefined, `its lines are not the ${anchor.lines} the run wrote (the backend keeps the hash of its last line): a line was changed, removed or added since`);
    }
    return [];
  }
  const kept = anchor.hashes;
  const position = new Map(kept.map((hash, i) => [hash, i]));
  const found = new Set<number>();
  const replaced = new Set<number>();
  let furthest = -1;
  for (const [i, hash] of hashes.entries()) {
    const at = position.get(hash);
    if (at === undefined) {
      const keptHere = kept[i];
      const changed = keptHere !== undefined && !hashes.includes(keptHere);
      if (changed) replaced.add(i);
      problems.add(i + 1, changed ? 'the line is not the one the run wrote here (changed)' : 'the line was not written by the run (inserted)');
      continue;
    }
    found.add(at);
    if (at < furthest) problems.add(i + 1, `the line is the run's line ${at + 1}, out of the order the run wrote it in (reordered)`);
    furthest = Math.max(furthest, at);
  }
  const missing = kept.flatMap((_hash, i) => (found.has(i) || replaced.has(i) ? [] : [i]));
  if (missing.length === 1 && missing[0] === kept.length - 1 && texts.length === kept.length - 1) {
    return ['its last line never reached the file (the run was killed while writing it): the write it would have announced was not sent'];
  }
  for (const i of missing) problems.add(i + 1, `the run's line ${i + 1} is missing (removed)`);
  return [];
}

/** Each line in its place: the run line first and once, the chain of hashes, outcomes after their intents, nothing after the end but resolutions. */
function checkPlaces(lines: readonly JournalLine[], texts: readonly string[], source: RunSource, problems: Problems): void {
  const [header] = lines;
  if (header?.type !== 'run') return problems.add(1, 'the first line of a run must be its run line');
  if (source.run !== undefined && header.run !== source.run) problems.add(1, `the run line names the run ${JSON.stringify(header.run)}, not ${JSON.stringify(source.run)}`);
  const chained = header.formatVersion >= 2;
  if (chained && header.prev !== undefined) problems.add(1, 'the run line follows no line, yet carries the hash of one');
  const intents = new Set<string>();
  const reported = new Set<string>();
  const settled = new Set<string>();
  const resolved = new Set<string>();
  let ended = false;
  for (const [i, line] of lines.entries()) {
    const number = i + 1;
    if (i > 0 && chained && line.prev !== hashLine(texts[i - 1] ?? '')) problems.add(number, `the line does not follow line ${i} (its hash of the line before differs: changed, inserted or reordered)`);
    if (i > 0 && line.type === 'run') problems.add(number, 'a second run line');
    if (!chained && (line.type === 'intent' || line.type === 'outcome' || line.type === 'resolution')) problems.add(number, `a ${line.type} line in a run of format 1`);
    if (chained && (line.type === 'change' || line.type === 'start')) problems.add(number, `a ${line.type} line in a run of format ${header.formatVersion}`);
    if (ended && line.type !== 'resolution') problems.add(number, 'a line after the closing line that is no resolution');
    if (line.type === 'end') ended = true;
    if (line.type === 'intent') {
      if (intents.has(line.change)) problems.add(number, `a second intent for the change ${JSON.stringify(line.change)}`);
      intents.add(line.change);
    }
    if (line.type === 'outcome') {
      if (!intents.has(line.change)) problems.add(number, `the outcome of the change ${JSON.stringify(line.change)}, which no intent line before it announced`);
      else if (reported.has(line.change)) problems.add(number, `a second outcome for the change ${JSON.stringify(line.change)}`);
      reported.add(line.change);
      if (line.outcome !== 'unknown') settled.add(line.change);
    }
    if (line.type === 'resolution') {
      if (!intents.has(line.change) || settled.has(line.change) || resolved.has(line.change)) problems.add(number, `a resolution of the change ${JSON.stringify(line.change)}, whose outcome was not left unknown`);
      resolved.add(line.change);
    }
  }
}

/** The run's changes as read back: each intent with its outcome, a resolution settling an unknown one, the read-back's verdict. */
function assembleRun(lines: readonly JournalLine[], header: JournalRunLine, file: string): Omit<JournalRun, 'trust' | 'notes' | 'chain'> {
  const end = lines.find((l): l is JournalEndLine => l.type === 'end');
  const readBack = lines.filter((l): l is JournalReadBackLine => l.type === 'read-back');
  const base = { header, file, readBack, ...(end ? { end } : {}), status: statusOfRun(end) };
  if (header.formatVersion < 2) {
    const changes = lines.filter((l): l is JournalChangeLine => l.type === 'change');
    const ended = new Set(changes.map((c) => c.change));
    return { ...base, changes, unfinished: lines.flatMap((l) => (l.type === 'start' && !ended.has(l.change) ? [l.change] : [])) };
  }
  const outcomes = new Map(lines.filter((l): l is JournalOutcomeLine => l.type === 'outcome').map((l) => [l.change, l]));
  const resolutions = new Map(lines.filter((l): l is JournalResolutionLine => l.type === 'resolution').map((l) => [l.change, l]));
  const notKept = new Set(end?.notKept ?? []);
  const changes = lines.filter((l): l is JournalIntentLine => l.type === 'intent').map((intent) => changeOf(intent, outcomes.get(intent.change), resolutions.get(intent.change), notKept, end));
  return { ...base, changes, unfinished: [] };
}

function changeOf(intent: JournalIntentLine, outcome: JournalOutcomeLine | undefined, resolution: JournalResolutionLine | undefined, notKept: ReadonlySet<string>, end: JournalEndLine | undefined): JournalChangeLine {
  const { type: _type, prev: _prev, ...described } = intent;
  // A change's id after it: a create's new one, else the record's own.
  const id = outcome?.id ?? intent.liveId;
  const change: JournalChangeLine = {
    type: 'change',
    ...described,
    outcome: outcome?.outcome ?? 'unknown',
    ...(id === undefined ? {} : { id }),
    ...(outcome?.detail !== undefined ? { detail: outcome.detail } : {}),
    ...(outcome ? {} : { detail: 'the run stopped after journaling its intent: its request may have been sent' }),
  };
  if (resolution) return settleChange(change, resolution);
  if (change.outcome !== 'applied' || !notKept.has(intent.change)) return change;
  const words = (end?.notConverged ?? []).filter((line) => line.includes(`"${intent.key}"`));
  return { ...change, outcome: 'not-kept', detail: words.length > 0 ? words.join('; ') : 'the read-back found what it wrote not kept' };
}
