// The journal of applies: what every apply did, one JSON Lines file per run, written line by line
// as the run goes (workflows/journal-writer) and read back by history, revert plans, drift
// attribution and the fleet dashboard. Plain data; secret values never enter it (left out by the
// field, as saved plans leave them out). A run without its closing line was interrupted.
import type { ChangeAction, ChangeReason, FieldChange, GitRevision } from './plan.js';
import type { UnitKind } from './kinds.js';

export const journalFormatVersion = 1;

/** Who started a run: a CI job (its URL) or a person on a machine. */
export interface JournalActor {
  type: 'ci' | 'user';
  /** The CI run's URL. */
  url?: string;
  /** Who ran it: GITHUB_ACTOR, else GITLAB_USER_LOGIN, else the OS user; absent when nothing names one. */
  user?: string;
  host?: string;
}

export interface JournalRunLine {
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

export type JournalOutcome = 'applied' | 'failed' | 'skipped' | 'unknown';

export interface JournalChangeLine {
  type: 'change';
  at: string;
  /** The change's id in the plan. */
  change: string;
  action: ChangeAction;
  reason: ChangeReason;
  kind: UnitKind;
  key: string;
  liveId?: number;
  outcome: JournalOutcome;
  /** The record's id after the change (a create's new id). */
  id?: number;
  /** Why it failed or was skipped. */
  detail?: string;
  /** Field by field, as planned (sensitive fields without values). */
  fields: FieldChange[];
  /** The record as read before the run (absent for a create). */
  before?: JournalRecord;
  /** What was written: the record as the change declares it (absent for removals). */
  written?: Record<string, unknown>;
}

/** A change that started and was never reported as ended: a run killed then left its outcome unknown. */
export interface JournalStartLine {
  type: 'start';
  at: string;
  change: string;
}

/** The records read again after the writes, as the account kept them. */
export interface JournalReadBackLine {
  type: 'read-back';
  at: string;
  change: string;
  record: JournalRecord;
}

export interface JournalEndLine {
  type: 'end';
  at: string;
  applied: number;
  failed: number;
  skipped: number;
  interrupted: boolean;
  /** Changes the read-back found not kept by the service. */
  notConverged: string[];
}

export type JournalLine = JournalRunLine | JournalChangeLine | JournalStartLine | JournalReadBackLine | JournalEndLine;

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
  /** Changes started and never ended (killed midway). */
  unfinished: string[];
  status: JournalRunStatus;
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

/** Whether a change of the journal left the record as it declared (so a later difference is someone else's). */
export function changedTheAccount(change: JournalChangeLine): boolean {
  return change.outcome === 'applied' || change.outcome === 'unknown';
}
