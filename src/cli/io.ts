// What a command may touch of the outside world. Tests pass their own; bin.ts passes the process's.
import type { Readable, Writable } from 'node:stream';

export interface CliIO {
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean };
  stdin: Readable & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Aborted on Ctrl-C / SIGTERM; long-running commands stop cleanly when it fires. */
  signal: AbortSignal;
}

export type CommandRunner = (args: string[], io: CliIO) => Promise<number>;

export function writeLine(stream: CliIO['stdout'], line = ''): void {
  stream.write(`${line}\n`);
}
