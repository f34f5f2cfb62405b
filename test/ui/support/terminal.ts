// Runs the erpsync CLI in this process on streams that look like a terminal (isTTY, columns, raw
// mode), so the interactive path is taken, and lets a test type keys and wait for output.
import { PassThrough, Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { main } from '../../../src/cli/main.js';
import { eventually } from '../../support/eventually.js';

export class TerminalOutput extends Writable {
  raw = '';
  isTTY = true;
  columns = 120;
  rows = 40;
  override _write(chunk: Buffer | string, _encoding: string, callback: () => void): void {
    this.raw += chunk.toString();
    callback();
  }
  /** What was written, without escape codes. */
  get text(): string {
    return stripVTControlCharacters(this.raw);
  }
}

export class TerminalInput extends PassThrough {
  isTTY = true;
  isRaw = false;
  setRawMode(mode: boolean): this {
    this.isRaw = mode;
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
}

export interface TerminalRun {
  stdout: TerminalOutput;
  stderr: TerminalOutput;
  stdin: TerminalInput;
  exit: Promise<number>;
  /** Waits until the output (escape codes removed) contains `text`, `times` times. */
  waitFor(text: string, times?: number): Promise<void>;
  /** Types keys one read at a time, as a person does. */
  type(...keys: string[]): Promise<void>;
}

export interface TerminalOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** false: stdout is redirected (a file, a pipe) while the keyboard is still there. */
  stdoutIsTerminal?: boolean;
}

export function runCliOnTerminal(args: string[], options: TerminalOptions): TerminalRun {
  const stdout = new TerminalOutput();
  stdout.isTTY = options.stdoutIsTerminal ?? true;
  const stderr = new TerminalOutput();
  const stdin = new TerminalInput();
  const exit = main(args, { stdout, stderr, stdin, env: options.env, cwd: options.cwd, signal: options.signal ?? new AbortController().signal });
  let ended = false;
  const end = () => (ended = true);
  exit.then(end, end);
  return {
    stdout,
    stderr,
    stdin,
    exit,
    async waitFor(text, times = 1) {
      const seen = () => stdout.text.split(text).length - 1 >= times;
      const output = () => `output:\n${stdout.text}\n${stderr.text}`;
      // The output is complete once the command has returned: then it is there or it never will be.
      await eventually(() => {
        if (!seen() && !ended) throw new Error(`waiting for ${JSON.stringify(text)}; ${output()}`);
      });
      if (!seen()) throw new Error(`the command ended without ${JSON.stringify(text)}; ${output()}`);
    },
    async type(...keys) {
      for (const key of keys) {
        stdin.write(key);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
  };
}
