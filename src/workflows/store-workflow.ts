// The per-store workflow: the one place that sequences a run on one account — load the manifests
// (or take a saved plan), open the target and name its account, read it, plan, review, apply under
// the account's lock, verify; or, for drift, read, compare and adopt. A single target, a saved plan
// and every store of a fleet all run this function with the same StoreSettings; a fleet only loops
// over it. It prints nothing: what it found comes back as a StoreResult, and the steps that show or
// ask (the banner, the review, progress) are the caller's StoreSession.
import type { ResolvedTarget } from '../api/index.js';
import { findDrift } from '../drift/find-drift.js';
import { loadBaseline } from '../drift/load-baseline.js';
import type { Baseline } from '../drift/load-baseline.js';
import { registry } from '../kinds/registry.js';
import { fetchLive } from '../live/fetch-live.js';
import type { Diagnostic } from '../model/diagnostics.js';
import { ErpsyncError } from '../model/errors.js';
import { hasErrors } from '../model/diagnostics.js';
import type { DriftReport } from '../model/drift.js';
import type { ApplyReportEvent } from '../model/events.js';
import type { Plan } from '../model/plan.js';
import type { JournalRun } from '../model/journal.js';
import type { HeldLock } from '../api/lease-lock.js';
import { lockAccount, lockKeyOf } from '../target/account-lock.js';
import type { AdoptOutcome } from './adopt-workflow.js';
import { adoptDrift } from './adopt-workflow.js';
import type { ApplyOutcome } from './apply-workflow.js';
import { runApplyWorkflow } from './apply-workflow.js';
import type { FileReaders } from './file-readers.js';
import { attributeFromJournal, damagedRunWarnings, journalLocationOf } from './journal-reader.js';
import { startJournal } from './journal-writer.js';
import { settleUnknownOutcomes } from './settle-outcomes.js';
import type { RevertSource } from './revert-plan.js';
import { planRevert } from './revert-plan.js';
import type { OpenedTarget } from '../target/open-target.js';
import { openResolvedTarget, readVariableScope } from '../target/open-target.js';
import { loadDesired, manifestPathsOf, planTargetOf, readAndFindDrift, readAndPlan, requireSelectionMatches } from './read-and-plan.js';
import type { RevisionReader } from './git-revision.js';
import { revisionReader } from './git-revision.js';
import { originPathsOf } from './saved-plans.js';
import { recallReadBack, unkeptFields } from './read-back-memory.js';
import { warnWhenUnwritten } from '../target/run-state.js';
import type { RunIO } from '../model/run-io.js';
import type { StoreSettings } from './store-settings.js';
import type { DesiredState } from '../model/desired.js';
import type { TemplateSource } from './store-as-manifests.js';
import { loadTemplate } from './store-as-manifests.js';

export type StoreCommand = 'plan' | 'apply' | 'drift';

/** `template`: another store, read and exported in memory as manifests (`--from-target`). */
export type StoreSource = { type: 'manifests'; paths: readonly string[] } | TemplateSource | { type: 'saved-plan'; plan: Plan } | RevertSource;

export interface StoreJob {
  command: StoreCommand;
  target: ResolvedTarget;
  source: StoreSource;
  settings: StoreSettings;
  /** drift --adopt: who else reads the files it would write. */
  readers?: FileReaders;
  /** The run's git revisions, shared by a fleet's stores; absent: this store reads its own. */
  revisions?: RevisionReader;
  /** The fleet apply this store's run is part of (the journal records it). */
  fleet?: string;
}

/** The caller's side of one store's run: shows, asks and reports. Started once the account is named. */
export interface StoreSession {
  /** Every apply event (the plan first); plan and drift send none. */
  report(event: ApplyReportEvent): void;
  /** Asked once, only when the plan has something to apply within its budget. */
  confirm(plan: Plan): Promise<boolean>;
  /** Aborted to stop starting changes (Ctrl-C confirmed). */
  stop: AbortSignal;
  /** Awaited before each change and request starts (paused while a question shows). */
  hold?: () => Promise<void>;
  close(): Promise<void>;
}

export type StartSession = (store: OpenedTarget) => StoreSession;

interface StoreFacts {
  target: ResolvedTarget;
  opened?: OpenedTarget;
  /** Warnings and notes; errors only with status `invalid`. */
  diagnostics: Diagnostic[];
}

export type StoreResult = StoreFacts &
  (
    | { status: 'invalid' }
    | { status: 'planned'; plan: Plan }
    | { status: 'applied'; plan: Plan; outcome: ApplyOutcome }
    | { status: 'drift'; report: DriftReport; adoption?: AdoptOutcome }
  );

/** A session that shows nothing and approves nothing on its own: for runs that never apply. */
export const quietSession: StartSession = () => ({ report: () => undefined, confirm: async () => false, stop: new AbortController().signal, close: async () => undefined });

