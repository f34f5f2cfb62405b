// Reading the journal back (model/journal): where a repository's runs are, the run a command
// names, and the runs a drift is attributed from. The runs themselves come from the state store's
// journal (state/), oldest first, each checked as evidence: a damaged run is never used, only
// named (a command that names one is refused with its problems). Each run's header names the
// commit it applied and who ran it (model/journal: commitOfRun, actorOfRun), which history and the
// dashboard show. It writes nothing and prints nothing.
import { resolve } from 'node:path';
import type { ResolvedTarget } from '../api/index.js';
import { DEFAULT_JOURNAL_DIR } from '../api/targets.js';
import type { TargetsConfig } from '../api/targets.js';
import type { Diagnostic } from '../model/diagnostics.js';
import { ErpsyncError } from '../model/errors.js';
import type { DamagedRun, JournalListing, JournalRun } from '../model/journal.js';
import type { DriftReport } from '../model/drift.js';
import type { JournalLocation, JournalStore } from '../state/state-store.js';
import { attributeDrift } from '../drift/attribute-drift.js';
import { describeDamage } from '../report/history-report.js';
import type { OpenedTarget } from '../target/open-target.js';
import type { RunIO } from '../model/run-io.js';

/** Where a target's runs are written and read: its journal folder, inside the working tree of its config (else of the working folder). */
export function journalLocationOf(target: Pick<ResolvedTarget, 'name' | 'journal' | 'configDir'>, cwd: string): JournalLocation {
  return { target: target.name, dir: target.journal ?? resolve(cwd, DEFAULT_JOURNAL_DIR), within: target.configDir ?? cwd };
}

/**
 * Where a repository's runs are: each configured target's journal folder, and the working
 * folder's default one, which holds the runs of targets resolved without a config (there the
 * target's name is the one asked for, or '' for any).
 */
export function journalLocationsOf(config: TargetsConfig | undefined, cwd: string, target?: string): JournalLocation[] {
  const base = config?.dir ?? cwd;
  const entry = target === undefined ? undefined : config?.targets[target];
  if (target !== undefined && entry) return [{ target, dir: resolve(base, entry.journal ?? DEFAULT_JOURNAL_DIR), within: base }];
  const configured = Object.entries(config?.targets ?? {}).map(([name, e]) => ({ target: name, dir: resolve(base, e.journal ?? DEFAULT_JOURNAL_DIR), within: base }));
  return [{ target: target ?? '', dir: resolve(cwd, DEFAULT_JOURNAL_DIR), within: cwd }, ...configured];
}

/** The entries named by an id, or by a prefix of it. */
function named<T>(entries: readonly T[], idOf: (entry: T) => string, id: string): T[] {
  const exact = entries.filter((e) => idOf(e) === id);
  return exact.length > 0 ? exact : entries.filter((e) => idOf(e) !== '' && idOf(e).startsWith(id));
}

/** A damaged run a command named: refused, with every problem found in it. */
export function damagedRunError(damaged: DamagedRun): ErpsyncError {
  return new ErpsyncError('JOURNAL_DAMAGED', `the run ${damaged.run} in ${damaged.file} fails the journal's checks: it is not used`, {
    details: [...damaged.problems, 'a line was changed, removed, added or reordered since the run wrote it, or the file is no run erpsync wrote; restore it from where it was kept (git, a pipeline artifact)'],
  });
}

/**
 * The run named by its id, or by a prefix of it only one run has, or by the id of the fleet apply
 * it was the one run of; a damaged one is refused (JOURNAL_DAMAGED).
 */
export function findJournalRun(listing: JournalListing, id: string): JournalRun {
  const ofFleet = listing.runs.filter((r) => r.header.fleet === id);
  const runs = ofFleet.length === 1 && !listing.runs.some((r) => r.header.run === id) ? ofFleet : named(listing.runs, (r) => r.header.run, id);
  const damaged = named(listing.damaged, (d) => d.run, id);
  const [run] = runs;
  const [broken] = damaged;
  if (runs.length + damaged.length > 1) {
    throw new ErpsyncError('USAGE', `${runs.length + damaged.length} runs start with \`${id}\`: give more of the id`, { details: [...runs.map((r) => r.header.run), ...damaged.map((d) => d.run)].slice(0, 5) });
  }
  if (broken) throw damagedRunError(broken);
  if (run) return run;
  throw new ErpsyncError('USAGE', `no run \`${id}\` in the journal`, { details: ['`erpsync history` lists the runs'] });
}

/**
 * The fleet apply `id` names: its own id (or a prefix only one fleet has), or the id of one of its
 * runs — any store's run of a fleet apply names the whole fleet. A damaged run named is refused.
 */
export function findFleet(listing: JournalListing, id: string): string {
  const fleets = [...new Set(listing.runs.flatMap((r) => r.header.fleet ?? []))];
  const matching = fleets.includes(id) ? [id] : fleets.filter((fleet) => fleet.startsWith(id));
  if (matching.length === 1 && matching[0]) return matching[0];
  const run = findJournalRun(listing, id);
  if (run.header.fleet === undefined) throw new ErpsyncError('USAGE', `run ${run.header.run} was not part of a fleet apply: revert it with --target ${run.header.target.name || 'NAME'}`);
  return run.header.fleet;
}

/** A warning for each damaged run: left out of what the command shows. */
export function damagedRunWarnings(damaged: readonly DamagedRun[]): Diagnostic[] {
  return damaged.map((d) => ({ severity: 'warning', code: 'journal-damaged', message: `${describeDamage(d)} — the run ${d.run || '(none)'} is left out` }));
}

/** A drift report attributed from the journal of its target: the runs on this very account only; damaged runs are left out, with a warning each. */
export async function attributeFromJournal(report: DriftReport, opened: Pick<OpenedTarget, 'target' | 'account'>, io: Pick<RunIO, 'cwd'>, journal: JournalStore): Promise<{ report: DriftReport; warnings: Diagnostic[] }> {
  const listing = await journal.list([journalLocationOf(opened.target, io.cwd)], { target: opened.target.name });
  const runs = listing.runs.filter((r) => r.header.target.id === opened.target.id && r.header.account.id === opened.account.id);
  return { report: attributeDrift(report, runs), warnings: damagedRunWarnings(listing.damaged) };
}
