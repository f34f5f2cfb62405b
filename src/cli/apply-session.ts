// How one store's apply shows itself and asks: on a terminal the plan is printed and the ink UI
// (loaded only then) asks and shows live progress; otherwise plain lines, or NDJSON with --json,
// and a plain prompt on the terminal when there is one. Between start and the question the
// keyboard is guarded (startup-guard.ts) so nothing typed early can answer it.
import { createInterface } from 'node:readline/promises';
import { isCi } from '../api/index.js';
import { registry } from '../kinds/registry.js';
import { ErpsyncError } from '../model/errors.js';
import type { Plan } from '../model/plan.js';
import type { ApplyReporter } from '../report/apply-report.js';
import type { Confirmation } from '../report/apply-report.js';
import { acceptsAnswer, applyFieldFold, confirmationFor, createJsonApplyReporter, createPlainApplyReporter } from '../report/apply-report.js';
import { colorizePlanLine } from '../report/plan-terminal.js';
import { renderPlanText } from '../report/render-plan.js';
import type { InteractiveApply } from '../ui/interactive-apply.js';
import type { RunIO } from '../model/run-io.js';
import { writeLine } from '../model/run-io.js';
import type { StartSession } from '../workflows/store-workflow.js';
import type { OutputMode } from './output-mode.js';
import { isColorEnabled } from './output-mode.js';
import { guardStartup } from './startup-guard.js';

/** The plain prompt, for a keyboard without a terminal UI (stdout piped, or --json). */
export async function askOnTerminal(io: RunIO, confirmation: Confirmation, out: RunIO['stdout']): Promise<boolean> {
  if (!io.stdin.isTTY || isCi(io.env)) {
    const why = io.stdin.isTTY ? 'CI is set' : 'no terminal to confirm on';
    throw new ErpsyncError('CONFIRMATION_REQUIRED', `${why}: pass --auto-approve to apply without asking`);
  }
  writeLine(out);
  const rl = createInterface({ input: io.stdin, output: out });
  try {
    return acceptsAnswer(confirmation, await rl.question(`${confirmation.question} `));
  } finally {
    rl.close();
  }
}

function printPlanForTerminal(plan: Plan, io: RunIO): void {
  const color = isColorEnabled(io);
  for (const line of renderPlanText(plan, { adapters: registry.units, maxFieldsPerChange: applyFieldFold })) writeLine(io.stdout, color ? colorizePlanLine(line) : line);
}

/** The session of a single store's apply, in the chosen output mode. */
export function startApplySession(io: RunIO, mode: OutputMode, autoApprove: boolean): StartSession {
  return (opened) => {
    // NDJSON owns stdout: the banner goes to stderr then.
    writeLine(mode === 'json' ? io.stderr : io.stdout, opened.banner);
    const guard = guardStartup(io, { ask: !autoApprove && !isCi(io.env), spinner: mode === 'interactive', requests: () => opened.client.stats().total });
    const write = (line: string) => writeLine(io.stdout, line);
    const now = () => performance.now();
    const reporter: ApplyReporter = mode === 'json' ? createJsonApplyReporter({ write, now }) : createPlainApplyReporter({ write, adapters: registry.units, now });
    // A prompt goes to stderr whenever stdout is not the terminal (it may be a file).
    const promptOut = mode === 'json' || !io.stdout.isTTY ? io.stderr : io.stdout;
    const stop = new AbortController();
    guard.interrupted.addEventListener('abort', () => stop.abort(), { once: true });
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
        if (mode !== 'interactive') return autoApprove || askOnTerminal(io, confirmationFor(plan), promptOut);
        const { startInteractiveApply } = await import('../ui/interactive-apply.js');
        session = startInteractiveApply({ stdout: io.stdout, stdin: io.stdin, stderr: io.stderr, plan, color: isColorEnabled(io), autoApprove });
        session.stop.addEventListener('abort', () => stop.abort(), { once: true });
        return session.confirm();
      },
      stop: stop.signal,
      hold: async () => session?.hold(),
      async close() {
        guard.release();
        await session?.close();
      },
    };
  };
}
