// Reading the journal back (model/journal): the runs in the journal folders of the config's
// targets, newest last, each with its changes, its read-back and how it ended. A line that does not
// parse (the last one of a run killed while writing it) is left out; a run without its closing line
// is interrupted. It writes nothing and prints nothing.
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DEFAULT_JOURNAL_DIR } from '../api/targets.js';
import type { TargetsConfig } from '../api/targets.js';
import { ErpsyncError } from '../model/errors.js';
import type { JournalChangeLine, JournalEndLine, JournalLine, JournalReadBackLine, JournalRun, JournalRunLine } from '../model/journal.js';
import { statusOfRun } from '../model/journal.js';
import { isPlainRecord } from '../model/paths.js';
import type { DriftReport } from '../model/drift.js';
import { attributeDrift } from '../drift/attribute-drift.js';
import { journalDirOf } from './journal-writer.js';
import type { OpenedTarget } from './open-target.js';
import type { RunIO } from './run-io.js';

/** The journal folders a repository writes to: the default one and each target's own. */
export function journalDirsOf(config: TargetsConfig | undefined, cwd: string, target?: string): string[] {
  const base = config?.dir ?? cwd;
  if (target !== undefined && config?.targets[target]) return [resolve(base, config.targets[target].journal ?? DEFAULT_JOURNAL_DIR)];
  const dirs = [resolve(cwd, DEFAULT_JOURNAL_DIR), ...Object.values(config?.targets ?? {}).map((entry) => resolve(base, entry.journal ?? DEFAULT_JOURNAL_DIR))];
  return [...new Set(dirs)];
}

/** Every run in these folders, oldest first. */
export async function readJournalRuns(dirs: readonly string[]): Promise<JournalRun[]> {
  const runs: JournalRun[] = [];
  for (const dir of dirs) {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw new ErpsyncError('FILE_UNREADABLE', `cannot read the journal folder ${dir}`, { cause: error });
    }
    for (const name of names.filter((n) => n.endsWith('.jsonl')).sort()) {
      const run = parseJournalRun(await readFile(join(dir, name), 'utf8'), join(dir, name));
      if (run) runs.push(run);
    }
  }
  return runs.sort((a, b) => (a.header.run < b.header.run ? -1 : a.header.run > b.header.run ? 1 : 0));
}

/** One run's file as a run; undefined when it holds no run line (not a journal file). */
export function parseJournalRun(text: string, file: string): JournalRun | undefined {
  const lines = text.split('\n').flatMap((line): JournalLine[] => {
    if (line.trim() === '') return [];
    try {
      const value: unknown = JSON.parse(line);
      return isPlainRecord(value) && typeof value.type === 'string' ? [value as unknown as JournalLine] : [];
    } catch {
      return [];
    }
  });
  const header = lines.find((l): l is JournalRunLine => l.type === 'run');
  if (!header) return undefined;
  const changes = lines.filter((l): l is JournalChangeLine => l.type === 'change');
  const ended = new Set(changes.map((c) => c.change));
  const end = lines.find((l): l is JournalEndLine => l.type === 'end');
  return {
    header,
    file,
    changes,
    readBack: lines.filter((l): l is JournalReadBackLine => l.type === 'read-back'),
    ...(end ? { end } : {}),
    unfinished: lines.flatMap((l) => (l.type === 'start' && !ended.has(l.change) ? [l.change] : [])),
    status: statusOfRun(end),
  };
}

/** The run named by its id, or by a prefix of it only one run has. */
export function findJournalRun(runs: readonly JournalRun[], id: string): JournalRun {
  const exact = runs.find((r) => r.header.run === id);
  if (exact) return exact;
  const matching = runs.filter((r) => r.header.run.startsWith(id));
  if (matching.length === 1 && matching[0]) return matching[0];
  if (matching.length > 1) throw new ErpsyncError('USAGE', `${matching.length} runs start with \`${id}\`: give more of the id`, { details: matching.slice(0, 5).map((r) => r.header.run) });
  throw new ErpsyncError('USAGE', `no run \`${id}\` in the journal`, { details: ['`erpsync history` lists the runs'] });
}

/** A drift report attributed from the journal of its target: the runs on this very account only. */
export async function attributeFromJournal(report: DriftReport, opened: Pick<OpenedTarget, 'target' | 'account'>, io: Pick<RunIO, 'cwd'>): Promise<DriftReport> {
  const runs = await readJournalRuns([journalDirOf(opened.target, io.cwd)]);
  return attributeDrift(report, runs.filter((r) => r.header.target.id === opened.target.id && r.header.account.id === opened.account.id));
}
