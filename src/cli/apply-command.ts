// `erpsync apply [manifests… | plan.json]`: plans (or reads a saved plan), asks, applies wave by
// wave, then re-reads the account to check that what was written took.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { applyPlan } from '../apply/apply-plan.js';
import { findNonConvergent } from '../apply/check-convergence.js';
import type { ApplyEvent, ApplyResult } from '../apply/apply-plan.js';
import { kindAdapters } from '../kinds/registry.js';
import { fetchLive } from '../live/fetch-live.js';
import type { DesiredState } from '../manifest/model.js';
import { hasErrors } from '../model/diagnostics.js';
import { ErpsyncError } from '../model/errors.js';
import type { Change, Plan } from '../plan/model.js';
import { findStaleRecords, kindsForRecheck, parsePlanFile, unitsForRecheck } from '../plan/plan-file.js';
import { renderPlanText } from '../plan/render-plan.js';
import type { CliIO } from './io.js';
import { parseCommandArgs } from './parse-command-args.js';
import { writeLine } from './io.js';
import { loadDesired, makePlan, parseCount, planTargetOf, printDiagnostics, readAccount } from './plan-workflow.js';
import type { OpenedTarget } from './target.js';
import { openTarget, targetFlagHelp, targetFlagOptions } from './target.js';

const help = [
  'usage: erpsync apply [manifests… | plan.json] [options]',
  '',
  'Applies the manifests to the account (planning first), or exactly a plan saved by',
  '`erpsync plan --out`, which is refused when the records it touches changed since.',
  '',
  'options:',
  '  --auto-approve         do not ask for confirmation (needed without a terminal)',
  '  --allow-replace        delete and re-create records the API cannot change in place',
  '  --max-deletes N        delete budget of this run (default: policy.maxDeletes, 10)',
  '  --concurrency N        changes in flight at once inside a wave (default 3)',
  ...targetFlagHelp,
].join('\n');

const removal = (c: Change) => c.action === 'delete' || c.action === 'retire';

async function looksLikePlanFile(paths: readonly string[], cwd: string): Promise<string | undefined> {
  if (paths.length !== 1 || !paths[0]?.endsWith('.json')) return undefined;
  return path.resolve(cwd, paths[0]);
}

async function confirm(io: CliIO, plan: Plan): Promise<boolean> {
  const deletes = plan.changes.filter(removal).length;
  const question = deletes > 0 ? `This deletes or retires ${deletes} record(s). Type ${deletes} to apply: ` : 'Apply these changes? Type yes to apply: ';
  const rl = createInterface({ input: io.stdin, output: io.stdout });
  try {
    const answer = (await rl.question(question)).trim();
    return deletes > 0 ? answer === String(deletes) : answer.toLowerCase() === 'yes';
  } finally {
    rl.close();
  }
}

function describeOutcome(event: Extract<ApplyEvent, { type: 'change-end' }>): string {
  const { change, outcome } = event;
  const subject = `${change.kind} "${change.key}" ${change.action}`;
  switch (outcome.status) {
    case 'applied':
      return `  ok      ${subject}${outcome.id !== undefined ? ` (id ${outcome.id}${outcome.adopted ? ', found after an unknown outcome' : ''})` : ''}`;
    case 'failed':
      return `  failed  ${subject}: ${outcome.error}`;
    case 'skipped':
      return `  skipped ${subject}: ${outcome.because}`;
    case 'blocked':
      return `  blocked ${subject}: ${outcome.because}`;
  }
}

