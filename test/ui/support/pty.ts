// A separate erpsync process (the built CLI) in a real pseudo-terminal: `script` (util-linux) gives
// it a pty, so the ink UI runs exactly as for a person. Output is kept with escape codes and
// carriage returns removed. Waits last until what they wait for shows, or the run ends without
// it; the test's timeout is the only bound, and a run still going when its test ends is killed.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import { stripVTControlCharacters } from 'node:util';
import { onTestFinished } from 'vitest';
import { eventually } from '../../support/eventually.js';

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

export interface PtyRun {
  child: ChildProcessWithoutNullStreams;
  /** Output so far, escape codes and carriage returns removed. */
  text(): string;
  /** Waits until the terminal shows `needle`; fails when the run ends without it. */
  waitFor(needle: string): Promise<void>;
  /** Types keys one read at a time, as a person does. */
  type(keys: readonly string[]): Promise<void>;
  /** The exit code, once the terminal has closed. */
  exit: Promise<number | null>;
}

/** Runs `bin` (see ensureBuiltCli) with `args` in a pty of 120×40, in `dir`, with exactly `env`. */
export function runInPty(bin: string, args: string[], env: NodeJS.ProcessEnv, dir: string): PtyRun {
  // A fixed window size: a pty made by `script` from a pipe has none.
  const command = `stty cols 120 rows 40; exec node ${quote(bin)} ${args.map(quote).join(' ')}`;
  const child = spawn('script', ['--quiet', '--return', '--flush', '--command', command, '/dev/null'], { cwd: dir, env });
  let raw = '';
  let closed = false;
  const onData = (chunk: Buffer) => (raw += chunk.toString('utf8'));
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exit = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      closed = true;
      resolve(code);
    }),
  );
  onTestFinished(() => {
    child.stdin.end();
    if (!closed) child.kill('SIGKILL');
  });
  const text = () => stripVTControlCharacters(raw).replaceAll('\r', '');
  return {
    child,
    text,
    exit,
    async waitFor(needle) {
      // Once the terminal has closed, everything it showed has been read.
      await eventually(() => {
        if (!text().includes(needle) && !closed) throw new Error(`no ${JSON.stringify(needle)} in the terminal yet; it shows:\n${text()}`);
      });
      if (!text().includes(needle)) throw new Error(`the run ended without ${JSON.stringify(needle)} in the terminal; it shows:\n${text()}`);
    },
    async type(keys) {
      for (const key of keys) {
        child.stdin.write(key);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}
