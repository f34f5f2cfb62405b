// The apply workflow: a plan in, the account changed out. It owns every check between the two,
// in this order: the plan's target and account against the ones this run opened (refused before
// anything is read or written when they differ), a saved plan's preconditions re-read and re-checked (refused when anything it
// relies on changed), the delete budget as the plan decided it (refused when exceeded), the
// account's daily quota (refused when what is left cannot carry the plan's requests), the
// confirmation (injected: a prompt, the terminal UI, or --auto-approve), the detail of each record it
// deletes whose list lacks fields (read for the journal, so a revert can create it again), the writes, and the
// re-read that tells whether what was written took. It decides nothing the plan decided and
// prints nothing: events go to the injected reporter; the CLI only wires arguments to it.
import type { ApiClient } from '../api/client.js';
import type { KindAdapter } from '../kinds/kind.js';
import { describeAccount } from '../model/account.js';
import { ErpsyncError } from '../model/errors.js';
import type { ApplyReportEvent, ApplyResult } from '../model/events.js';
import type { AccountReader, LiveState } from '../model/live.js';
import type { Plan, PlanTarget } from '../model/plan.js';
import { actionableChanges, needsReadBack } from '../model/plan.js';
import { applyPlan } from '../apply/apply-plan.js';
import { findStalePreconditions } from '../apply/check-stale.js';
import type { ReadBackCheck } from '../apply/check-convergence.js';
import { checkReadBack, describeReadBack } from '../apply/check-convergence.js';
import { recheckRequest, removalsRequest, verifyRequest } from '../apply/read-requests.js';
import type { AccountQuota } from '../target/daily-quota.js';
import { requireQuotaFor } from '../target/daily-quota.js';

export interface ApplyWorkflowOptions {
  client: ApiClient;
  /** Where this run is connected, with the account it named: a plan for another one is refused. */
  target: PlanTarget;
  adapters: readonly KindAdapter[];
  readAccount: AccountReader;
  /** The account as read for a plan made in this run; absent for a saved plan (it is re-read). */
  live?: LiveState;
  /** Asked once, only when there is something to apply and the budget allows it. */
  confirm: (plan: Plan) => Promise<boolean>;
  report: (event: ApplyReportEvent) => void;
  /** Stops dispatching new changes (Ctrl-C); requests in flight finish. */
  signal: AbortSignal;
  /** Awaited before each change starts (paused while the Ctrl-C question shows). */
  hold?: () => Promise<void>;
  concurrency: number;
  /** How long a create of unknown outcome may still commit (see applyPlan). */
  outcomeWindowMs?: number;
  /**
   * Words the read-back's findings in the light of earlier runs (workflows/read-back-memory): a
   * field not kept again is one the service does not keep, a form already noted is not noted
   * again. Absent: as this run alone saw them.
   */
  recallReadBack?: (check: ReadBackCheck) => Promise<{ notConverged: string[]; notes: string[] }>;
  /** What is left of the account's daily quota: a plan that needs more is refused before its first write. Absent: a sandbox. */
  quota?: AccountQuota;
}

export type ApplyOutcome =
  | { status: 'no-changes' }
  | { status: 'declined' }
  | { status: 'applied'; result: ApplyResult; notConverged: string[] };

export async function runApplyWorkflow(plan: Plan, options: ApplyWorkflowOptions): Promise<ApplyOutcome> {
  checkPlanTarget(plan.target, options.target);
  const live = options.live ?? (await recheckSavedPlan(plan, options));
  options.report({ type: 'plan', plan });
  if (actionableChanges(plan).length === 0) return { status: 'no-changes' };
  if (plan.budget.exceeded) {
    throw new ErpsyncError('DELETE_BUDGET', `the plan deletes or retires ${plan.budget.removals} records, more than the budget of ${plan.budget.limit}`, {
      details: [plan.budget.source === 'flag' ? 'plan again with a larger --max-deletes if that is intended' : 'raise policy.maxDeletes, or plan again with --max-deletes, if that is intended'],
    });
  }
  if (options.quota) requireQuotaFor(plan, await options.quota.left());
  if (options.signal.aborted) throw new ErpsyncError('INTERRUPTED', 'interrupted before applying; nothing was changed');
  if (!(await options.confirm(plan))) {
    options.report({ type: 'cancelled' });
    return { status: 'declined' };
  }
  // Read for the journal (through options.readAccount), which keeps what a revert creates again.
  const deleted = removalsRequest(plan, options.adapters, live);
  if (deleted) await options.readAccount(deleted);
  const result = await applyPlan(plan, {
    client: options.client,
    adapters: options.adapters,
    live,
    concurrency: Math.max(1, options.concurrency),
    signal: options.signal,
    ...(options.hold ? { hold: options.hold } : {}),
    onEvent: options.report,
    ...(options.outcomeWindowMs === undefined ? {} : { outcomeWindowMs: options.outcomeWindowMs }),
  });
  stopIfRunStopped(result);
  let notConverged: string[] = [];
  if (!result.interrupted && result.applied > 0) {
    options.report({ type: 'verify-start' });
    // Every applied write but deletes (whose answer is the proof) is read back; nothing, when none is.
    const readBack = result.outcomes.some((o) => o.outcome.status === 'applied' && needsReadBack(o.change));
    let notes: string[] = [];
    let notKept: string[] = [];
    if (readBack) {
      const ids = new Map(result.outcomes.map(({ change, outcome }) => [change.id, outcome.status === 'applied' ? (outcome.id ?? change.liveId) : undefined]));
      const check = checkReadBack(result, await options.readAccount(verifyRequest(plan, options.adapters, live, (change) => ids.get(change.id))), options.adapters);
      ({ notConverged, notes } = options.recallReadBack ? await options.recallReadBack(check) : describeReadBack(check));
      notKept = check.notKept;
    }
    options.report({ type: 'verify-end', notConverged, ...(notKept.length > 0 ? { notKept } : {}), ...(notes.length > 0 ? { notes } : {}) });
  }
  return { status: 'applied', result, notConverged };
}