export async function runStore(job: StoreJob, io: RunIO, startSession: StartSession): Promise<StoreResult> {
  const loaded =
    job.source.type === 'manifests' ? await loadDesired(job.source.paths, io, job.target) : job.source.type === 'template' ? await loadTemplate(job.source, job.target, io) : undefined;
  if (loaded && !loaded.desired) return { target: job.target, status: 'invalid', diagnostics: loaded.diagnostics };
  let lock: HeldLock | undefined;
  // Ctrl-C stops apply from starting changes while requests in flight finish (a second Ctrl-C
  // exits at once), so an apply's client does not share the interrupt signal. Every write of an
  // apply first confirms that this run still holds the account's lock.
  // A confirmation holds for a quarter of the lease (a taker needs the whole lease to pass): a write
  // that has not reached its socket by then, because the process was paused, is confirmed again.
  const fence = {
    beforeSend: async (req: { method: string }): Promise<number | undefined> => {
      if (req.method === 'GET' || lock === undefined) return undefined;
      await lock.confirm();
      return lock.record.leaseMs / 4;
    },
  };
  const opened = await openResolvedTarget(job.target, { debug: job.settings.debug }, io, job.command === 'apply' ? { client: { signal: new AbortController().signal, ...fence } } : {});
  const facts: StoreFacts = { target: job.target, opened, diagnostics: loaded?.diagnostics ?? [] };
  let session: StoreSession | undefined;
  try {
    session = startSession(opened);
    if (job.command === 'drift') return await driftStore(job, loaded?.desired, opened, facts, io);
    if (job.command === 'apply') {
      const apply = job.settings.apply;
      lock = await lockAccount(opened.state.leases, io, { key: lockKeyOf(opened), timeoutMs: apply.lockTimeoutMs, inFlightMs: apply.outcomeWindowMs });
    }
    return await planAndApply(job, loaded?.desired, opened, facts, session, io);
  } finally {
    await session?.close();
    await lock?.release();
    await opened.close();
  }
}

async function planAndApply(job: StoreJob, desired: DesiredState | undefined, opened: OpenedTarget, facts: StoreFacts, session: StoreSession, io: RunIO): Promise<StoreResult> {
  let plan: Plan;
  let live;
  // What the read-back saw on earlier runs on this account: fields not kept are not sent again.
  const accountId = planTargetOf(opened).account.id;
  const readBack = opened.state.readBack;
  const memory = await readBack.load(accountId);
  // Under its lease, before it changes anything, an apply settles what the run before it left unknown: later, a record found could be anyone's.
  if (job.command === 'apply') facts.diagnostics = [...facts.diagnostics, ...(await settleEarlierRuns(opened, job.settings.apply.outcomeWindowMs, io))];
  if (job.source.type === 'saved-plan') plan = job.source.plan;
  else if (job.source.type === 'revert') {
    const location = journalLocationOf(opened.target, io.cwd);
    const settled = await settleUnknownOutcomes([job.source.run], opened, io, { leased: job.command === 'apply', inFlightMs: job.settings.apply.outcomeWindowMs, locations: [location] });
    facts.diagnostics = [...facts.diagnostics, ...settled.notes.map(unsettledWarning), ...unanchoredWarning(job.source.run)];
    const revert = await planRevert({ ...job.source, run: settled.runs[0] ?? job.source.run }, opened, job.settings.plan, io);
    ({ plan, live } = revert);
    facts.diagnostics = [...facts.diagnostics, ...revert.diagnostics];
  } else {
    if (!desired) throw new ErpsyncError('INTERNAL', 'a run from manifests without manifests');
    const read = await readAndPlan(opened, desired, job.settings.plan, unkeptFields(memory));
    live = read.live;
    const result = read.result;
    facts.diagnostics = [...facts.diagnostics, ...result.diagnostics];
    if (hasErrors(result.diagnostics)) return { ...facts, status: 'invalid' };
    requireSelectionMatches(job.settings.plan.selection, result.matching);
    plan = result.plan;
  }
  if (job.command === 'plan') return { ...facts, status: 'planned', plan };
  // Every apply appends to its target's journal, fed by the apply's own events and reads.
  const journal = await startJournal(
    {
      target: job.target,
      account: opened.account,
      source: job.source.type === 'manifests' ? 'manifests' : 'saved-plan',
      git: await (job.revisions ?? revisionReader(io.cwd))(checkoutPathsOf(job.source, plan, job.target)),
      ...(job.source.type === 'saved-plan' && plan.origin ? { origin: plan.origin } : {}),
      ...(job.source.type === 'template' ? { template: job.source.from.name } : {}),
      ...(job.fleet === undefined ? {} : { fleet: job.fleet }),
    },
    io,
    opened.state.journal,
  );
  if (live) journal.noteRead(live);
  const applying = runApplyWorkflow(plan, {
    client: session.hold ? holdRequests(opened, session.hold) : opened.client,
    target: planTargetOf(opened),
    adapters: registry.units,
    readAccount: journal.readThrough((request) => fetchLive(opened.client, registry.units, request)),
    ...(live ? { live } : {}),
    confirm: (p) => session.confirm(p),
    report: journal.reportThrough((event) => session.report(event)),
    signal: AbortSignal.any([io.signal, session.stop]),
    ...(session.hold ? { hold: session.hold } : {}),
    concurrency: job.settings.apply.concurrency,
    outcomeWindowMs: job.settings.apply.outcomeWindowMs,
    recallReadBack: async (check) => {
      const { changed, ...recalled } = recallReadBack(memory, check);
      if (changed) await readBack.save(accountId, memory).catch(warnWhenUnwritten(io, 'what the read-back saw'));
      return recalled;
    },
    ...(opened.dailyQuota ? { quota: opened.dailyQuota } : {}),
  });
  // The apply's own failure is the one to tell; a line lost after the writes fails the run when it closes.
  const outcome = await applying.catch(async (error: unknown) => {
    await journal.close().catch(() => undefined);
    throw error;
  });
  await journal.close();
  return { ...facts, status: 'applied', plan, outcome };
}

