// Runs the erpsync CLI in this process with captured output, as a user would call it.
import { PassThrough, Writable } from 'node:stream';
import type { RunIO } from '../../src/model/run-io.js';
import { main } from '../../src/cli/main.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

class Capture extends Writable {
  text = '';
  isTTY = false;
  override _write(chunk: Buffer | string, _encoding: string, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

/** A RunIO whose output the test can read while the command still runs (login, sandbox). */
export interface LiveIO extends RunIO {
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

export async function runCli(args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; signal?: AbortSignal }): Promise<CliRun> {
  const io = liveIO(options.env ?? {}, options.cwd, options.signal);
  const code = await main(args, io);
  return { code, stdout: io.out(), stderr: io.err() };
}
