// The journal of applies: what every apply did, one JSON Lines file per run, written line by line
// as the run goes (workflows/journal-writer) and read back by history, revert plans, drift
// attribution and the fleet dashboard. Plain data; secret values never enter it (left out by the
// field, as saved plans leave them out). A run without its closing line was interrupted.
//
// It is evidence, not truth: every line read back is checked against the published schema
// (schemas/journal-line.schema.json, model/journal-schema), each line carries the hash of the one
// before it, and the store keeps each run's hashes where a pull request cannot rewrite them
// (state/). A run that fails a check is a DamagedRun, named with the file and line at fault.
import type { ChangeAction, ChangeReason, FieldChange, GitRevision } from './plan.js';
import type { UnitKind } from './kinds.js';

/** 2: intent and outcome lines, chained by hash. Runs of format 1 (a change line after each write) are still read. */
export const journalFormatVersion = 2;

/** Who started a run: a CI job (its URL) or a person on a machine. */
export interface JournalActor {
  type: 'ci' | 'user';
  /** The CI run's URL. */
  url?: string;
  /** Who ran it: GITHUB_ACTOR, else GITLAB_USER_LOGIN, else the OS user; absent when nothing names one. */
  user?: string;
  host?: string;
}

export interface JournalRunLine extends ChainedLine {
  type: 'run';
  formatVersion: number;
  /** Sortable and unique: the start time and a random suffix. */
  run: string;
  startedAt: string;
  erpsyncVersion: string;
  /** `manifests`: planned in this run; `saved-plan`: applied from a plan file. */
  source: 'manifests' | 'saved-plan';
  /**
   * The git revision of the checkout that applied (its manifests, else its working folder), and
   * whether they had uncommitted changes; null outside git.
   */
  git: GitRevision | null;
  /** A saved (or fleet-reviewed) plan's: the revision its manifests had when it was made; null outside git. Absent: planned in this run, or saved without it. */
  planGit?: GitRevision | null;
  /** `--from-target`: the template store whose account the run copied. */
  template?: string;
  target: { name: string; id: string; mode: 'sandbox' | 'remote' };
  account: { id: string; nome: string; cnpj: string };
  actor: JournalActor;
  changes: number;
  /**
   * The fleet apply this run was one store of (`apply --all-targets`, a glob, a folder of saved
   * plans): one id for every store's run, so that `plan --revert` undoes them together.
   */
  fleet?: string;
}

/** A record as a run knew it, in the manifest's shape (API field names, codes, references as identities), secrets left out. */
export interface JournalRecord {
  id: number;
  identity: string;
  name: string;
  parent?: string;
  fields: Record<string, unknown>;
}

/**
 * What came of a change. `not-kept`: applied, but the read-back found a written field the
 * service did not keep; `unknown`: the service's answer was lost (a timeout, a broken
 * connection, the run killed) and no later read of the account settled it yet.
 */
export type JournalOutcome = 'applied' | 'not-kept' | 'failed' | 'skipped' | 'unknown';

/** What a change is, as the plan had it: the whole of an intent line, and of a change as read back. */
export interface JournalChangeDescription {
  at: string;
  /** The change's id in the plan. */
  change: string;
  action: ChangeAction;
  reason: ChangeReason;
  kind: UnitKind;
  key: string;
  liveId?: number;
  /** Field by field, as planned (sensitive fields without values). */
  fields: FieldChange[];
  /** The record as read before the run (absent for a create). */
  before?: JournalRecord;
  /** What was written: the record as the change declares it (absent for removals). */
  written?: Record<string, unknown>;
}

/** Every line but a run's first carries `prev`: the sha256 (hex) of the line before it in the run, as stored. */
interface ChainedLine {
  prev?: string;
}

/** Written and flushed before the write it announces is sent (for a change that never started, right before its outcome). */
export interface JournalIntentLine extends JournalChangeDescription, ChainedLine {
  type: 'intent';
}

/** The outcome of a change whose intent came before it. */
export interface JournalOutcomeLine extends ChainedLine {
  type: 'outcome';
  at: string;
  change: string;
  outcome: 'applied' | 'failed' | 'skipped' | 'unknown';
  /** The record's id after the change (a create's new id). */
  id?: number;
  /** Why it failed or was skipped. */
  detail?: string;
}

/**
 * An unknown outcome settled later by reading the account by the record's identity: `history`,
 * `plan --revert` or the next apply on the account appends it to the run it settles.
 */
export interface JournalResolutionLine extends ChainedLine {
  type: 'resolution';
  at: string;
  change: string;
  outcome: 'applied' | 'not-applied';
  /** The record's id as the account holds it (a create found by its identity). */
  id?: number;
  /** What the read found. */
  detail: string;
}

