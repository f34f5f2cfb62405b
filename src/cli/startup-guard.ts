// Between `erpsync apply` starting and its question, the account is read (seconds at a real
// account's pace). Meanwhile the keyboard is held in raw mode and whatever is typed is thrown
// away, so a "yes" typed early can never answer the question that comes later; Ctrl-C there
// stops the run before anything is written. On a terminal a spinner counts the requests sent.
import type { RunIO } from '../model/run-io.js';
import { spinnerFrame } from '../report/spinner.js';

export interface StartupGuard {
  /** Aborted by Ctrl-C typed during start-up. */
  readonly interrupted: AbortSignal;
  /** Clears the spinner line (the plan is printed next); typed keys are still thrown away. */
  stopSpinner(): void;
  /** Gives the keyboard back (just before the question); idempotent. */
  release(): void;
}

type RawInput = RunIO['stdin'] & { setRawMode?: (mode: boolean) => unknown };

/** A guard that guards nothing (no question will be asked); its signal is its own, so listeners never pile up across runs. */
const inactive = (): StartupGuard => ({ interrupted: new AbortController().signal, stopSpinner: () => undefined, release: () => undefined });

export function guardStartup(io: RunIO, options: { ask: boolean; spinner: boolean; requests: () => number }): StartupGuard {
  const stdin = io.stdin as RawInput;
  if (!options.ask || !stdin.isTTY || typeof stdin.setRawMode !== 'function') return inactive();
  const controller = new AbortController();
  const discard = (chunk: Buffer | string) => {
    if (chunk.toString().includes('\u0003')) controller.abort(new Error('interrupted during start-up'));
  };
  stdin.setRawMode(true);
  stdin.on('data', discard);
  stdin.resume();
  let tick = 0;
  const draw = () => io.stdout.write(`\r\u001B[2K${spinnerFrame(tick++)} Reading the account… ${options.requests()} request(s)`);
  let timer: NodeJS.Timeout | undefined = options.spinner ? setInterval(draw, 100) : undefined;
  if (timer) draw();
  const stopSpinner = () => {
    if (!timer) return;
    clearInterval(timer);
    timer = undefined;
    io.stdout.write('\r\u001B[2K');
  };
  let released = false;
  return {
    interrupted: controller.signal,
    stopSpinner,
    release() {
      if (released) return;
      released = true;
      stopSpinner();
      stdin.off('data', discard);
      stdin.pause();
      stdin.setRawMode?.(false);
    },
  };
}
