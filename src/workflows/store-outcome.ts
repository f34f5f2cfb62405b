// What a store's run comes to: its exit code and its row in a fleet's table. Decided here once, so
// one store run alone and the same store in a fleet end the same way.
import { ErpsyncError, exitCodes, isErpsyncError } from '../model/errors.js';
import type { ExitCode } from '../model/errors.js';
import type { FleetRow } from '../model/fleet.js';
import { hasDrift } from '../model/drift.js';
import type { Plan } from '../model/plan.js';
import { actionableChanges, blockedChanges } from '../model/plan.js';
import type { AdoptOutcome } from './adopt-workflow.js';
import { brokeATarget } from './adopt-workflow.js';
import type { ApplyOutcome } from './apply-workflow.js';
import type { StoreResult } from './store-workflow.js';
import type { StoreSettings } from './store-settings.js';

/** The exit code of an apply that ran: 1 when anything failed, was interrupted, or did not take. */
export function exitCodeOfApply(outcome: ApplyOutcome): 0 | 1 {
  if (outcome.status === 'no-changes') return 0;
  if (outcome.status === 'declined') return 1;
  const { result, notConverged } = outcome;
  return result.failed > 0 || result.interrupted || notConverged.length > 0 ? 1 : 0;
}

/**
 * A plan with blocked changes cannot be applied whole: its apply sends the rest and exits 1 (the
 * caller names each blocked change), so a pipeline never takes it for done. Also the exit code of a
 * fleet store whose reviewed plan holds only blocked changes, which is not applied at all.
 */
export function exitCodeOfBlocked(plan: Pick<Plan, 'changes'>): 0 | 1 {
  return blockedChanges(plan).length > 0 ? 1 : 0;
}

/** drift --adopt: 0 when nothing is left, 2 when drift remains (not adoptable, or in a shared file), 1 when an edit broke a target. */
function exitCodeOfAdoption(result: Extract<StoreResult, { status: 'drift' }>, adoption: AdoptOutcome): ExitCode {
  if (adoption.failed) return adoption.failed.exitCode;
  if (brokeATarget(adoption)) return exitCodes.error;
  const left = result.report.findings.filter((f) => f.type !== 'modified').length + adoption.notAdopted.length + adoption.shared.length;
  return left > 0 ? exitCodes.changes : exitCodes.ok;
}

export function exitCodeOfStore(result: StoreResult, settings: Pick<StoreSettings, 'detailedExitCode'>): ExitCode {
  switch (result.status) {
    case 'invalid':
      return exitCodes.error;
    case 'planned':
      // A blocked change is one the manifests ask for and apply cannot make: it counts as a change.
      return settings.detailedExitCode && result.plan.changes.length > 0 ? exitCodes.changes : exitCodes.ok;
    case 'applied':
      return exitCodeOfApply(result.outcome) || exitCodeOfBlocked(result.plan);
    case 'drift':
      if (result.adoption) return exitCodeOfAdoption(result, result.adoption);
      return hasDrift(result.report) ? exitCodes.changes : exitCodes.ok;
  }
}

/** A fleet's row for a store that ran. */
export function rowOfStore(name: string, result: StoreResult, settings: Pick<StoreSettings, 'detailedExitCode'>, seconds: number): FleetRow {
  const account = result.opened?.account;
  const base = { target: name, ...(account ? { account } : {}), exitCode: exitCodeOfStore(result, settings), seconds };
  switch (result.status) {
    case 'invalid':
      return { ...base, changes: 0, error: `the manifests have errors: ${result.diagnostics.find((d) => d.severity === 'error')?.message ?? 'see above'}` };
    case 'planned':
      return { ...base, ...countsOf(result.plan) };
    case 'applied': {
      const counts = countsOf(result.plan);
      const outcome = result.outcome;
      if (outcome.status !== 'applied') return { ...base, ...counts, applied: 0, failed: 0, ...(outcome.status === 'declined' ? { error: 'declined' } : {}) };
      return { ...base, ...counts, applied: outcome.result.applied, failed: outcome.result.failed + outcome.notConverged.length };
    }
    case 'drift':
      return { ...base, changes: result.report.findings.length, ...(result.adoption?.failed ? { error: result.adoption.failed.message } : {}) };
  }
}

/** A plan's counts in a fleet's row: the changes apply sends, and the blocked ones it cannot. */
export function countsOf(plan: Pick<Plan, 'changes'>): Pick<FleetRow, 'changes' | 'blocked'> {
  return { changes: actionableChanges(plan).length, blocked: blockedChanges(plan).length };
}

/** A fleet's row for a store that stopped with an error; the others went on. */
export function rowOfFailure(name: string, error: unknown, seconds: number, account?: FleetRow['account']): FleetRow {
  const known = isErpsyncError(error) ? error : new ErpsyncError('INTERNAL', `internal error (a bug in erpsync): ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  return { target: name, ...(account ? { account } : {}), changes: 0, error: known.message, exitCode: known.exitCode, seconds };
}
