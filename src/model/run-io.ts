// What a command may touch of the outside world. Tests pass their own; bin.ts passes the process's.
import type { Readable, Writable } from 'node:stream';
import type { SecretMask } from './secret-mask.js';

export interface RunIO {
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean };
  stdin: Readable & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Aborted on Ctrl-C / SIGTERM; long-running commands stop cleanly when it fires. */
  signal: AbortSignal;
  /** Values no output may show (set by main; commands add the secret values they learn). */
  mask?: SecretMask;
}


export function writeLine(stream: RunIO['stdout'], line = ''): void {
  stream.write(`${line}\n`);
}

/** Masks a text bound for a file (a report, an exported manifest) as the terminal output is masked. */
export function maskOf(io: RunIO): (text: string) => string {
  return (text) => io.mask?.mask(text) ?? text;
}
