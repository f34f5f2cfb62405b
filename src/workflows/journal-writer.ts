// The journal writer: every apply appends one run to its target's journal (model/journal) through
// the state store's journal, which keeps each line durable before the run goes on (state/). It
// listens to the apply's own event stream and to the account reads the apply makes, and decides
// what each line says as it happens: the intent of each change before its request leaves (the
// intents of the changes a request carries with it), its outcome after, the read-back and the
// closing line. A run killed midway leaves the intent of every write it may have sent and no
// closing line; an intent it cannot record (a full disk) keeps that write from being sent and
// stops the apply; a later line it cannot record leaves that write's outcome unknown (settled
// later by reading the account) and fails the apply when it closes. It decides nothing about the
// run and prints nothing; secret values are left out by the field, then every value the run
// knows to be secret is masked over the line as a net.
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import type { ResolvedTarget } from '../api/index.js';
import { registry } from '../kinds/registry.js';
import type { AccountIdentity } from '../model/account.js';
import type { ApplyReportEvent, ChangeOutcome } from '../model/events.js';
import type { JournalActor, JournalChangeDescription, JournalEndLine, JournalLine, JournalOutcomeLine, JournalRecord, JournalRunLine } from '../model/journal.js';
import { journalFormatVersion } from '../model/journal.js';
import type { AccountReader, LiveRecord, LiveState } from '../model/live.js';
import type { UnitKind } from '../model/kinds.js';
import { readPath, removePath } from '../model/paths.js';
import type { Change, GitRevision, Plan, PlanOrigin } from '../model/plan.js';
import { maskValues } from '../model/secret-mask.js';
import type { JournalSink, JournalStore } from '../state/state-store.js';
import type { RunIO } from '../model/run-io.js';
import { journalLocationOf } from './journal-reader.js';

/** A run's id (and a fleet apply's): its start time, sortable, and a random suffix. */
export function newRunId(startedAt: Date): string {
  return `${startedAt.toISOString().replace(/[-:]/g, '').replace('.', '')}-${randomBytes(3).toString('hex')}`;
}

export interface JournalOpening {
  target: ResolvedTarget;
  account: AccountIdentity;
  source: JournalRunLine['source'];
  /** The revision of the checkout that applies (workflows/git-revision). */
  git: GitRevision | null;
  /** A saved plan's origin: the revision it was made at, its template store. */
  origin?: PlanOrigin;
  /** `--from-target` planned in this run: the template store. */
  template?: string;
  /** The fleet apply the run is one store of. */
  fleet?: string;
}

/** One run's journal: fed the apply's events and reads; the run is stored from the apply's start on. */
export interface JournalWriter {
  observe(event: ApplyReportEvent): void;
  /** An account read of this run: before the writes it is the state changes start from, after them the read-back. */
  noteRead(live: LiveState): void;
  /** The apply's reporter, journaling each event first (so it is on disk before anyone is told). */
  reportThrough(report: (event: ApplyReportEvent) => void): (event: ApplyReportEvent) => void;
  /** The apply's account reader, each read noted. */
  readThrough(read: AccountReader): AccountReader;
  /**
   * Closes the run (its closing line, if the writes ended) and waits for its lines to reach the
   * store; fails (FILE_UNWRITABLE, naming the file) when a line after a write could not be recorded.
   */
  close(): Promise<void>;
}

export async function startJournal(opening: JournalOpening, io: RunIO, journal: JournalStore): Promise<JournalWriter> {
  const startedAt = new Date();
  const template = opening.template ?? opening.origin?.template;
  const header: Omit<JournalRunLine, 'changes'> = {
    type: 'run',
    formatVersion: journalFormatVersion,
    run: newRunId(startedAt),
    startedAt: startedAt.toISOString(),
    erpsyncVersion: readErpsyncVersion(),
    source: opening.source,
    git: opening.git,
    ...(opening.origin ? { planGit: opening.origin.git } : {}),
    ...(template === undefined ? {} : { template }),
    target: { name: opening.target.name, id: opening.target.id, mode: opening.target.mode },
    account: { id: opening.account.id, nome: opening.account.nome, cnpj: opening.account.cnpj },
    actor: actorOf(io.env),
    ...(opening.fleet === undefined ? {} : { fleet: opening.fleet }),
  };
  const sink = await journal.open(journalLocationOf(opening.target, io.cwd), header.run);
  return createWriter(header, sink, io);
}

