// The postgres backend's journal: every run of every runner in `journal_runs` (with its target,
// account, start, git revision, actor and runner, its count of lines and the hash of its last
// line) and its lines in `journal_lines`, append-only, read back by any machine in the shape the
// local files give. The count and the last hash are the run's anchor: set with the lines they
// describe, in one statement, so a line changed, removed or added in the database later is found.
//
// A line is written to the LOCAL journal first, synchronously and flushed, before `append`
// returns: the intent of a write is on disk before the write is sent, however slow or gone the
// database is. A queue then pushes the lines to the database in order, in batches, off the run's
// path; `close` waits for it. Should the database fail, the queue stops and the lines stay in the
// local file; the next `open` or `list` of a postgres journal pushes every local run file whose
// lines the database lacks. A line is keyed by (run, seq) and stored only when that key is new,
// and a run's count of lines is raised in the same statement, so a push run twice, or by two
// processes at once, stores each line once. A local run file is pushed only when it passes the
// local checks (its run index) and continues the lines the database holds. What is read back goes
// through the evidence checks (state/journal-evidence). It decides nothing about what the lines
// say and prints nothing.
import { ErpsyncError } from '../../model/errors.js';
import type { DamagedRun, JournalLine, JournalRun, JournalRunLine } from '../../model/journal.js';
import { chainedText, hashLine, isDamaged, listingOf, readRunEvidence } from '../journal-evidence.js';
import { isRunId, readLocalRun, runFilesIn } from '../local/journal.js';
import type { JournalLocation, JournalStore, RunChain } from '../state-store.js';
import { queryBackend } from './backend-error.js';
import type { PostgresConnection } from './connect.js';
import { reasonOf } from './connect.js';

/** A line on its way to the database: its place in the run, its text as stored, whether it closes the run. */
interface StoredLine {
  seq: number;
  text: string;
  ends: boolean;
}

/** Whether a stored line closes its run (its type, read without trusting the rest of it). */
function endsRun(text: string): boolean {
  return text.startsWith('{"type":"end"');
}

/** What the database keeps of a run beside its lines, taken from its run line. */
interface RunRow {
  run: string;
  target: string;
  accountId: string | null;
  startedAt: Date;
  gitRevision: string | null;
  actor: string | null;
}

/** What a push of local run files did: runs and lines the database did not have, and runs it refused. */
export interface JournalImport {
  runs: number;
  lines: number;
  failed: { run: string; reason: string }[];
}

/** A batch stays well under what one statement should carry (a line may be up to 1 MiB). */
const batchLines = 500;
const batchBytes = 4 * 1024 * 1024;

export function postgresJournal(connection: PostgresConnection, local: JournalStore, context: { runner?: string }): JournalStore {
  /** Runs this store is writing: their files are pushed by their own queue, not caught up. */
  const writing = new Set<string>();
  const caughtUp = new Map<string, Promise<void>>();
  const forget = (dir: string): void => void caughtUp.delete(dir);
  /** Pushes a folder's pending run files once per store, again after a push failed. */
  const catchUp = (location: JournalLocation): Promise<void> => {
    const known = caughtUp.get(location.dir);
    if (known) return known;
    const done = pushRunFiles(connection, location, { runner: context.runner, skip: writing, ownOnly: true }).then(
      (pushed) => (pushed.failed.length > 0 ? forget(location.dir) : undefined),
      // The database is away: the lines stay in the files, for the next open or list.
      () => forget(location.dir),
    );
    caughtUp.set(location.dir, done);
    return done;
  };
  return {
    async open(location, run) {
      const file = await local.open(location, run);
      writing.add(run);
      const pusher = linePusher(connection, context.runner, catchUp(location), () => forget(location.dir));
      return {
        append(line, text) {
          const stored = file.append(line, text);
          pusher.add(line, stored);
          return stored;
        },
        async close() {
          await file.close();
          await pusher.drained();
          writing.delete(run);
        },
      };
    },
    async list(locations, filter) {
      await Promise.all([...new Map(locations.map((l) => [l.dir, l])).values()].map(catchUp));
      return readRuns(connection, filter?.target, filter?.latest === true);
    },
    async extend(_location, run, lines) {
      return appendToRun(connection, run, lines);
    },
  };
}

