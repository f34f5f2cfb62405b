// The postgres backend's journal: every run of every runner in `journal_runs` (with its target,
// account, start, git revision, actor and runner) and its lines in `journal_lines`, append-only,
// read back by any machine in the shape the local files give.
//
// A line is written to the LOCAL journal first, synchronously and flushed, before `append`
// returns: the intent of a write is on disk before the write is sent, however slow or gone the
// database is. A queue then pushes the lines to the database in order, in batches, off the run's
// path; `close` waits for it. Should the database fail, the queue stops and the lines stay in the
// local file; the next `open` or `list` of a postgres journal pushes every local run file whose
// lines the database lacks. A line is keyed by (run, seq) and stored only when that key is new,
// and a run's count of lines is raised in the same statement, so a push run twice, or by two
// processes at once, stores each line once. What is read back goes through the local reader's
// line check (state/read-checks). It decides nothing about what the lines say and prints nothing.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JournalLine, JournalRun, JournalRunLine } from '../../model/journal.js';
import { isRunId, runFilesIn } from '../local/journal.js';
import { byRunId, journalRunOf, parseJournalLine } from '../read-checks.js';
import type { JournalStore } from '../state-store.js';
import { queryBackend } from './backend-error.js';
import type { PostgresConnection } from './connect.js';
import { reasonOf } from './connect.js';