export async function runApplyCommand(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs('apply', args, {
    'auto-approve': { type: 'boolean' },
    'allow-replace': { type: 'boolean' },
    'max-deletes': { type: 'string' },
    concurrency: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
    ...targetFlagOptions,
  });
  const flags = parsed.values;
  if (flags.help) {
    writeLine(io.stdout, help);
    return 0;
  }
  const maxDeletes = parseCount(flags['max-deletes'], '--max-deletes');
  const concurrency = parseCount(flags.concurrency, '--concurrency') ?? 3;
  const planFile = await looksLikePlanFile(parsed.positionals, io.cwd);

  let desired: DesiredState | undefined;
  let savedPlan: Plan | undefined;
  if (planFile) {
    savedPlan = parsePlanFile(await readFile(planFile, 'utf8').catch((error: unknown) => {
      throw new ErpsyncError('FILE_UNREADABLE', `cannot read ${parsed.positionals[0] ?? planFile}`, { cause: error });
    }), parsed.positionals[0] ?? planFile, io.env);
  } else {
    desired = await loadDesired(parsed.positionals, io);
    if (!desired) return 1;
  }

  // Ctrl-C stops apply from starting changes; requests in flight finish (a second Ctrl-C exits at
  // once), so the client does not share the interrupt signal.
  const opened = await openTarget(flags, io, { client: { signal: new AbortController().signal } });
  try {
    if (opened.banner) writeLine(io.stdout, opened.banner);
    let plan: Plan;
    let live;
    if (savedPlan) {
      const here = planTargetOf(opened);
      if (savedPlan.target.id !== here.id) {
        throw new ErpsyncError('PLAN_STALE', `the plan was made for ${savedPlan.target.id}, not for ${here.id}`);
      }
      live = await fetchLive(opened.client, kindAdapters, { kinds: kindsForRecheck(savedPlan, kindAdapters), desired: unitsForRecheck(savedPlan), complete: () => false });
      const stale = findStaleRecords(savedPlan, live);
      if (stale.length > 0) {
        throw new ErpsyncError('PLAN_STALE', 'the account changed since the plan was made; plan again', { details: stale });
      }
      plan = savedPlan;
    } else {
      live = await readAccount(opened, desired as DesiredState);
      const result = makePlan(desired as DesiredState, live, opened, { allowReplace: flags['allow-replace'] === true, ...(maxDeletes !== undefined ? { maxDeletes } : {}) });
      if (hasErrors(result.diagnostics)) {
        printDiagnostics(result.diagnostics, io);
        return 1;
      }
      plan = result.plan;
    }

    for (const line of renderPlanText(plan, { adapters: kindAdapters, maxFieldsPerChange: 20 })) writeLine(io.stdout, line);
    const actionable = plan.changes.filter((c) => c.action !== 'blocked');
    if (actionable.length === 0) return 0;

    const removals = plan.changes.filter((c) => removal(c) && c.reason !== 'replace').length;
    const budget = maxDeletes ?? desired?.policy.maxDeletes ?? 10;
    if (removals > budget) {
      throw new ErpsyncError('DELETE_BUDGET', `the plan deletes or retires ${removals} records, more than the budget of ${budget}`, {
        details: ['raise policy.maxDeletes or pass --max-deletes if that is intended'],
      });
    }
    if (!flags['auto-approve']) {
      if (!io.stdin.isTTY) {
        throw new ErpsyncError('CONFIRMATION_REQUIRED', 'no terminal to confirm on: pass --auto-approve to apply without asking');
      }
      writeLine(io.stdout);
      if (!(await confirm(io, plan))) {
        writeLine(io.stdout, 'Apply cancelled; nothing was changed.');
        return 0;
      }
    }

    writeLine(io.stdout);
    writeLine(io.stdout, 'Applying…');
    const result = await applyPlan(plan, {
      client: opened.client,
      adapters: kindAdapters,
      live,
      concurrency: Math.max(1, concurrency),
      signal: io.signal,
      onEvent: (event) => {
        if (event.type === 'change-end') writeLine(io.stdout, describeOutcome(event));
      },
    });
    writeLine(io.stdout);
    writeLine(io.stdout, summarizeApply(result));
    const nonConvergent = result.interrupted ? [] : await checkConvergence(opened, plan, result);
    for (const line of nonConvergent) writeLine(io.stdout, `  not converged: ${line}`);
    if (result.interrupted) writeLine(io.stdout, 'Interrupted: the changes not started were skipped; run apply again to finish.');
    return result.failed > 0 || result.interrupted ? 1 : 0;
  } finally {
    await opened.close();
  }
}

function summarizeApply(result: ApplyResult): string {
  return `Apply: ${result.applied} applied, ${result.failed} failed, ${result.skipped} skipped, ${result.blocked} blocked.`;
}

/** Re-reads what was written, with the same few reads a saved plan's re-check makes. */
async function checkConvergence(opened: OpenedTarget, plan: Plan, result: ApplyResult): Promise<string[]> {
  if (result.applied === 0) return [];
  const live = await fetchLive(opened.client, kindAdapters, { kinds: kindsForRecheck(plan, kindAdapters), desired: unitsForRecheck(plan), complete: () => false });
  return findNonConvergent(result, live, kindAdapters);
}
