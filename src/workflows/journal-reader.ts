// Reading the journal back (model/journal): where a repository's runs are, the run a command
// names, and the runs a drift is attributed from. The runs themselves come from the state store's
// journal (state/), newest last, each with its changes, its read-back and how it ended; each run's
// header names the commit it applied and who ran it (model/journal: commitOfRun, actorOfRun), which
// history and the dashboard show. It writes nothing and prints nothing.
import { resolve } from 'node:path';
import { DEFAULT_JOURNAL_DIR } from '../api/targets.js';
import type { TargetsConfig } from '../api/targets.js';
import { ErpsyncError } from '../model/errors.js';
import type { JournalRun } from '../model/journal.js';
import type { DriftReport } from '../model/drift.js';
import type { JournalLocation, JournalStore } from '../state/state-store.js';
import { attributeDrift } from '../drift/attribute-drift.js';
import { journalDirOf } from './journal-writer.js';
import type { OpenedTarget } from '../target/open-target.js';
import type { RunIO } from '../model/run-io.js';

/**
 * Where a repository's runs are: each configured target's journal folder, and the working
 * folder's default one, which holds the runs of targets resolved without a config (there the
 * target's name is the one asked for, or '' for any).
 */
export function journalLocationsOf(config: TargetsConfig | undefined, cwd: string, target?: string): JournalLocation[] {
  const base = config?.dir ?? cwd;
  const entry = target === undefined ? undefined : config?.targets[target];
  if (target !== undefined && entry) return [{ target, dir: resolve(base, entry.journal ?? DEFAULT_JOURNAL_DIR) }];
  const configured = Object.entries(config?.targets ?? {}).map(([name, e]) => ({ target: name, dir: resolve(base, e.journal ?? DEFAULT_JOURNAL_DIR) }));
  return [{ target: target ?? '', dir: resolve(cwd, DEFAULT_JOURNAL_DIR) }, ...configured];
}

/** The run named by its id, or by a prefix of it only one run has, or by the id of the fleet apply it was the one run of. */
export function findJournalRun(runs: readonly JournalRun[], id: string): JournalRun {
  const exact = runs.find((r) => r.header.run === id);
  if (exact) return exact;
  const ofFleet = runs.filter((r) => r.header.fleet === id);
  if (ofFleet.length === 1 && ofFleet[0]) return ofFleet[0];
  const matching = runs.filter((r) => r.header.run.startsWith(id));
  if (matching.length === 1 && matching[0]) return matching[0];
  if (matching.length > 1) throw new ErpsyncError('USAGE', `${matching.length} runs start with \`${id}\`: give more of the id`, { details: matching.slice(0, 5).map((r) => r.header.run) });
  throw new ErpsyncError('USAGE', `no run \`${id}\` in the journal`, { details: ['`erpsync history` lists the runs'] });
}

/**
 * The fleet apply `id` names: its own id (or a prefix only one fleet has), or the id of one of its
 * runs — any store's run of a fleet apply names the whole fleet.
 */
export function findFleet(runs: readonly JournalRun[], id: string): string {
  const fleets = [...new Set(runs.flatMap((r) => r.header.fleet ?? []))];
  const named = fleets.includes(id) ? [id] : fleets.filter((fleet) => fleet.startsWith(id));
  if (named.length === 1 && named[0]) return named[0];
  const run = findJournalRun(runs, id);
  if (run.header.fleet === undefined) throw new ErpsyncError('USAGE', `run ${run.header.run} was not part of a fleet apply: revert it with --target ${run.header.target.name || 'NAME'}`);
  return run.header.fleet;
}

/** A drift report attributed from the journal of its target: the runs on this very account only. */
export async function attributeFromJournal(report: DriftReport, opened: Pick<OpenedTarget, 'target' | 'account'>, io: Pick<RunIO, 'cwd'>, journal: JournalStore): Promise<DriftReport> {
  const runs = await journal.list([{ target: opened.target.name, dir: journalDirOf(opened.target, io.cwd) }], { target: opened.target.name });
  return attributeDrift(report, runs.filter((r) => r.header.target.id === opened.target.id && r.header.account.id === opened.account.id));
}
