// `erpsync apply [manifests… | plan.json]`: plans (or reads a saved plan), asks, applies wave by
// wave, then re-reads the account to check that what was written took. On a terminal the ink UI
// (loaded only then) asks and shows live progress; otherwise plain lines, or NDJSON with --json.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { applyPlan } from '../apply/apply-plan.js';
import { findNonConvergent } from '../apply/check-convergence.js';
import type { ApplyResult } from '../apply/apply-plan.js';
import { isCi } from '../api/index.js';
import { kindAdapters } from '../kinds/registry.js';
import { fetchLive } from '../live/fetch-live.js';
import type { DesiredState } from '../manifest/model.js';
import { hasErrors } from '../model/diagnostics.js';
import { ErpsyncError } from '../model/errors.js';
import type { Change, Plan } from '../plan/model.js';
import { findStaleRecords, kindsForRecheck, parsePlanFile, unitsForRecheck } from '../plan/plan-file.js';
import { renderPlanText } from '../plan/render-plan.js';
import type { ApplyReporter } from '../report/apply-report.js';
import { acceptsAnswer, applyFieldFold, confirmationFor, createJsonApplyReporter, createPlainApplyReporter } from '../report/apply-report.js';
import { colorizePlanLine } from '../report/plan-terminal.js';
import type { InteractiveApply } from '../ui/interactive-apply.js';
import type { CliIO } from './io.js';
import { parseCommandArgs } from './parse-command-args.js';
import { writeLine } from './io.js';
import { chooseOutputMode, isColorEnabled } from './output-mode.js';
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
  '  --json                 one JSON object per event on stdout (NDJSON), no prompts',
  ...targetFlagHelp,
].join('\n');

const removal = (c: Change) => c.action === 'delete' || c.action === 'retire';

async function looksLikePlanFile(paths: readonly string[], cwd: string): Promise<string | undefined> {
  if (paths.length !== 1 || !paths[0]?.endsWith('.json')) return undefined;
  return path.resolve(cwd, paths[0]);
}

/** The plain prompt, for a keyboard without a terminal UI (stdout piped, or --json). */
async function askOnTerminal(io: CliIO, plan: Plan, out: CliIO['stdout']): Promise<boolean> {
  if (!io.stdin.isTTY || isCi(io.env)) {
    const why = io.stdin.isTTY ? 'CI is set' : 'no terminal to confirm on';
    throw new ErpsyncError('CONFIRMATION_REQUIRED', `${why}: pass --auto-approve to apply without asking`);
  }
  const confirmation = confirmationFor(plan);
  writeLine(out);
  const rl = createInterface({ input: io.stdin, output: out });
  try {
    return acceptsAnswer(confirmation, await rl.question(`${confirmation.question} `));
  } finally {
    rl.close();
  }
}

function printPlanForTerminal(plan: Plan, io: CliIO): void {
  const color = isColorEnabled(io);
  for (const line of renderPlanText(plan, { adapters: kindAdapters, maxFieldsPerChange: applyFieldFold })) writeLine(io.stdout, color ? colorizePlanLine(line) : line);
}

export async function runApplyCommand(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs('apply', args, {
    'auto-approve': { type: 'boolean' },
    'allow-replace': { type: 'boolean' },
    'max-deletes': { type: 'string' },
    concurrency: { type: 'string' },
    json: { type: 'boolean' },
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
  const mode = chooseOutputMode(io, flags.json === true);
  // NDJSON owns stdout: the banner goes to stderr then, and so does a prompt whenever stdout is
  // not the terminal (it may be a file).
  const human = mode === 'json' ? io.stderr : io.stdout;
  const promptOut = mode === 'json' || !io.stdout.isTTY ? io.stderr : io.stdout;
  const write = (line: string) => writeLine(io.stdout, line);
  const now = () => performance.now();
  const reporter: ApplyReporter = mode === 'json' ? createJsonApplyReporter({ write, now }) : createPlainApplyReporter({ write, adapters: kindAdapters, now });

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
    if (opened.banner) writeLine(human, opened.banner);
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

    if (mode === 'interactive') printPlanForTerminal(plan, io);
    else reporter.report({ type: 'plan', plan });
    const actionable = plan.changes.filter((c) => c.action !== 'blocked');
    if (actionable.length === 0) return 0;

    const removals = plan.changes.filter((c) => removal(c) && c.reason !== 'replace').length;
    const budget = maxDeletes ?? desired?.policy.maxDeletes ?? 10;
    if (removals > budget) {
      throw new ErpsyncError('DELETE_BUDGET', `the plan deletes or retires ${removals} records, more than the budget of ${budget}`, {
        details: ['raise policy.maxDeletes or pass --max-deletes if that is intended'],
      });
    }

    if (io.signal.aborted) throw new ErpsyncError('INTERRUPTED', 'interrupted before applying; nothing was changed');
    let session: InteractiveApply | undefined;
    if (mode === 'interactive') {
      const { startInteractiveApply } = await import('../ui/interactive-apply.js');
      session = startInteractiveApply({ stdout: io.stdout, stdin: io.stdin, stderr: io.stderr, plan, color: isColorEnabled(io), autoApprove: flags['auto-approve'] === true });
    }
    const sink = session ?? reporter;
    try {
      const approved = session ? await session.confirm() : flags['auto-approve'] === true || (await askOnTerminal(io, plan, promptOut));
      if (!approved) {
        sink.report({ type: 'cancelled' });
        return 0;
      }
      // The UI's stop (a confirmed Ctrl-C) and the process's interrupt both end the run cleanly.
      const stop = session ? AbortSignal.any([io.signal, session.stop]) : io.signal;
      const result = await applyPlan(plan, {
        client: opened.client,
        adapters: kindAdapters,
        live,
        concurrency: Math.max(1, concurrency),
        signal: stop,
        onEvent: (event) => sink.report(event),
      });
      if (!result.interrupted && result.applied > 0) {
        sink.report({ type: 'verify-start' });
        sink.report({ type: 'verify-end', notConverged: await checkConvergence(opened, plan, result) });
      }
      return result.failed > 0 || result.interrupted ? 1 : 0;
    } finally {
      await session?.close();
    }
  } finally {
    await opened.close();
  }
}

/** Re-reads what was written, with the same few reads a saved plan's re-check makes. */
async function checkConvergence(opened: OpenedTarget, plan: Plan, result: ApplyResult): Promise<string[]> {
  if (result.applied === 0) return [];
  const live = await fetchLive(opened.client, kindAdapters, { kinds: kindsForRecheck(plan, kindAdapters), desired: unitsForRecheck(plan), complete: () => false });
  return findNonConvergent(result, live, kindAdapters);
}
