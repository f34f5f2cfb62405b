// Runs the erpsync CLI in this process with captured output, as a user would call it.
import { PassThrough, Writable } from 'node:stream';
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

export async function runCli(args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; signal?: AbortSignal }): Promise<CliRun> {
  const stdout = new Capture();
  const stderr = new Capture();
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  stdin.end();
  const code = await main(args, {
    stdout,
    stderr,
    stdin,
    env: options.env ?? {},
    cwd: options.cwd,
    signal: options.signal ?? new AbortController().signal,
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
}
