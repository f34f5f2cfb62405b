// The CLI edge: picks the command, runs it, and maps any error to one message and an exit code.
// Commands are loaded lazily so `erpsync --version` starts fast. This file and bin.ts hold the
// only top-level error handler; nothing below the CLI prints or exits.
import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { ErpsyncError, exitCodes, isErpsyncError } from '../model/errors.js';
import type { RunIO } from '../workflows/run-io.js';
import { writeLine } from '../workflows/run-io.js';
import { withStateStores } from '../workflows/run-state.js';
import type { CommandRunner } from './commands.js';
import { commandSpecs, findCommand } from './commands.js';
import type { CommandName } from './flags.js';
import { withOutputMask } from './output-mask.js';
import { suggestClosest } from '../model/suggest.js';
import { printable } from '../model/printable.js';

/** Where each command's code is: loaded only when it runs, so `erpsync --version` starts fast. */
const loaders: Record<CommandName, () => Promise<CommandRunner>> = {
  validate: async () => (await import('./validate-command.js')).runValidateCommand,
  plan: async () => (await import('./plan-command.js')).runPlanCommand,
  apply: async () => (await import('./apply-command.js')).runApplyCommand,
  drift: async () => (await import('./drift-command.js')).runDriftCommand,
  export: async () => (await import('./export-command.js')).runExportCommand,
  compare: async () => (await import('./compare-command.js')).runCompareCommand,
  import: async () => (await import('./import-command.js')).runImportCommand,
  doctor: async () => (await import('./doctor-command.js')).runDoctorCommand,
  sandbox: async () => (await import('./sandbox-command.js')).runSandboxCommand,
  targets: async () => (await import('./targets-command.js')).runTargetsCommand,
  login: async () => (await import('./login-command.js')).runLoginCommand,
  completion: async () => (await import('./completion-command.js')).runCompletionCommand,
  history: async () => (await import('./history-command.js')).runHistoryCommand,
  report: async () => (await import('./report-command.js')).runReportCommand,
  backend: async () => (await import('./backend-command.js')).runBackendCommand,
};

export function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function usage(): string {
  const width = Math.max(...commandSpecs.map((c) => c.name.length));
  return [
    'usage: erpsync <command> [options]',
    '',
    'commands:',
    ...commandSpecs.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `erpsync <command> --help` for the options of a command.',
  ].join('\n');
}

export async function main(argv: string[], io: RunIO): Promise<number> {
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
  const entry = findCommand(name);
  if (!entry) {
    writeLine(io.stderr, `erpsync: ${describeUnknownCommand(name)}`);
    return exitCodes.error;
  }
  const debug = rest.includes('--debug') || io.env.ERPSYNC_DEBUG === '1';
  const masked = withOutputMask(io);
  try {
    const run = await loaders[entry.name]();
    return await withStateStores(() => run(rest, masked));
  } catch (error) {
    return reportFailure(error, masked, debug);
  }
}

/** One line: what was not understood, the closest command, and where the list is. */
function describeUnknownCommand(name: string): string {
  const shown = printable(name);
  const closest = suggestClosest(name, commandSpecs.map((c) => c.name));
  if (name.startsWith('-')) return `unknown option ${shown} before the command (run \`erpsync --help\` for the commands)`;
  return closest
    ? `unknown command \`${shown}\`; did you mean \`erpsync ${closest}\`? (run \`erpsync ${closest} --help\` for its options)`
    : `unknown command \`${shown}\` (run \`erpsync --help\` for the commands)`;
}

/** The one place that turns a thrown failure into text and an exit code. */
export function reportFailure(error: unknown, io: RunIO, debug: boolean): number {
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