/** A change as a run of format 1 recorded it, in one line after its write; and a change as read back from any run. */
export interface JournalChangeLine extends JournalChangeDescription, ChainedLine {
  type: 'change';
  outcome: JournalOutcome;
  /** The record's id after the change (a create's new id). */
  id?: number;
  /** Why it failed, was skipped or was not kept, or how it was resolved. */
  detail?: string;
  /** When a later read of the account settled an unknown outcome. */
  resolvedAt?: string;
}

/** Format 1: a change that started (its intent followed by its change line, or by nothing when the run was killed). */
export interface JournalStartLine extends ChainedLine {
  type: 'start';
  at: string;
  change: string;
}

/** The records read again after the writes, as the account kept them. */
export interface JournalReadBackLine extends ChainedLine {
  type: 'read-back';
  at: string;
  change: string;
  record: JournalRecord;
}

export interface JournalEndLine extends ChainedLine {
  type: 'end';
  at: string;
  applied: number;
  failed: number;
  skipped: number;
  interrupted: boolean;
  /** What the read-back found not kept by the service, in words. */
  notConverged: string[];
  /** The changes whose write the read-back found not kept (format 2). */
  notKept?: string[];
}

export type JournalLine = JournalRunLine | JournalIntentLine | JournalOutcomeLine | JournalReadBackLine | JournalEndLine | JournalResolutionLine | JournalChangeLine | JournalStartLine;

/** `finished`: closing line present; `interrupted`: stopped (Ctrl-C) or killed midway (no closing line). */
export type JournalRunStatus = 'finished' | 'failed' | 'interrupted';

/** One run read back from its file (or the shared backend). */
export interface JournalRun {
  header: JournalRunLine;
  /** Where it was read: the run's file, or the shared backend's name for it. */
  file: string;
  /** The runner that stored it (a CI job, a host), when the shared backend knows it. */
  runner?: string;
  changes: JournalChangeLine[];
  readBack: JournalReadBackLine[];
  /** Absent when the run never wrote its closing line (killed). */
  end?: JournalEndLine;
  /** Format 1: changes started and never ended (killed midway). Format 2 lists such a change with the outcome `unknown`. */
  unfinished: string[];
  status: JournalRunStatus;
  /**
   * `verified`: its lines chain and match what the store kept of them when they were written;
   * `unanchored`: the store kept nothing of this run (written on another machine with the local
   * backend, or by an erpsync before format 2), so only the chain between its lines is checked.
   */
  trust: 'verified' | 'unanchored';
  /** What the checks noticed without finding damage (a last line the kill cut off). */
  notes: string[];
  /** How many lines the run holds and the hash of the last: what a line appended to it must follow. Absent for format 1. */
  chain?: { lines: number; last: string };
}

/** A run whose lines fail a check (or a file in the journal folder that is no run): left out of every use, named. */
export interface DamagedRun {
  /** The run's id: from its first line when that is sound, else from the file's name. */
  run: string;
  /** The file (or the shared backend's name for the run). */
  file: string;
  /** The target its lines name, when they name one. */
  target?: string;
  /** Each problem, as `file:line: what`. */
  problems: string[];
}

/** The journal as read back: the runs that passed every check, and those that did not. */
export interface JournalListing {
  runs: JournalRun[];
  damaged: DamagedRun[];
}

/** The commit a run applied: its plan's, when it applied a saved plan that recorded one, else its checkout's. */
export function commitOfRun(header: Pick<JournalRunLine, 'git' | 'planGit'>): GitRevision | null {
  return header.planGit ?? header.git;
}

/** Who ran it, in a word: the CI or OS login, else the CI job's address; undefined when nothing names anyone. */
export function actorOfRun(header: Pick<JournalRunLine, 'actor'>): string | undefined {
  return header.actor.user ?? header.actor.url;
}

/** A run's status from its lines: no closing line means it never finished. */
export function statusOfRun(end: JournalEndLine | undefined): JournalRunStatus {
  if (!end || end.interrupted) return 'interrupted';
  return end.failed > 0 || end.notConverged.length > 0 ? 'failed' : 'finished';
}

/** Whether a change of the journal may have changed the account (so a revert undoes it, and a later difference is someone else's). */
export function changedTheAccount(change: JournalChangeLine): boolean {
  return change.outcome === 'applied' || change.outcome === 'not-kept' || change.outcome === 'unknown';
}

/** A change whose outcome was unknown, as a resolution settled it: applied (with the id the account holds), or failed (not in the account). */
export function settleChange(change: JournalChangeLine, resolution: JournalResolutionLine): JournalChangeLine {
  const id = resolution.id ?? change.id;
  return { ...change, outcome: resolution.outcome === 'applied' ? 'applied' : 'failed', ...(id === undefined ? {} : { id }), detail: resolution.detail, resolvedAt: resolution.at };
}

/** Whether a change's outcome is still to be settled by reading the account. */
export function isUnsettled(change: JournalChangeLine): boolean {
  return change.outcome === 'unknown' && change.action !== 'blocked';
}
