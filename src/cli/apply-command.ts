// `erpsync apply [manifests… | plan.json]`: plans (or reads a saved plan), asks, applies wave by
// wave, then re-reads the account to check that what was written took. On a terminal the ink UI
// (loaded only then) asks and shows live progress; otherwise plain lines, or NDJSON with --json.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { exitCodeOfApply, runApplyWorkflow } from '../apply/apply-workflow.js';
import { defaultOutcomeWindowMs } from '../apply/apply-plan.js';
import type { HeldLock } from '../api/lease-lock.js';
import { lockAccount, lockKeyOf } from './account-lock.js';
import type { ApiClient } from '../api/client.js';
import type { StartupGuard } from './startup-guard.js';
import { guardStartup } from './startup-guard.js';
import { isCi } from '../api/index.js';
import { registry } from '../kinds/registry.js';
import { fetchLive } from '../live/fetch-live.js';
import { hasErrors } from '../model/diagnostics.js';
import { ErpsyncError } from '../model/errors.js';
import { parsePlanFile } from '../plan/plan-file.js';
import { renderPlanText } from '../report/render-plan.js';
import type { ApplyReporter } from '../report/apply-report.js';
import { acceptsAnswer, applyFieldFold, confirmationFor, createJsonApplyReporter, createPlainApplyReporter } from '../report/apply-report.js';
import { colorizePlanLine } from '../report/plan-terminal.js';
import type { InteractiveApply } from '../ui/interactive-apply.js';
import type { CliIO } from './io.js';
import { fleetProgress, writeFleetReport } from './fleet-output.js';
import { applyStore, isFleetRun, runFleet } from './fleet-workflow.js';
import { parseCommandArgs } from './parse-command-args.js';
import { writeLine } from './io.js';
import { chooseOutputMode, isColorEnabled } from './output-mode.js';
import { loadDesired, makePlan, parseCount, planTargetOf, printDiagnostics, readAccount, readSelection, readToday, selectionFlagHelp, selectionFlagOptions } from './plan-workflow.js';
import { openResolvedTarget, readTargetVariables, resolveCliTarget, targetFlagHelp, targetFlagOptions } from './target.js';
import type { DesiredState } from '../model/desired.js';
import type { LiveState } from '../model/live.js';
import type { Selection } from '../model/selection.js';
import type { Plan } from '../model/plan.js';
import type { ApplyReportEvent } from '../model/events.js';

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
  '  --lock-timeout S       seconds to wait while another apply holds the account (default 0:',
  '                         refuse at once, exit 3; ERPSYNC_LOCK_TIMEOUT)',
  '  --outcome-wait S       seconds a create of unknown outcome (timeout, lost connection) may still',
  '                         commit: it is looked up that long before it may be sent again',
  '                         (default 30; ERPSYNC_OUTCOME_WAIT)',
  '  --json                 one JSON object per event on stdout (NDJSON), no prompts',
  ...selectionFlagHelp,
  '                         (a saved plan carries its own selection)',
  ...targetFlagHelp,
].join('\n');

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
  for (const line of renderPlanText(plan, { adapters: registry.units, maxFieldsPerChange: applyFieldFold })) writeLine(io.stdout, color ? colorizePlanLine(line) : line);
}

const applyFlagOptions = {
  'auto-approve': { type: 'boolean' },
  'allow-replace': { type: 'boolean' },
  'max-deletes': { type: 'string' },
  concurrency: { type: 'string' },
  'outcome-wait': { type: 'string' },
  'lock-timeout': { type: 'string' },
  json: { type: 'boolean' },
  ...selectionFlagOptions,
  help: { type: 'boolean', short: 'h' },
  ...targetFlagOptions,
} as const;

type ApplyFlags = ReturnType<typeof parseCommandArgs<typeof applyFlagOptions>>['values'];

