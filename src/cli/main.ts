// The CLI edge: picks the command, runs it, and maps any error to one message and an exit code.
// Commands are loaded lazily so `erpsync --version` starts fast. This file and bin.ts hold the
// only top-level error handler; nothing below the CLI prints or exits.
import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { ErpsyncError, exitCodes, isErpsyncError } from '../model/errors.js';
import type { CliIO, CommandRunner } from './io.js';
import { writeLine } from './io.js';
import { withOutputMask } from './output-mask.js';
import { suggestClosest } from '../model/suggest.js';
import { printable } from '../model/printable.js';

interface CommandEntry {
  summary: string;
  load: () => Promise<CommandRunner>;
}

const commands: Record<string, CommandEntry> = {
  validate: {
    summary: 'check manifests offline (schema, references, secrets)',
    load: async () => (await import('./validate-command.js')).runValidateCommand,
  },
  plan: {
    summary: 'show what apply would change in the account',
    load: async () => (await import('./plan-command.js')).runPlanCommand,
  },
  apply: {
    summary: 'make the account match the manifests (or a saved plan)',
    load: async () => (await import('./apply-command.js')).runApplyCommand,
  },
  drift: {
    summary: 'report how the account drifted from the manifests (changes nothing)',
    load: async () => (await import('./drift-command.js')).runDriftCommand,
  },
  export: {
    summary: "write the account's configuration as manifests, one file per kind",
    load: async () => (await import('./export-command.js')).runExportCommand,
  },
  sandbox: {
    summary: 'serve the embedded Bling API emulator on loopback until Ctrl-C',
    load: async () => (await import('./sandbox-command.js')).runSandboxCommand,
  },
  targets: {
    summary: 'list the targets of erpsync.config.yaml; --check names the account each one reaches',
    load: async () => (await import('./targets-command.js')).runTargetsCommand,
  },
  login: {
    summary: 'authorize erpsync on a Bling account (OAuth) and store the credentials',
    load: async () => (await import('./login-command.js')).runLoginCommand,
  },
  completion: {
    summary: 'print a shell completion script: erpsync completion bash|zsh|fish',
    load: async () => (await import('./completion-command.js')).runCompletionCommand,
  },
};

/** Every command with its summary and runner, in the order usage lists them (completion reads it). */
export function listCommands(): { name: string; summary: string; load: () => Promise<CommandRunner> }[] {
  return Object.entries(commands).map(([name, entry]) => ({ name, ...entry }));
}

export function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function usage(): string {
  const names = Object.keys(commands);
  const width = Math.max(...names.map((n) => n.length));
  return [
    'usage: erpsync <command> [options]',
    '',
    'commands:',
    ...names.map((name) => `  ${name.padEnd(width)}  ${commands[name]?.summary ?? ''}`),
    '',
    'Run `erpsync <command> --help` for the options of a command.',
  ].join('\n');
}

export async function main(argv: string[], io: CliIO): Promise<number> {
  // Every request in flight listens to the one interrupt signal; a fleet has many at once.
  setMaxListeners(128, io.signal);
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    writeLine(io.stdout, usage());
    return name === undefined ? exitCodes.error : exitCodes.ok;
  }
  if (name === '--version' || name === '-V') {
    writeLine(io.stdout, readVersion());
    return 0;
  }
  const entry = commands[name];
  if (!entry) {
    writeLine(io.stderr, `erpsync: ${describeUnknownCommand(name)}`);
    return exitCodes.error;
  }
  const debug = rest.includes('--debug') || io.env.ERPSYNC_DEBUG === '1';
  const masked = withOutputMask(io);
  try {
    const run = await entry.load();
    return await run(rest, masked);
  } catch (error) {
    return reportFailure(error, masked, debug);
  }
}

/** One line: what was not understood, the closest command, and where the list is. */
function describeUnknownCommand(name: string): string {
  const shown = printable(name);
  const closest = suggestClosest(name, Object.keys(commands));
  if (name.startsWith('-')) return `unknown option ${shown} before the command (run \`erpsync --help\` for the commands)`;
  return closest
    ? `unknown command \`${shown}\`; did you mean \`erpsync ${closest}\`? (run \`erpsync ${closest} --help\` for its options)`
    : `unknown command \`${shown}\` (run \`erpsync --help\` for the commands)`;
}

/** The one place that turns a thrown failure into text and an exit code. */
export function reportFailure(error: unknown, io: CliIO, debug: boolean): number {
  if (isErpsyncError(error)) {
    writeLine(io.stderr, `erpsync: ${error.message}`);
    for (const line of error.details) writeLine(io.stderr, `  ${line}`);
    if (debug && error.cause !== undefined) writeLine(io.stderr, `  cause: ${describeCause(error.cause)}`);
    return error.exitCode;
  }
  const internal = new ErpsyncError('INTERNAL', 'internal error (this is a bug in erpsync)', { cause: error });
  writeLine(io.stderr, `erpsync: ${internal.message}: ${describeCause(error)}`);
  if (debug && error instanceof Error && error.stack) writeLine(io.stderr, error.stack);
  return internal.exitCode;
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) return `${cause.name}: ${cause.message}`;
  return String(cause);
}
