// The local backend's journal: one JSON Lines file per run, `<dir>/<run>.jsonl` in the target's
// journal folder. Each line is written synchronously and flushed to disk before `append` returns,
// so a run killed midway leaves every line it announced (an intent before the write it names) and
// no closing line; the file appears with the run's first line, so a run that never wrote leaves
// none. Listing reads the folders back through the shared line check (state/read-checks). It
// stores the lines it is given and decides nothing about what they say.
import { closeSync, fsyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ErpsyncError } from '../../model/errors.js';
import type { JournalRun } from '../../model/journal.js';
import { byRunId, parseJournalRun } from '../read-checks.js';
import type { JournalSink, JournalStore } from '../state-store.js';

/** A run id as erpsync makes them (start time and a random suffix): safe as a file name. */
const runIdPattern = /^[0-9A-Za-z][0-9A-Za-z_-]{0,127}$/;

export function localJournal(): JournalStore {
  return {
    async open(location, run) {
      return openRunFile(runFileOf(location.dir, run));
    },
    async list(locations, filter) {
      const runs = await readJournalRuns([...new Set(locations.map((l) => l.dir))]);
      return filter?.target === undefined ? runs : runs.filter((r) => r.header.target.name === filter.target);
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

function openRunFile(file: string): JournalSink {
  let fd: number | undefined;
  return {
    append(_line, text) {
      // One line each: a newline inside would split it in two on the way back.
      if (text.includes('\n')) throw new ErpsyncError('INTERNAL', 'a journal line holds a line break');
      fd ??= createRunFile(file);
      writeSync(fd, `${text}\n`);
      // Durable before the run goes on: a kill after this line leaves it on disk.
      fsyncSync(fd);
    },
    async close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

function createRunFile(file: string): number {
  mkdirSync(dirname(file), { recursive: true });
  const fd = openSync(file, 'a', 0o644);
  // The new file's name is durable too, not only its lines.
  const dir = openSync(dirname(file), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
  return fd;
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

/** Every run in these folders, oldest first. */
async function readJournalRuns(dirs: readonly string[]): Promise<JournalRun[]> {
  const runs: JournalRun[] = [];
  for (const dir of dirs) {
    for (const name of await runFilesIn(dir)) {
      const run = parseJournalRun(await readFile(join(dir, name), 'utf8'), join(dir, name));
      if (run) runs.push(run);
    }
  }
  return runs.sort(byRunId);
}