/** The numbers apply runs by, from the flags (or their environment variables). */
function readApplySettings(flags: ApplyFlags, env: NodeJS.ProcessEnv) {
  const outcomeWait = parseCount(flags['outcome-wait'] ?? (env.ERPSYNC_OUTCOME_WAIT || undefined), '--outcome-wait');
  return {
    maxDeletes: parseCount(flags['max-deletes'], '--max-deletes'),
    concurrency: Math.max(1, parseCount(flags.concurrency, '--concurrency') ?? 3),
    lockTimeoutMs: (parseCount(flags['lock-timeout'] ?? (env.ERPSYNC_LOCK_TIMEOUT || undefined), '--lock-timeout') ?? 0) * 1000,
    outcomeWindowMs: (outcomeWait ?? defaultOutcomeWindowMs / 1000) * 1000,
  };
}

export async function runApplyCommand(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs('apply', args, applyFlagOptions);
  const flags = parsed.values;
  if (flags.help) {
    writeLine(io.stdout, help);
    return 0;
  }
  const settings = readApplySettings(flags, io.env);
  const planFile = await looksLikePlanFile(parsed.positionals, io.cwd);
  const selection = readSelection(flags);
  if (planFile && (settings.maxDeletes !== undefined || flags['allow-replace'])) {
    throw new ErpsyncError('USAGE', 'a saved plan carries its own delete budget and replacements; plan again with --max-deletes or --allow-replace');
  }
  if (planFile && selection) throw new ErpsyncError('USAGE', 'a saved plan carries its own selection (--only/--exclude); plan again with the selection you want');
  if (isFleetRun(flags)) {
    if (planFile) throw new ErpsyncError('USAGE', 'a saved plan belongs to one target; apply it with --target NAME');
    if (selection) throw new ErpsyncError('USAGE', '--only and --exclude target one store: apply one target at a time for a targeted run');
    if (flags['auto-approve'] !== true) throw new ErpsyncError('CONFIRMATION_REQUIRED', 'a fleet apply never asks store by store: pass --auto-approve (after reviewing `erpsync plan` across the same targets)');
    const fleetFormat = flags.json ? 'json' : 'text';
    const report = await runFleet({ command: 'apply', flags, paths: parsed.positionals, io, onRow: fleetProgress('apply', fleetFormat, io) }, applyStore(io, settings));
    writeFleetReport(report, fleetFormat, io);
    return report.exitCode;
  }
  const target = await resolveCliTarget(flags, io);
  const savedPlan = planFile ? await readSavedPlan(planFile, parsed.positionals[0] ?? planFile, await readTargetVariables(target, io)) : undefined;
  const desired = savedPlan ? undefined : await loadDesired(parsed.positionals, io, target);
  if (savedPlan) return applyToTarget({ savedPlan }, target, flags, settings, io);
  if (!desired) return 1;
  return applyToTarget({ desired, ...(selection ? { selection } : {}) }, target, flags, settings, io);
}

/** Applies a saved plan, or plans the manifests and applies that, on one target. */
async function applyToTarget(
  source: { savedPlan: Plan } | { desired: DesiredState; selection?: Selection },
  target: Awaited<ReturnType<typeof resolveCliTarget>>,
  flags: ApplyFlags,
  settings: ReturnType<typeof readApplySettings>,
  io: CliIO,
): Promise<number> {
  const mode = chooseOutputMode(io, flags.json === true);
  // Ctrl-C stops apply from starting changes; requests in flight finish (a second Ctrl-C exits at
  // once), so the client does not share the interrupt signal.
  const opened = await openResolvedTarget(target, flags, io, { client: { signal: new AbortController().signal } });
  const autoApprove = flags['auto-approve'] === true;
  const guard = guardStartup(io, { ask: !autoApprove && !isCi(io.env), spinner: mode === 'interactive', requests: () => opened.client.stats().total });
  const ui = createApplyUi(io, mode, autoApprove, guard);
  let lock: HeldLock | undefined;
  try {
    // NDJSON owns stdout: the banner goes to stderr then.
    writeLine(mode === 'json' ? io.stderr : io.stdout, opened.banner);
    lock = await lockAccount(io, { key: lockKeyOf(opened), timeoutMs: settings.lockTimeoutMs, inFlightMs: settings.outcomeWindowMs });
    let plan: Plan;
    let live: LiveState | undefined;
    if ('savedPlan' in source) plan = source.savedPlan;
    else {
      live = await readAccount(opened, source.desired);
      const options = { allowReplace: flags['allow-replace'] === true, today: readToday(io.env), ...(source.selection ? { selection: source.selection } : {}), ...(settings.maxDeletes !== undefined ? { maxDeletes: settings.maxDeletes } : {}) };
      const result = makePlan(source.desired, live, opened, options);
      printDiagnostics(result.diagnostics, io);
      if (hasErrors(result.diagnostics)) return 1;
      plan = result.plan;
    }
    const outcome = await runApplyWorkflow(plan, {
      client: holdRequests(opened.client, ui.hold),
      target: planTargetOf(opened),
      adapters: registry.units,
      readAccount: (request) => fetchLive(opened.client, registry.units, request),
      ...(live ? { live } : {}),
      confirm: ui.confirm,
      report: ui.report,
      signal: AbortSignal.any([io.signal, ui.stop, guard.interrupted]),
      hold: ui.hold,
      concurrency: settings.concurrency,
      outcomeWindowMs: settings.outcomeWindowMs,
    });
    return exitCodeOfApply(outcome);
  } finally {
    guard.release();
    await ui.close();
    await lock?.release();
    await opened.close();
  }
}

