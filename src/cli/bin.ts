#!/usr/bin/env node
// Process entry: wires the real streams and signals into main() and owns the only process.exit.
// Every command runs from the build's bundles (fast-start.ts), validate from a bundle of its own.
import { loadMain, loadValidateBundle } from './fast-start.js';

const controller = new AbortController();
let interrupts = 0;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    controller.abort(new Error(`received ${signal}`));
  });
}

// A reader that stops early (`erpsync plan | head`) closes the pipe: what is left to print has
// nowhere to go, which is no failure of the run. The run ends with its own exit code, quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return;
    throw error;
  });
}

const argv = process.argv.slice(2);
const main = (argv[0] === 'validate' ? loadValidateBundle() : undefined) ?? (await loadMain());
const code = await main(argv, {
  stdout: process.stdout,
  stderr: process.stderr,
  // process.stdin builds its stream (and loads node's stream modules) when first read; most
  // commands never read it, so it is not touched until a prompt asks.
  get stdin() {
    return process.stdin;
  },
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
});
process.exitCode = code;
// Leave once everything written has gone into the pipes, even if a keep-alive socket lingers. A
// pipe takes 64 KB at a time: exiting earlier cut a large `plan --json` off for a slower reader.
await Promise.all([process.stdout, process.stderr].map(flushed));
process.exit(code);

/** Resolves when what was written before has left the stream (or the stream can take no more). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) resolve();
    else stream.write('', () => resolve());
  });
}
