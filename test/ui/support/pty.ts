// A separate erpsync process in a real pseudo-terminal: `script` (util-linux) gives it a pty, so
// the ink UI runs exactly as for a person. Output is kept with escape codes and carriage returns
// removed; every wait is bounded, and the child is killed when a deadline passes.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const repo = path.resolve(import.meta.dirname, '../../..');
const register = path.join(repo, 'test/ui/support/ts-register.mjs');
const bin = path.join(repo, 'src/cli/bin.ts');
export const deadlineMs = 20_000;

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

export interface PtyRun {
  child: ChildProcessWithoutNullStreams;
  /** Output so far, escape codes and carriage returns removed. */
  text(): string;
  waitFor(needle: string): Promise<void>;
  exit: Promise<number | null>;
}

export function runInPty(args: string[], env: NodeJS.ProcessEnv, dir: string): PtyRun {
  // A fixed window size: a pty made by `script` from a pipe has none.
  const command = `stty cols 120 rows 40; exec node --import ${quote(register)} ${quote(bin)} ${args.map(quote).join(' ')}`;
  const child = spawn('script', ['--quiet', '--return', '--flush', '--command', command, '/dev/null'], { cwd: dir, env });
  let raw = '';
  const waiters: (() => void)[] = [];
  const onData = (chunk: Buffer) => {
    raw += chunk.toString('utf8');
    for (const wake of waiters.splice(0)) wake();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const text = () => stripVTControlCharacters(raw).replaceAll('\r', '');
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const waitFor = async (needle: string) => {
    const deadline = Date.now() + deadlineMs;
    while (!text().includes(needle)) {
      const left = deadline - Date.now();
      if (left <= 0 || child.exitCode !== null) throw new Error(`no ${JSON.stringify(needle)} in the terminal; it shows:\n${text()}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  };
  return { child, text, waitFor, exit };
}

export async function within<T>(promise: Promise<T>, child: ChildProcessWithoutNullStreams, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} took longer than ${deadlineMs} ms`));
    }, deadlineMs);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