/** The queue of one run's lines: pushed in order, in batches, until a push fails (then the rest stay local). */
function linePusher(connection: PostgresConnection, runner: string | undefined, after: Promise<void>, onLost: () => void) {
  let row: RunRow | undefined;
  let next = 0;
  let waiting: StoredLine[] = [];
  let lost = false;
  let queue = after;
  const flush = async (): Promise<void> => {
    const batch = waiting;
    waiting = [];
    if (lost) return;
    try {
      // A run whose first line is not a usable run line cannot be keyed: it stays local.
      if (!row) throw new Error('the run line is missing or unusable');
      await pushLines(connection, row, runner, batch);
    } catch {
      lost = true;
      onLost();
    }
  };
  return {
    add(line: JournalLine, text: string): void {
      if (next === 0 && line.type === 'run') row = runRowOf(line);
      waiting.push({ seq: next, text, ends: line.type === 'end' });
      next += 1;
      if (waiting.length === 1) queue = queue.then(flush);
    },
    drained: (): Promise<void> => queue,
  };
}

/** The run's columns from its run line; undefined when the line lacks what keys a run. */
function runRowOf(line: JournalLine): RunRow | undefined {
  if (line.type !== 'run') return undefined;
  const header: Partial<JournalRunLine> = line;
  const startedAt = typeof header.startedAt === 'string' ? new Date(header.startedAt) : undefined;
  if (typeof header.run !== 'string' || !isRunId(header.run) || typeof header.target?.name !== 'string' || !startedAt || Number.isNaN(startedAt.getTime())) return undefined;
  return {
    run: header.run,
    target: header.target.name,
    accountId: typeof header.account?.id === 'string' ? header.account.id : null,
    startedAt,
    gitRevision: typeof header.git?.revision === 'string' ? header.git.revision : null,
    actor: header.actor === undefined ? null : JSON.stringify(header.actor),
  };
}

/**
 * Stores lines of one run, batch by batch: each batch's lines, the run's count and the hash of its
 * last line in one statement (the anchor moves only forward, with the lines it counts).
 */
async function pushLines(connection: PostgresConnection, row: RunRow, runner: string | undefined, lines: readonly StoredLine[]): Promise<void> {
  for (const batch of batchesOf(lines)) {
    const last = batch[batch.length - 1];
    if (!last) continue;
    await queryBackend(
      connection,
      'storing journal lines',
      `with run as (
         insert into ${connection.schema}.journal_runs as r (run, target, account_id, started_at, git_revision, runner, actor, lines, ended, last_hash)
         values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $12)
         on conflict (run) do update set
           last_hash = case when excluded.lines > r.lines then excluded.last_hash else r.last_hash end,
           lines = greatest(r.lines, excluded.lines), ended = r.ended or excluded.ended, updated_at = now()
       )
       insert into ${connection.schema}.journal_lines (run, seq, line)
       select $1, l.seq, l.line from unnest($10::integer[], $11::text[]) as l (seq, line)
       on conflict (run, seq) do nothing`,
      [row.run, row.target, row.accountId, row.startedAt, row.gitRevision, runner ?? null, row.actor, last.seq + 1, batch.some((l) => l.ends), batch.map((l) => l.seq), batch.map((l) => l.text), hashLine(last.text)],
    );
  }
}

/**
 * Appends lines to a run the database holds (a resolution), after the lines it was read with: the
 * count and the last hash move only if they are still what the reader saw, in the statement that
 * stores the lines, so two resolvers at once store one resolution, and the other is refused.
 */
