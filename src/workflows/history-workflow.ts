// `erpsync history`: the journal's runs as evidence, each write with its true outcome. A run that
// left an outcome unknown (its answer lost, or the run killed after the intent) is settled first by
// reading its account (workflows/settle-outcomes): its target is opened — only then, and only for
// such runs — and the resolution is appended to the run. A target that cannot be reached from
// here, an apply holding the account, or a run that died too recently for what it had in flight
// to have landed (history waits for nothing), leaves the outcome unknown, with a note. It prints nothing.
import type { TargetsConfig } from '../api/targets.js';
import type { TargetRequest } from '../target/resolve-target.js';
import type { JournalListing, JournalRun } from '../model/journal.js';
import { isUnsettled } from '../model/journal.js';
import type { RunIO } from '../model/run-io.js';
import { openResolvedTarget, resolveRunTarget } from '../target/open-target.js';
import { backendChoiceOf } from '../target/resolve-target.js';
import { stateStoreFor } from '../target/run-state.js';
import { journalLocationsOf } from './journal-reader.js';
import { settleUnknownOutcomes } from './settle-outcomes.js';

export interface HistoryRequest {
  config?: TargetsConfig;
  /** Only this target's runs. */
  target?: string;
  /** How long a write of a run that died may still commit (the apply's outcome window). */
  outcomeWindowMs: number;
}

export interface History {
  listing: JournalListing;
  /** Unknown outcomes that could not be settled, and why. */
  notes: string[];
}

export async function readHistory(request: HistoryRequest, io: RunIO): Promise<History> {
  const state = await stateStoreFor(backendChoiceOf(request.config, io.env), io);
  const locations = journalLocationsOf(request.config, io.cwd, request.target);
  const listing = await state.journal.list(locations, request.target === undefined ? {} : { target: request.target });
  const notes: string[] = [];
  const settled = new Map<string, JournalRun>();
  for (const [name, runs] of unsettledByTarget(listing.runs)) {
    const first = runs[0]?.header.target;
    try {
      const target = await resolveRunTarget(targetRequestOf(name, first, request.config), io, request.config);
      const reachable = runs.filter((run) => run.header.target.id === target.id);
      for (const run of runs.filter((r) => !reachable.includes(r))) notes.push(`run ${run.header.run}: its unknown outcomes stay unknown: target ${name} is ${target.id} here, not ${run.header.target.id}`);
      if (reachable.length === 0) continue;
      const opened = await openResolvedTarget(target, {}, io);
      try {
        const result = await settleUnknownOutcomes(reachable, opened, io, { leased: false, inFlightMs: request.outcomeWindowMs, inFlight: 'refuse', locations });
        for (const run of result.runs) settled.set(run.header.run, run);
        notes.push(...result.notes);
      } finally {
        await opened.close();
      }
    } catch (error) {
      notes.push(`the runs of target ${name || 'default'} keep their unknown outcomes: its account cannot be read from here (${(error as Error).message})`);
    }
  }
  return { listing: { ...listing, runs: listing.runs.map((run) => settled.get(run.header.run) ?? run) }, notes };
}

/** Runs with an outcome to settle, by target name. */
function unsettledByTarget(runs: readonly JournalRun[]): Map<string, JournalRun[]> {
  const byTarget = new Map<string, JournalRun[]>();
  for (const run of runs.filter((r) => r.changes.some(isUnsettled))) byTarget.set(run.header.target.name, [...(byTarget.get(run.header.target.name) ?? []), run]);
  return byTarget;
}

/** How to reach a run's target again: by its name in the config, as the sandbox it was, or at the base URL it had (with this environment's credentials for it). */
function targetRequestOf(name: string, target: JournalRun['header']['target'] | undefined, config: TargetsConfig | undefined): TargetRequest {
  if (config?.targets[name]) return { target: name };
  if (target?.mode === 'sandbox') return { sandbox: true, sandboxState: target.id.slice('sandbox:'.length) };
  return target ? { baseUrl: target.id } : {};
}
