// `erpsync completion bash|zsh|fish`: prints a completion script for the shell. The commands and
// their flags come from the flag table and the command list, the ones parsing and --help use, so
// completion never lists a flag a command does not take (or misses one it gained).
import { ErpsyncError } from '../model/errors.js';
import type { RunIO } from '../model/run-io.js';
import { writeLine } from '../model/run-io.js';
import { commandSpecs, renderHelp } from './commands.js';
import { completionFlags, describeFlag, parseCommandFlags } from './flags.js';
import type { CompletedCommand, Shell } from './completion-scripts.js';
import { renderCompletion, shells } from './completion-scripts.js';

/** Every command with its flags, as completion needs them. */
export function describeCommands(): CompletedCommand[] {
  return commandSpecs.map((command) => ({
    name: command.name,
    summary: command.summary,
    flags: command.flags.map((key) => {
      const { flag, value, lines } = describeFlag(command.name, key);
      return { flag, ...(value !== undefined ? { value } : {}), description: lines.join(' ') };
    }),
  }));
}

export async function runCompletionCommand(args: string[], io: RunIO): Promise<number> {
  const { flags, positionals } = parseCommandFlags('completion', completionFlags, args, io.env);
  if (flags.help) {
    writeLine(io.stdout, renderHelp('completion'));
    return 0;
  }
  const [shell, ...extra] = positionals;
  if (shell === undefined || extra.length > 0 || !shells.includes(shell as Shell)) {
    throw new ErpsyncError('USAGE', `completion takes one shell: ${shells.join(', ')}${shell === undefined ? '' : `, not \`${positionals.join(' ')}\``}`);
  }
  io.stdout.write(renderCompletion(shell as Shell, describeCommands()));
  return 0;
}
