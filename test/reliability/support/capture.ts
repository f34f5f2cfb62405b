// A CliIO whose output the test can read while the command still runs (login waits for a browser,
// sandbox for Ctrl-C), for driving main() directly.
import { PassThrough, Writable } from 'node:stream';
import type { CliIO } from '../../../src/cli/io.js';

class Capture extends Writable {
  text = '';
  isTTY = false;
  override _write(chunk: Buffer | string, _encoding: string, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

export interface LiveIO extends CliIO {
  out(): string;
  err(): string;
}

export function liveIO(env: NodeJS.ProcessEnv, cwd: string, signal: AbortSignal = new AbortController().signal): LiveIO {
  const stdout = new Capture();
  const stderr = new Capture();
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  stdin.end();
  return { stdout, stderr, stdin, env, cwd, signal, out: () => stdout.text, err: () => stderr.text };
}

/** Polls `read()` until `pattern` matches it; the match, or an error after `ms`. */
export async function waitForOutput(read: () => string, pattern: RegExp, ms = 5_000): Promise<RegExpExecArray> {
  for (const started = Date.now(); Date.now() - started < ms; ) {
    const match = pattern.exec(read());
    if (match) return match;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`no output matching ${pattern} within ${ms} ms; got:\n${read()}`);
}