/**
 * A plan applies only where it was made: the same target (base URL or sandbox state) and the same
 * account, which the base URL alone does not tell (many stores share the API's URL).
 */
export function checkPlanTarget(planned: PlanTarget, current: PlanTarget): void {
  if (planned.id !== current.id) {
    throw new ErpsyncError('PLAN_STALE', `the plan was made for ${planned.id}, not for ${current.id}`, { details: ['plan again against this target'] });
  }
  if (planned.account.id !== current.account.id) {
    throw new ErpsyncError('ACCOUNT_MISMATCH', `the plan was made on the account ${describeAccount(planned.account)}, but these credentials reach ${describeAccount(current.account)}; nothing was changed`, {
      details: [`account ids: planned ${planned.account.id}, reached ${current.account.id}`, 'plan again against this account, or use the credentials of the account the plan was made on'],
    });
  }
}

/** Re-reads what a saved plan relies on; refuses when any of it changed since the plan was made. */
async function recheckSavedPlan(plan: Plan, options: ApplyWorkflowOptions): Promise<LiveState> {
  const live = await options.readAccount(recheckRequest(plan, options.adapters));
  const stale = findStalePreconditions(plan, live);
  if (stale.length > 0) throw new ErpsyncError('PLAN_STALE', 'the account changed since the plan was made; plan again', { details: stale });
  return live;
}

/** Why a run stopped writing, and what to do next: the codes after which no change may start. */
const stopAdvice = {
  LOCK_LOST: 'another run may be changing the account now: plan again once it is done',
  BACKEND_LOST: 'the journal lines of what was sent are in the local journal file and reach the backend with the next run; plan again once the backend answers',
  DAILY_QUOTA: 'plan and apply again once the quota renews: the plan then holds only what is left',
  FILE_UNWRITABLE: 'every write that was sent has its intent in the journal; make room and apply again (it settles what the journal left unknown first)',
  API_UNREACHABLE: 'apply again once the service answers: it settles first what this run left unknown',
} as const;

function isStopCode(code: string | undefined): code is keyof typeof stopAdvice {
  return code !== undefined && Object.hasOwn(stopAdvice, code);
}

/**
 * A run whose lock another run took over, whose backend was lost (the lease can no longer be
 * confirmed), whose account's daily quota ran out, whose journal could not record the next
 * write's intent (a full disk), or whose service could not be reached, stopped writing at that write: it is refused
 * with what it had sent, so nobody mistakes its partial work for a finished apply.
 */
function stopIfRunStopped(result: ApplyResult): void {
  const stopped = result.outcomes.find((o) => o.outcome.status === 'failed' && isStopCode(o.outcome.code));
  if (!stopped || stopped.outcome.status !== 'failed' || !isStopCode(stopped.outcome.code)) return;
  const code = stopped.outcome.code;
  const sent = result.outcomes.filter((o) => o.outcome.status === 'applied').map((o) => `  ${o.change.action} ${o.change.kind} ${o.change.key}`);
  const unsent = result.outcomes.filter((o) => o.outcome.status !== 'applied').length;
  throw new ErpsyncError(code, stopped.outcome.error, {
    details: [sent.length === 0 ? 'no change had been sent' : `sent before it stopped (${sent.length}):`, ...sent, `not sent: ${unsent} change${unsent === 1 ? '' : 's'}`, stopAdvice[code]],
  });
}
