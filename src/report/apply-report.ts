// Reporters of `erpsync apply` that are not the terminal UI: plain lines (no terminal, or CI) and
// NDJSON (`--json`, one object per event). Both take the same event stream as the UI: the
// plan, the ApplyEvents of the core, the re-read after it, or a refusal at the prompt. They never
// emit escape codes and hold no state beyond the running tally; where the lines go is the caller's.
import { renderPlanText } from './render-plan.js';
import { advanceProgress, createProgress, describeCost, describeOutcome, interruptedNote, summarizeApply } from './apply-progress.js';
import type { KindAdapter } from '../kinds/kind.js';
import { describeAccount } from '../model/account.js';
import { printable } from '../model/printable.js';
import type { Change, Plan } from '../model/plan.js';
import { blockedChanges, isActionable, removesRecord } from '../model/plan.js';
import type { ApplyReportEvent } from '../model/events.js';

export interface ApplyReporter {
  report(event: ApplyReportEvent): void;
}

/** Field diffs shown per change before folding, in apply's plan output. */
export const applyFieldFold = 20;

export const cancelledNote = 'Apply cancelled; nothing was changed.';

export interface Confirmation {
  question: string;
  /** What the person must type. */
  expected: string;
}

/** A plan that deletes asks for the number of deletes, so nobody waves a deletion through by habit. */
/** The question names the account and the target: the person confirms where, not only what. */
export function confirmationFor(plan: Plan): Confirmation {
  const removals = plan.changes.filter(removesRecord).length;
  const where = `${describeAccount(plan.target.account)}, target ${plan.target.name}`;
  if (removals > 0) return { question: `This deletes or retires ${removals} record(s) in ${where}. Type ${removals} to apply:`, expected: String(removals) };
  return { question: `Apply these changes to ${where}? Type yes to apply:`, expected: 'yes' };
}

/** A fleet apply asks once for every store it shows: the number of removals across the fleet, or yes. */
export function confirmationForFleet(plans: readonly Plan[]): Confirmation {
  const stores = plans.filter((p) => p.changes.some(isActionable)).length;
  const removals = plans.reduce((n, p) => n + p.changes.filter(removesRecord).length, 0);
  if (removals > 0) return { question: `This deletes or retires ${removals} record(s) across ${stores} store(s). Type ${removals} to apply:`, expected: String(removals) };
  return { question: `Apply these changes to ${stores} store(s)? Type yes to apply:`, expected: 'yes' };
}

/**
 * Why an apply whose plan holds blocked changes exits 1: the count, then each blocked change by
 * kind and identity with the plan's reason (its note). Empty when the plan holds none.
 */
export function renderBlockedChanges(plan: Pick<Plan, 'changes'>, store?: string): string[] {
  const blocked = blockedChanges(plan);
  if (blocked.length === 0) return [];
  const where = store === undefined ? '' : ` in ${printable(store)}`;
  return [
    `error: ${blocked.length} blocked change(s)${where} cannot be applied (exit 1); change the manifests (or the account) so the plan holds none:`,
    ...blocked.map((change) => `  ${change.kind} "${printable(change.key)}": ${printable(change.note ?? change.reason)}`),
  ];
}

export function acceptsAnswer(confirmation: Confirmation, answer: string): boolean {
  return answer.trim().toLowerCase() === confirmation.expected;
}

export interface PlainReporterOptions {
  write: (line: string) => void;
  adapters: readonly KindAdapter[];
  now: () => number;
}

export function createPlainApplyReporter(options: PlainReporterOptions): ApplyReporter {
  const { write, now } = options;
  let progress = createProgress();
  return {
    report(event) {
      switch (event.type) {
        case 'plan':
          for (const line of renderPlanText(event.plan, { adapters: options.adapters, maxFieldsPerChange: applyFieldFold })) write(line);
          return;
        case 'cancelled':
          write(cancelledNote);
          return;
        case 'verify-start':
          return;
        case 'verify-end':
          for (const line of event.notes ?? []) write(`  note: ${printable(line)}`);
          for (const line of event.notConverged) write(`  not converged: ${printable(line)}`);
          return;
      }
      progress = advanceProgress(progress, event, now());
      switch (event.type) {
        case 'apply-start':
          write('');
          write(`Applying ${event.changes} change(s) in ${event.waves} wave(s)…`);
          return;
        case 'wave-start':
          write(`Wave ${event.wave}: ${event.changes} change(s)`);
          return;
        case 'change-start':
          return;
        case 'change-end':
          write(`  ${describeOutcome(event.change, event.outcome)}`);
          return;
        case 'apply-end':
          write('');
          write(summarizeApply(event));
          write(`  ${describeCost(progress, now())}`);
          if (event.interrupted) write(interruptedNote);
          return;
      }
    },
  };
}

export interface JsonReporterOptions {
  write: (line: string) => void;
  now: () => number;
}

/** One JSON object per line; each carries `elapsedMs` since the reporter was made. */
export function createJsonApplyReporter(options: JsonReporterOptions): ApplyReporter {
  const startedAt = options.now();
  return {
    report(event) {
      const elapsedMs = Math.round(options.now() - startedAt);
      options.write(JSON.stringify({ ...toJsonEvent(event), elapsedMs }));
    },
  };
}

function referTo(change: Change): Record<string, unknown> {
  return { id: change.id, kind: change.kind, key: change.key, action: change.action, wave: change.wave, ...(change.liveId !== undefined ? { liveId: change.liveId } : {}) };
}

/** Events as JSON: changes by reference (field names, never values: they may be secret). */
function toJsonEvent(event: ApplyReportEvent): Record<string, unknown> {
  switch (event.type) {
    case 'plan': {
      const { plan } = event;
      const count = (test: (c: Change) => boolean) => plan.changes.filter(test).length;
      return {
        type: 'plan',
        target: plan.target,
        summary: {
          create: count((c) => c.action === 'create'),
          change: count((c) => c.action === 'update' || c.action === 'set-status' || c.action === 'set-default'),
          remove: count(removesRecord),
          blocked: count((c) => c.action === 'blocked'),
        },
        changes: plan.changes.map((c) => ({ ...referTo(c), reason: c.reason, fields: c.fields.map((f) => f.path), ...(c.note ? { note: c.note } : {}) })),
        budget: plan.budget,
        warnings: plan.warnings,
        cost: plan.cost,
      };
    }
    case 'change-start':
      return { type: event.type, change: referTo(event.change) };
    case 'change-end':
      return { type: event.type, change: referTo(event.change), outcome: event.outcome, requests: event.requests };
    default:
      return { ...event };
  }
}
