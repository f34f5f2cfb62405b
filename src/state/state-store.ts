// The state store: everything erpsync keeps between runs goes through this one interface — account
// leases, logins, the per-IP request budget, the journal, drift results over time, read-back
// memory and daily request counts. Two backends implement it: `local` (files under `.erpsync/` and
// a per-user runtime folder; the embedded default, nothing to install) and `postgres` (a PostgreSQL
// server named in the config, shared by every runner that names it). One contract suite
// (test/state/) runs against both, so a caller never asks which backend it has.
//
// What must stay true, whichever backend:
// - A lease is checked before every write (HeldLock.confirm); a holder that lost it sends nothing more.
// - A login's refresh is exclusive across every process sharing the store, and the new tokens are
//   committed before `rotate` returns them: a single-use refresh token is spent once.
// - What is read back is checked (type, size, integrity) before it is trusted; a value that fails
//   the check is reported or ignored, never used as it is.
// - Nothing here prints; nothing here holds a secret in clear outside memory (the postgres
//   backend encrypts logins at rest with a key from the environment).
import type { HeldLock } from '../api/lease-lock.js';
import type { CredentialSlot, DailyQuotaTarget, Governor, StoredCredentials } from '../api/index.js';
import type { DriftSnapshotRow } from '../model/drift.js';
import type { JournalLine, JournalListing, JournalRun } from '../model/journal.js';
import type { UnkeptField } from '../model/unkept-fields.js';

export type BackendName = 'local' | 'postgres';

export interface StateStore {
  readonly backend: BackendName;
  /** Where the state lives, for banners and `backend status`: never a password or key. */
  readonly location: string;
  readonly leases: LeaseStore;
  readonly logins: LoginStore;
  readonly ipBudget: IpBudgetStore;
  readonly journal: JournalStore;
  readonly driftResults: DriftResultStore;
  readonly readBack: ReadBackStore;
  readonly quota: QuotaStore;
  close(): Promise<void>;
}

/** One apply per account at a time, across every process that shares the store. */
export interface LeaseStore {
  acquire(request: LeaseRequest): Promise<HeldLock>;
}

export interface LeaseRequest {
  /** What the lease protects (an account), shown to whoever finds it held. */
  key: string;
  command: string;
  /** How long to wait for a held lease; 0 refuses at once (LOCKED). */
  timeoutMs: number;
  /** A holder renews every third of it; a silent holder loses the lease after it. */
  leaseMs?: number;
  /** How often a waiting acquire looks again (default 500 ms). */
  pollMs?: number;
}

/** Which login: the target's name and base URL (the postgres key), and the local backend's file. */
export interface LoginRef {
  target: string;
  baseUrl: string;
  /** The credentials file the local backend keeps it in. */
  file: string;
}

export interface LoginStore {
  /** The slot a credential provider reads and rotates (api/credentials). */
  slot(ref: LoginRef): CredentialSlot;
  /** `erpsync login`: stores a new login, replacing the one before. */
  write(ref: LoginRef, credentials: StoredCredentials): Promise<void>;
  /** How many logins the store holds, for `backend status` (undefined: the local backend cannot tell without the config's files). */
  count(): Promise<number | undefined>;
}

/** The per-IP windows (requests, errors, token calls), shared live by every process naming the egress. */
export interface IpBudgetStore {
  /** From now on the governor's windows count every process of this egress, and tell them of its own. */
  share(governor: Governor, egress: string): Promise<void>;
  /** A store closed: what the governor's windows hold now is written for the others; held slots go back. */
  handOn(governor: Governor): Promise<void>;
}

/** Where a run's journal lines go: the target's name, and the local backend's folder. */
export interface JournalLocation {
  target: string;
  /** The journal folder the local backend keeps the run's file in. */
  dir: string;
  /**
   * The working tree the folder belongs to (the config's folder, or the working folder): a
   * journal folder named inside it that resolves outside it (a symbolic link) is refused.
   */
  within: string;
}

/**
 * The journal. What a store keeps of each run beyond its lines — its hashes (local: in the run
 * index beside the journal folder; postgres: in the run's row) — lets `list` find a line changed,
 * removed, inserted or reordered since, and name it.
 */
export interface JournalStore {
  /** Opens a run for appending; each line is durable before `append` returns. */
  open(location: JournalLocation, run: string): Promise<JournalSink>;
  /** The runs at these locations (every location when the backend is shared and none is named), oldest first, damaged ones apart. */
  list(locations: readonly JournalLocation[], filter?: JournalFilter): Promise<JournalListing>;
  /**
   * Appends lines to a run `list` returned (the resolution of an unknown outcome), after the
   * lines it was read with; refused (JOURNAL_DAMAGED) when the run changed since it was read.
   * Resolves to the run's chain after them.
   */
  extend(location: JournalLocation, run: JournalRun, lines: readonly JournalAppend[]): Promise<RunChain>;
}

export type RunChain = NonNullable<JournalRun['chain']>;

export interface JournalFilter {
  /** Only this target's runs. */
  target?: string;
  /**
   * Only the target's newest run (with `target`): what an apply settles before it plans, as every
   * run before that one was settled by the apply that made it, before it began. The other runs are
   * not read.
   */
  latest?: boolean;
}

/** A line to store: the line, and its text as the writer masked it. */
export interface JournalAppend {
  line: JournalLine;
  text: string;
}

export interface JournalSink {
  /**
   * Durable before it returns (the line of an intent comes before the write it announces); the
   * text as stored, with the hash of the line before. A line that cannot be made durable (a full
   * disk) is not stored at all and throws FILE_UNWRITABLE naming the file.
   */
  append(line: JournalLine, text: string): string;
  /** Waits for every line to reach the store; resolves even when the store is gone (the lines stay local). */
  close(): Promise<void>;
}

/** A fleet drift's result, one per run, kept for the dashboard: each store's counts and its drifted records, fields and attribution. */
export interface DriftSnapshot {
  at: string;
  rows: DriftSnapshotRow[];
}

export interface DriftResultStore {
  record(snapshot: DriftSnapshot): Promise<void>;
  /** Snapshots taken since `since` (ISO), oldest first. */
  list(since: string): Promise<DriftSnapshot[]>;
}

/** What the read-back after apply saw on earlier runs, per account. */
export interface AccountReadBack {
  unkept: UnkeptField[];
  /** `kind path` pairs whose other form was noted already. */
  restated: string[];
}

export interface ReadBackStore {
  load(accountId: string): Promise<AccountReadBack>;
  save(accountId: string, memory: AccountReadBack): Promise<void>;
}

export interface QuotaLeft {
  left: number;
  limit: number;
  counted: number;
  spent: boolean;
  day: string;
}

/** What a repository sent each account per service day, and which account each target reaches. */
export interface QuotaStore {
  knownAccount(quota: DailyQuotaTarget, targetKey: string, now?: Date): Promise<string | undefined>;
  rememberAccount(quota: DailyQuotaTarget, targetKey: string, accountId: string, now?: Date): Promise<void>;
  left(quota: DailyQuotaTarget, accountId: string, sentThisRun: number, now?: Date): Promise<QuotaLeft>;
  record(quota: DailyQuotaTarget, accountId: string, sent: number, dailyQuotaMet: boolean, now?: Date): Promise<void>;
}