async function appendToRun(connection: PostgresConnection, run: JournalRun, lines: readonly { line: JournalLine; text: string }[]): Promise<RunChain> {
  const id = run.header.run;
  if (!run.chain) throw new ErpsyncError('JOURNAL_DAMAGED', `the run ${id} has no hash chain (it was written by an erpsync before format 2): nothing can be appended to it`);
  let last = run.chain.last;
  const texts = lines.map(({ text }) => {
    const stored = chainedText(text, last);
    last = hashLine(stored);
    return stored;
  });
  const seqs = texts.map((_text, i) => (run.chain?.lines ?? 0) + i);
  const stored = await queryBackend<{ seq: unknown }>(
    connection,
    'appending to a journal run',
    `with moved as (
       update ${connection.schema}.journal_runs set lines = $3, last_hash = $4, updated_at = now()
       where run = $1 and lines = $2 and last_hash = $5 returning run
     )
     insert into ${connection.schema}.journal_lines (run, seq, line)
     select m.run, l.seq, l.line from moved m, unnest($6::integer[], $7::text[]) as l (seq, line)
     returning seq`,
    [id, run.chain.lines, run.chain.lines + texts.length, last, run.chain.last, seqs, texts],
  );
  if (stored.length !== texts.length) throw new ErpsyncError('JOURNAL_DAMAGED', `the run ${id} changed in the backend since it was read: nothing was appended to it`);
  return { lines: run.chain.lines + texts.length, last };
}