/** A revert of a run nothing here vouches for: its lines chain, but it may not be what its run wrote. */
function unanchoredWarning(run: JournalRun): Diagnostic[] {
  if (run.trust === 'verified') return [];
  return [{ severity: 'warning', code: 'journal-unanchored', message: `run ${run.header.run} is unanchored here (written on another machine, or before erpsync kept hashes): its lines chain, but nothing here proves they are the ones its run wrote; review every step of the revert` }];
}

function unsettledWarning(note: string): Diagnostic {
  return { severity: 'warning', code: 'journal-unsettled', message: note };
}

/**
 * Settles the unknown outcomes of this target's last run on this account (the apply holds its
 * lease): each run before it was settled by the apply that made it, before it began. What could
 * not be settled, and that run when it is damaged, come back as warnings.
 */
async function settleEarlierRuns(opened: OpenedTarget, outcomeWindowMs: number, io: RunIO): Promise<Diagnostic[]> {
  const location = journalLocationOf(opened.target, io.cwd);
  const { runs, damaged } = await opened.state.journal.list([location], { target: opened.target.name, latest: true });
  const { notes } = await settleUnknownOutcomes(runs, opened, io, { leased: true, inFlightMs: outcomeWindowMs, locations: [location] });
  return [...damagedRunWarnings(damaged), ...notes.map(unsettledWarning)];
}

/** Whose git revision an apply journals: the manifests it read, or a saved plan's (else the target's), else the working folder. */
function checkoutPathsOf(source: StoreSource, plan: Plan, target: ResolvedTarget): readonly string[] {
  if (source.type === 'manifests') return manifestPathsOf(source.paths, target).paths;
  if (source.type === 'saved-plan') return originPathsOf(plan, target);
  return ['.'];
}

/** The client apply writes through: no request leaves while a question shows. */
function holdRequests(opened: OpenedTarget, hold: () => Promise<void>): OpenedTarget['client'] {
  const client = opened.client;
  return {
    ...client,
    request: async <T,>(req: Parameters<typeof client.request>[0]) => {
      await hold();
      return client.request<T>(req);
    },
  };
}

/** The target's manifests at the baseline revision, loaded as its run loads them now: its layers, its variables. */
async function loadTargetBaseline(ref: string, paths: readonly string[], target: ResolvedTarget, io: RunIO): Promise<Baseline> {
  const scope = await readVariableScope(target, io);
  return loadBaseline(ref, manifestPathsOf(paths, target), { cwd: io.cwd, env: scope.env, ...(scope.declared ? { variables: scope.declared } : {}) });
}

async function driftStore(job: StoreJob, desired: DesiredState | undefined, opened: OpenedTarget, facts: StoreFacts, io: RunIO): Promise<StoreResult> {
  if (!desired || job.source.type !== 'manifests') throw new ErpsyncError('INTERNAL', 'drift runs from manifests');
  const drift = job.settings.drift;
  const baseline = drift.baseline ? await loadTargetBaseline(drift.baseline, job.source.paths, job.target, io) : undefined;
  const { live, result: found } = await readAndFindDrift(opened, desired, (read) =>
    findDrift({
      desired,
      live: read,
      adapters: registry.units,
      target: planTargetOf(opened),
      includeBuiltin: drift.includeBuiltin,
      today: job.settings.plan.today,
      ...(job.settings.plan.selection ? { selection: job.settings.plan.selection } : {}),
      ...(baseline ? { baseline } : {}),
    }),
  );
  facts.diagnostics = [...facts.diagnostics, ...found.diagnostics.filter((d) => d.severity !== 'note')];
  if (hasErrors(found.diagnostics)) return { ...facts, status: 'invalid' };
  requireSelectionMatches(job.settings.plan.selection, found.matching);
  const { report, warnings } = await attributeFromJournal(found.report, opened, io, opened.state.journal);
  facts.diagnostics = [...facts.diagnostics, ...warnings];
  if (!drift.adopt) return { ...facts, status: 'drift', report };
  if (!job.readers) throw new ErpsyncError('INTERNAL', 'drift --adopt needs to know who reads the manifest files');
  const adoption = await adoptDrift({ report: found.report, desired, live, adapters: registry.units }, io, { target: job.target.name, readers: job.readers });
  return { ...facts, status: 'drift', report, adoption };
}