function createWriter(header: Omit<JournalRunLine, 'changes'>, sink: JournalSink, io: RunIO): JournalWriter {
  /** Lines are written from the apply's start (reads before it are the state changes start from) until the run closes. */
  let stage: 'before' | 'writing' | 'closed' = 'before';
  let plan: Plan | undefined;
  let before: ReadonlyMap<string, LiveRecord> = new Map();
  let counts: Omit<JournalEndLine, 'type' | 'at' | 'notConverged'> | undefined;
  let ended = false;
  /** The first line that could not be recorded after a write (its outcome stays unknown). */
  let lost: unknown;
  const announced = new Set<string>();
  const createdIds = new Map<string, number>();
  const appliedIds = new Set<string>();
  const secrets = new Set<string>();
  /**
   * Records a line. One that guards a write (the run line, an intent) throws when it cannot be
   * recorded, so the write is not sent; any other is noted as lost and the apply goes on to its
   * next intent, where the journal is tried again.
   */
  const write = (line: JournalLine, guardsWrite = false): void => {
    if (stage !== 'writing') return;
    const json = JSON.stringify(line);
    try {
      sink.append(line, maskValues(io.mask?.mask(json) ?? json, secrets));
    } catch (error) {
      if (guardsWrite) throw error;
      lost ??= error;
    }
  };
  const announce = (change: Change, at: string): void => {
    if (announced.has(change.id)) return;
    write({ type: 'intent', ...describeChange(change, before, at) }, true);
    announced.add(change.id);
  };
  const end = (notConverged: string[], notKept: string[] = []): void => {
    if (ended || !counts) return;
    ended = true;
    write({ type: 'end', at: new Date().toISOString(), ...counts, notConverged, ...(notKept.length > 0 ? { notKept } : {}) });
  };
  const writer: JournalWriter = {
    observe(event) {
      const at = new Date().toISOString();
      switch (event.type) {
        case 'plan':
          plan = event.plan;
          for (const change of plan.changes) for (const path of Object.keys(change.secrets ?? {})) secrets.add(String(readPath(change.desired, path.split('.')) ?? ''));
          return;
        case 'apply-start':
          stage = 'writing';
          write({ ...header, changes: event.changes }, true);
          return;
        case 'change-start':
          // A request that carries other changes announces them with its own.
          for (const change of [event.change, ...carriedBy(event.change, plan)]) announce(change, at);
          return;
        case 'change-end':
          if (event.outcome.status === 'applied') appliedIds.add(event.change.id);
          if (event.outcome.status === 'applied' && event.outcome.id !== undefined) createdIds.set(event.change.id, event.outcome.id);
          // A change that never started (skipped, blocked) is described with its outcome.
          if (!announced.has(event.change.id)) {
            write({ type: 'intent', ...describeChange(event.change, before, at) });
            announced.add(event.change.id);
          }
          return write(outcomeLine(event.change, event.outcome, at));
        case 'apply-end':
          counts = { applied: event.applied, failed: event.failed, skipped: event.skipped + event.blocked, interrupted: event.interrupted };
          // Nothing is read back after an interrupted run or one that changed nothing.
          if (event.interrupted || event.applied === 0) end([]);
          return;
        case 'verify-end':
          return end(event.notConverged, event.notKept);
        default:
          return;
      }
    },
    noteRead(live) {
      if (stage === 'before') {
        // A later read before the writes (the detail of a record to delete) adds to the first.
        before = new Map([...before, ...indexRecords(live)]);
        return;
      }
      const after = indexRecords(live);
      const at = new Date().toISOString();
      for (const change of plan?.changes ?? []) {
        const id = createdIds.get(change.id) ?? change.liveId;
        // A create carried in another's request (a service in its logistics' create) has no id of its own: found by identity, as apply checks it.
        const carried = id === undefined && change.action === 'create' && appliedIds.has(change.id) ? [...(live.records.get(change.kind) ?? [])].find((r) => r.identity === change.key) : undefined;
        const record = id === undefined ? carried : after.get(`${change.kind}:${id}`);
        if (record) write({ type: 'read-back', at, change: change.id, record: toJournalRecord(record) });
      }
    },
    reportThrough(report) {
      return (event) => {
        writer.observe(event);
        report(event);
      };
    },
    readThrough(read) {
      return async (request) => {
        const live = await read(request);
        writer.noteRead(live);
        return live;
      };
    },
    async close() {
      // The writes ended but the read-back did not (it failed): the run still closes.
      end([]);
      stage = 'closed';
      await sink.close();
      if (lost !== undefined) throw lost;
    },
  };
  return writer;
}

function indexRecords(live: LiveState): Map<string, LiveRecord> {
  const index = new Map<string, LiveRecord>();
  for (const [kind, records] of live.records) for (const record of records) index.set(`${kind}:${record.id}`, record);
  return index;
}