/** The client apply writes through: no request leaves while the Ctrl-C question shows. */
function holdRequests(client: ApiClient, hold: () => Promise<void>): ApiClient {
  return {
    ...client,
    request: async <T,>(req: Parameters<ApiClient['request']>[0]) => {
      await hold();
      return client.request<T>(req);
    },
  };
}

async function readSavedPlan(file: string, shown: string, env: NodeJS.ProcessEnv): Promise<Plan> {
  const text = await readFile(file, 'utf8').catch((error: unknown) => {
    throw new ErpsyncError('FILE_UNREADABLE', `cannot read ${shown}`, { cause: error });
  });
  return parsePlanFile(text, shown, env);
}

interface ApplyUi {
  report: (event: ApplyReportEvent) => void;
  confirm: (plan: Plan) => Promise<boolean>;
  /** Aborted when the person confirms a stop in the terminal UI. */
  stop: AbortSignal;
  /** Resolves when a change or request may start (not while the Ctrl-C question shows). */
  hold: () => Promise<void>;
  close: () => Promise<void>;
}

/**
 * Where apply's events go and how it asks: on a terminal the plan is printed and the ink UI
 * (loaded only then) asks and shows progress; otherwise plain lines, or NDJSON with --json, and
 * a plain prompt on the terminal when there is one.
 */
function createApplyUi(io: CliIO, mode: ReturnType<typeof chooseOutputMode>, autoApprove: boolean, guard: StartupGuard): ApplyUi {
  const write = (line: string) => writeLine(io.stdout, line);
  const now = () => performance.now();
  const reporter: ApplyReporter = mode === 'json' ? createJsonApplyReporter({ write, now }) : createPlainApplyReporter({ write, adapters: registry.units, now });
  // A prompt goes to stderr whenever stdout is not the terminal (it may be a file).
  const promptOut = mode === 'json' || !io.stdout.isTTY ? io.stderr : io.stdout;
  const stop = new AbortController();
  let session: InteractiveApply | undefined;
  return {
    report(event) {
      if (event.type === 'plan') guard.stopSpinner();
      if (session) session.report(event);
      else if (mode === 'interactive' && event.type === 'plan') printPlanForTerminal(event.plan, io);
      else reporter.report(event);
    },
    async confirm(plan) {
      // What was typed before the question was thrown away; the keyboard answers from here on.
      guard.release();
      if (mode !== 'interactive') return autoApprove || askOnTerminal(io, plan, promptOut);
      const { startInteractiveApply } = await import('../ui/interactive-apply.js');
      session = startInteractiveApply({ stdout: io.stdout, stdin: io.stdin, stderr: io.stderr, plan, color: isColorEnabled(io), autoApprove });
      session.stop.addEventListener('abort', () => stop.abort(), { once: true });
      return session.confirm();
    },
    stop: stop.signal,
    hold: async () => session?.hold(),
    close: async () => session?.close(),
  };
}
