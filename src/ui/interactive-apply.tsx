// The interactive apply session the CLI drives: mounts the ink app on the command's own streams,
// asks for confirmation, takes the same report events as the plain and NDJSON reporters, and
// turns a confirmed Ctrl-C into `stop` (the CLI passes it to applyPlan, which then starts no
// more changes). Only src/cli imports this, lazily, so nothing else pays for loading ink.
import { render } from 'ink';
import type { Readable, Writable } from 'node:stream';
import { ErpsyncError } from '../model/errors.js';
import { summarizePlan } from '../report/render-plan.js';
import type { ApplyProgress } from '../report/apply-progress.js';
import { advanceProgress, createProgress } from '../report/apply-progress.js';
import type { ApplyReporter } from '../report/apply-report.js';
import { confirmationFor } from '../report/apply-report.js';
import type { SessionPhase } from './apply-app.js';
import { ApplyApp } from './apply-app.js';
import type { Plan } from '../model/plan.js';

export interface InteractiveApplyOptions {
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stdin: Readable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  plan: Plan;
  color: boolean;
  /** Skip the question (--auto-approve) and show progress straight away. */
  autoApprove: boolean;
  now?: () => number;
}

export interface InteractiveApply extends ApplyReporter {
  /** Resolves with the person's answer (true at once under autoApprove). */
  confirm(): Promise<boolean>;
  /** Aborted when the person confirms Ctrl-C. */
  readonly stop: AbortSignal;
  /** Resolves when a change may start: at once, or when the Ctrl-C question is answered. */
  hold(): Promise<void>;
  /** Shows the summary (unless cancelled), leaves it on screen and releases the terminal. */
  close(): Promise<void>;
}

interface SessionState {
  phase: SessionPhase;
  progress: ApplyProgress;
  notConverged: string[];
}

export function startInteractiveApply(options: InteractiveApplyOptions): InteractiveApply {
  const now = options.now ?? (() => performance.now());
  const controller = new AbortController();
  const confirmation = confirmationFor(options.plan);
  const planSummary = `Plan: ${summarizePlan(options.plan)}.`;
  let state: SessionState = { phase: options.autoApprove ? 'applying' : 'confirm', progress: createProgress(), notConverged: [] };
  const answer = createAnswer();
  if (options.autoApprove) answer.settle(true);
  const gate = createPauseGate();

  const view = () => (
    <ApplyApp
      {...state}
      planSummary={planSummary}
      confirmation={confirmation}
      theme={{ color: options.color }}
      now={now}
      onAnswer={(ok) => {
        update({ phase: ok ? 'applying' : 'cancelled' });
        answer.settle(ok);
      }}
      onStop={() => controller.abort(new Error('stopped at the keyboard'))}
      onPause={gate.setPaused}
    />
  );
  // ink wants real tty streams; ours are the command's, which tests replace with lookalikes.
  const instance = render(view(), {
    stdout: options.stdout as NodeJS.WriteStream,
    stdin: options.stdin as NodeJS.ReadStream,
    stderr: options.stderr as NodeJS.WriteStream,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  // A UI that crashed must not leave the command waiting for an answer that cannot come.
  let crash: ErpsyncError | undefined;
  const exited = instance.waitUntilExit().catch((error: unknown) => {
    crash = new ErpsyncError('INTERNAL', 'the terminal UI failed (run with --json or without a terminal to go on)', { cause: error });
    answer.fail(crash);
  });
  const update = (next: Partial<SessionState>) => {
    state = { ...state, ...next };
    instance.rerender(view());
  };

  return {
    confirm: () => answer.answered,
    stop: controller.signal,
    hold: gate.hold,
    report(event) {
      switch (event.type) {
        case 'plan':
          return;
        case 'cancelled':
          return update({ phase: 'cancelled' });
        case 'verify-start':
          return update({ phase: 'verifying' });
        case 'verify-end':
          return update({ notConverged: event.notConverged });
        default:
          return update({ progress: advanceProgress(state.progress, event, now()) });
      }
    },
    async close() {
      gate.setPaused(false);
      if (state.phase !== 'cancelled') update({ phase: 'done' });
      instance.unmount();
      await exited;
      if (crash) throw crash;
    },
  };
}

/** The person's answer to the confirmation, once given (or the UI's failure). */
function createAnswer() {
  let settle: (ok: boolean) => void = () => undefined;
  let fail: (error: unknown) => void = () => undefined;
  const answered = new Promise<boolean>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  return { answered, settle, fail };
}

/** While the Ctrl-C question shows, dispatching waits on `hold`; answering releases it. */
function createPauseGate() {
  let paused: { released: Promise<void>; release: () => void } | undefined;
  return {
    hold: async (): Promise<void> => paused?.released,
    setPaused(on: boolean): void {
      if (on && !paused) {
        let release = () => undefined as void;
        const released = new Promise<void>((resolve) => (release = resolve));
        paused = { released, release };
      } else if (!on && paused) {
        paused.release();
        paused = undefined;
      }
    },
  };
}