/** The changes a change's request carries with it (see Change.carries). */
function carriedBy(change: Change, plan: Plan | undefined): Change[] {
  return (change.carries ?? []).flatMap((id) => plan?.changes.find((c) => c.id === id) ?? []);
}

/** Outcomes as the journal words them: a failure whose effect is not known is `unknown`. */
function outcomeLine(change: Change, outcome: ChangeOutcome, at: string): JournalOutcomeLine {
  const line = { type: 'outcome' as const, at, change: change.id };
  if (outcome.status === 'applied') {
    const id = outcome.id ?? change.liveId;
    return { ...line, outcome: 'applied', ...(id === undefined ? {} : { id }) };
  }
  if (outcome.status === 'failed') return { ...line, outcome: outcome.code === 'API_OUTCOME_UNKNOWN' ? 'unknown' : 'failed', detail: outcome.error };
  return { ...line, outcome: 'skipped', detail: outcome.because };
}

/** A change as the plan has it, with the record as read before the run. */
function describeChange(change: Change, before: ReadonlyMap<string, LiveRecord>, at: string): JournalChangeDescription {
  const read = change.liveId === undefined ? undefined : before.get(`${change.kind}:${change.liveId}`);
  return {
    at,
    change: change.id,
    action: change.action,
    reason: change.reason,
    kind: change.kind,
    key: change.key,
    ...(change.liveId === undefined ? {} : { liveId: change.liveId }),
    fields: change.fields.map((f) => (f.sensitive ? { path: f.path, before: undefined, after: undefined, sensitive: true } : f)),
    ...(read ? { before: toJournalRecord(read, change.action === 'delete' ? before : undefined) } : {}),
    ...(change.desired && change.removal === 'none' ? { written: withoutSecrets(change.kind, change.desired, Object.keys(change.secrets ?? {})) } : {}),
  };
}

/**
 * A record as the journal keeps it. A deleted one keeps the records nested in it too (a
 * logistics' services, which go with it), in its nested field, so that a revert creates them again.
 */
function toJournalRecord(record: LiveRecord, read?: ReadonlyMap<string, LiveRecord>): JournalRecord {
  let fields = withoutSecrets(record.kind, record.fields);
  for (const nested of read ? registry.units.filter((unit) => unit.nestedIn === record.kind && unit.nestedField) : []) {
    const children = [...(read?.values() ?? [])].filter((child) => child.kind === nested.kind && child.parent === record.identity);
    if (children.length > 0) fields = { ...fields, [nested.nestedField as string]: children.map((child) => withoutSecrets(child.kind, child.fields)) };
  }
  return { id: record.id, identity: record.identity, name: record.name, ...(record.parent === undefined ? {} : { parent: record.parent }), fields };
}

/**
 * The record without its kind's secret fields (and the change's own secret paths). One left empty
 * holds no secret and stays, so that a revert can empty it again.
 */
function withoutSecrets(kind: UnitKind, fields: Record<string, unknown>, paths: readonly string[] = []): Record<string, unknown> {
  let result = fields;
  for (const path of [...(registry.unit(kind)?.definition?.secretFields ?? []), ...paths.map((p) => p.split('.'))]) {
    if (readPath(result, path) !== '') result = removePath(result, path);
  }
  return result;
}

function readErpsyncVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/**
 * Who runs this: a CI job by its URL (GitHub Actions, GitLab, any CI that sets BUILD_URL), else the
 * local user; the person by GITHUB_ACTOR, else GITLAB_USER_LOGIN, else the OS user. A uid without
 * a passwd entry (containers) has no name: os.userInfo throws then.
 */
export function actorOf(env: NodeJS.ProcessEnv): JournalActor {
  const login = env.GITHUB_ACTOR || env.GITLAB_USER_LOGIN || env.USER || env.LOGNAME || env.USERNAME || localUserName();
  const user = login ? { user: login } : {};
  if (env.GITHUB_RUN_ID && env.GITHUB_REPOSITORY) return { type: 'ci', url: `${env.GITHUB_SERVER_URL ?? 'https://github.com'}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`, ...user };
  if (env.CI_JOB_URL) return { type: 'ci', url: env.CI_JOB_URL, ...user };
  if (env.BUILD_URL) return { type: 'ci', url: env.BUILD_URL, ...user };
  return { type: 'user', ...user, host: hostname() };
}

function localUserName(): string | undefined {
  try {
    return userInfo().username;
  } catch {
    return process.getuid ? `uid ${process.getuid()}` : undefined;
  }
}