/** A line on its way to the database: its place in the run, its text, whether it closes the run. */
interface StoredLine {
  seq: number;
  text: string;
  ends: boolean;
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
  const catchUp = (dir: string): Promise<void> => {
    const known = caughtUp.get(dir);
    if (known) return known;
    const done = pushRunFiles(connection, dir, { runner: context.runner, skip: writing }).then(
      (pushed) => (pushed.failed.length > 0 ? forget(dir) : undefined),
      // The database is away: the lines stay in the files, for the next open or list.
      () => forget(dir),
    );
    caughtUp.set(dir, done);
    return done;
  };
  return {
    async open(location, run) {
      const file = await local.open(location, run);
      writing.add(run);
      const pusher = linePusher(connection, context.runner, catchUp(location.dir), () => forget(location.dir));
      return {
        append(line, text) {
          file.append(line, text);
          pusher.add(line, text);
        },
        async close() {
          await file.close();
          await pusher.drained();
          writing.delete(run);
        },
      };
    },
    async list(locations, filter) {
      await Promise.all([...new Set(locations.map((l) => l.dir))].map(catchUp));
      return readRuns(connection, filter?.target);
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

/** Stores lines of one run, batch by batch: each batch's lines and the run's count in one statement. */
async function pushLines(connection: PostgresConnection, row: RunRow, runner: string | undefined, lines: readonly StoredLine[]): Promise<void> {
  for (const batch of batchesOf(lines)) {
    const last = batch[batch.length - 1];
    if (!last) continue;
    await queryBackend(
      connection,
      'storing journal lines',
      `with run as (
         insert into ${connection.schema}.journal_runs as r (run, target, account_id, started_at, git_revision, runner, actor, lines, ended)
         values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9)
         on conflict (run) do update set lines = greatest(r.lines, excluded.lines), ended = r.ended or excluded.ended, updated_at = now()
       )
       insert into ${connection.schema}.journal_lines (run, seq, line)
       select $1, l.seq, l.line from unnest($10::integer[], $11::text[]) as l (seq, line)
       on conflict (run, seq) do nothing`,
      [row.run, row.target, row.accountId, row.startedAt, row.gitRevision, runner ?? null, row.actor, last.seq + 1, batch.some((l) => l.ends), batch.map((l) => l.seq), batch.map((l) => l.text)],
    );
  }
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
 * line it lacks on); a run the database holds to its closing line is not read again. A run the
 * database refuses is counted as failed and the others go on; an unreachable database throws.
 */
async function pushRunFiles(connection: PostgresConnection, dir: string, options: { runner?: string | undefined; skip?: ReadonlySet<string> }): Promise<JournalImport> {
  const summary: JournalImport = { runs: 0, lines: 0, failed: [] };
  const runs = (await runFilesIn(dir)).map((name) => name.slice(0, -'.jsonl'.length)).filter((run) => isRunId(run) && !options.skip?.has(run));
  if (runs.length === 0) return summary;
  const stored = await queryBackend<{ run: unknown; lines: unknown; ended: unknown }>(
    connection,
    'reading which journal runs it holds',
    `select run, lines, ended from ${connection.schema}.journal_runs where run = any($1::text[])`,
    [runs],
  );
  const held = new Map(stored.map((r) => [r.run, { lines: Number.isSafeInteger(r.lines) ? (r.lines as number) : 0, ended: r.ended === true }]));
  for (const run of runs) {
    const known = held.get(run);
    if (known?.ended) continue;
    try {
      const pushed = await pushRunFile(connection, join(dir, `${run}.jsonl`), run, known?.lines ?? 0, options.runner);
      if (pushed > 0) {
        summary.runs += 1;
        summary.lines += pushed;
      }
    } catch (error) {
      summary.failed.push({ run, reason: reasonOf(error) });
    }
  }
  return summary;
}

/** Pushes one run file's complete lines from `from` on; how many it pushed (0 for a file that is not a run's). */
async function pushRunFile(connection: PostgresConnection, file: string, run: string, from: number, runner: string | undefined): Promise<number> {
  const texts = (await readFile(file, 'utf8')).split('\n');
  // The last piece is empty, or a line torn by a kill: only lines with their newline are pushed.
  texts.pop();
  const header = texts[0] === undefined ? undefined : parseJournalLine(texts[0]);
  const row = header === undefined ? undefined : runRowOf(header);
  if (!row || row.run !== run || texts.length <= from) return 0;
  await pushLines(
    connection,
    row,
    runner,
    texts.slice(from).map((text, i) => ({ seq: from + i, text, ends: parseJournalLine(text)?.type === 'end' })),
  );
  return texts.length - from;
}

/** Every run the database holds (of one target, if named), oldest first, each line checked as the local reader checks it. */
async function readRuns(connection: PostgresConnection, target: string | undefined): Promise<JournalRun[]> {
  const rows = await queryBackend<{ run: unknown; runner: unknown; line: unknown }>(
    connection,
    'reading the journal',
    `select r.run, r.runner, l.line from ${connection.schema}.journal_runs r join ${connection.schema}.journal_lines l on l.run = r.run
     where $1::text is null or r.target = $1 order by r.run, l.seq`,
    [target ?? null],
  );
  const byRun = new Map<string, { runner: unknown; texts: string[] }>();
  for (const row of rows) {
    if (typeof row.run !== 'string' || typeof row.line !== 'string') continue;
    const entry = byRun.get(row.run) ?? { runner: row.runner, texts: [] };
    entry.texts.push(row.line);
    byRun.set(row.run, entry);
  }
  const runs: JournalRun[] = [];
  for (const [id, { runner, texts }] of byRun) {
    const run = journalRunOf(texts, `postgres ${connection.where} run ${id}`);
    // A run's lines name the run they belong to; lines that name another are not this run's.
    if (run?.header.run === id) runs.push({ ...run, ...(typeof runner === 'string' ? { runner } : {}) });
  }
  return runs.sort(byRunId);
}

/** `backend import`: every run file in these folders whose lines the database lacks; run twice, the second pushes nothing. */
export async function importLocalJournal(connection: PostgresConnection, dirs: readonly string[], context: { runner?: string }): Promise<JournalImport> {
  const total: JournalImport = { runs: 0, lines: 0, failed: [] };
  for (const dir of new Set(dirs)) {
    const pushed = await pushRunFiles(connection, dir, { runner: context.runner });
    total.runs += pushed.runs;
    total.lines += pushed.lines;
    total.failed.push(...pushed.failed);
  }
  return total;
}