function batchesOf(lines: readonly StoredLine[]): StoredLine[][] {
  const batches: StoredLine[][] = [];
  let current: StoredLine[] = [];
  let bytes = 0;
  for (const line of lines) {
    if (current.length >= batchLines || (current.length > 0 && bytes + line.text.length > batchBytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(line);
    bytes += line.text.length;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/**
 * Pushes every run file of a local journal folder whose lines the database lacks (from the first
 * line it lacks on); a run the database holds to its closing line is not read again. A run file
 * that fails the local checks, or does not continue the lines the database holds, is counted as
 * failed and the others go on; an unreachable database throws. `ownOnly` (the catching up every
 * open and list does) pushes only runs this machine wrote, those its run index vouches for: a run
 * file that came with the repository (a pull request may have written it) enters the database only
 * through `backend import`, which someone asks for.
 */
async function pushRunFiles(connection: PostgresConnection, location: JournalLocation, options: { runner?: string | undefined; skip?: ReadonlySet<string>; ownOnly?: boolean }): Promise<JournalImport> {
  const summary: JournalImport = { runs: 0, lines: 0, failed: [] };
  const runs = (await runFilesIn(location.dir)).map((name) => name.slice(0, -'.jsonl'.length)).filter((run) => isRunId(run) && !options.skip?.has(run));
  if (runs.length === 0) return summary;
  const stored = await queryBackend<{ run: unknown; lines: unknown; ended: unknown; last_hash: unknown }>(
    connection,
    'reading which journal runs it holds',
    `select run, lines, ended, last_hash from ${connection.schema}.journal_runs where run = any($1::text[])`,
    [runs],
  );
  const held = new Map(stored.map((r) => [r.run, { lines: Number.isSafeInteger(r.lines) ? (r.lines as number) : 0, ended: r.ended === true, last: typeof r.last_hash === 'string' ? r.last_hash : undefined }]));
  for (const run of runs) {
    const known = held.get(run);
    if (known?.ended) continue;
    try {
      const pushed = await pushRunFile(connection, location, run, known ?? { lines: 0 }, options);
      if (pushed > 0) {
        summary.runs += 1;
        summary.lines += pushed;
      }
    } catch (error) {
      summary.failed.push({ run, reason: error instanceof ErpsyncError ? error.message : reasonOf(error) });
    }
  }
  return summary;
}

/** Pushes one run file's lines from the first the database lacks; how many it pushed (0 for a file that is not a run's). */
async function pushRunFile(connection: PostgresConnection, location: JournalLocation, run: string, held: { lines: number; last?: string | undefined }, options: { runner?: string | undefined; ownOnly?: boolean }): Promise<number> {
  const read = await readLocalRun(location, run);
  if (!read) return 0;
  if (isDamaged(read.entry)) throw new ErpsyncError('JOURNAL_DAMAGED', `the local run file fails its checks: ${read.entry.problems.join('; ')}`);
  if (options.ownOnly && read.entry.trust !== 'verified') return 0;
  const { texts } = read;
  const from = held.lines;
  const first = texts[0];
  const row = first === undefined ? undefined : runRowOf(JSON.parse(first) as JournalLine);
  if (!row || row.run !== run || texts.length <= from) return 0;
  if (from > 0 && held.last !== undefined && hashLine(texts[from - 1] ?? '') !== held.last) {
    throw new ErpsyncError('JOURNAL_DAMAGED', `the local run file does not continue the ${from} lines the backend holds of it`);
  }
  await pushLines(
    connection,
    row,
    options.runner,
    texts.slice(from).map((text, i) => ({ seq: from + i, text, ends: endsRun(text) })),
  );
  return texts.length - from;
}

/** Every run the database holds (of one target, if named; only its newest, if asked), oldest first, each checked against its count and last hash. */
async function readRuns(connection: PostgresConnection, target: string | undefined, latest: boolean) {
  const rows = await queryBackend<{ run: unknown; target: unknown; runner: unknown; lines: unknown; last_hash: unknown; line: unknown }>(
    connection,
    'reading the journal',
    `select r.run, r.target, r.runner, r.lines, r.last_hash, l.line from ${connection.schema}.journal_runs r join ${connection.schema}.journal_lines l on l.run = r.run
     where ($1::text is null or r.target = $1)
       and (not $2::boolean or r.run = (select max(n.run) from ${connection.schema}.journal_runs n where n.target = $1))
     order by r.run, l.seq`,
    [target ?? null, latest],
  );
  const byRun = new Map<string, { target: unknown; runner: unknown; lines: unknown; last: unknown; texts: string[] }>();
  for (const row of rows) {
    if (typeof row.run !== 'string' || typeof row.line !== 'string') continue;
    const entry = byRun.get(row.run) ?? { target: row.target, runner: row.runner, lines: row.lines, last: row.last_hash, texts: [] };
    entry.texts.push(row.line);
    byRun.set(row.run, entry);
  }
  const entries: (JournalRun | DamagedRun)[] = [];
  for (const [id, { target: named, runner, lines, last, texts }] of byRun) {
    // Runs stored before the backend kept hashes have no anchor: only their chain is checked.
    const anchor = typeof last === 'string' && Number.isSafeInteger(lines) ? { type: 'last' as const, lines: lines as number, last } : undefined;
    const run = readRunEvidence(texts, { file: `postgres ${connection.where} run ${id}`, run: id }, anchor);
    entries.push(isDamaged(run) ? { ...run, ...(typeof named === 'string' ? { target: named } : {}) } : { ...run, ...(typeof runner === 'string' ? { runner } : {}) });
  }
  return listingOf(entries);
}

/** `backend import`: every run file in these folders whose lines the database lacks; run twice, the second pushes nothing. */
export async function importLocalJournal(connection: PostgresConnection, locations: readonly JournalLocation[], context: { runner?: string }): Promise<JournalImport> {
  const total: JournalImport = { runs: 0, lines: 0, failed: [] };
  for (const location of new Map(locations.map((l) => [l.dir, l])).values()) {
    const pushed = await pushRunFiles(connection, location, { runner: context.runner });
    total.runs += pushed.runs;
    total.lines += pushed.lines;
    total.failed.push(...pushed.failed);
  }
  return total;
}
