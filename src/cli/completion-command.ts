// `erpsync completion bash|zsh|fish`: prints a completion script for the shell. The commands and
// their flags are read from each command's own --help, run here with its output captured, so
// completion never lists a flag a command does not take (or misses one it gained).
import { Writable } from 'node:stream';
import { ErpsyncError } from '../model/errors.js';
import type { CliIO } from './io.js';
import { writeLine } from './io.js';
import { listCommands } from './main.js';
import { parseCommandArgs } from './parse-command-args.js';
import type { CommandSpec, Shell } from './completion-scripts.js';
import { readFlagsFromHelp, renderCompletion, shells } from './completion-scripts.js';

const help = [
  'usage: erpsync completion bash|zsh|fish',
  '',
  'Prints a shell completion script: commands, their flags, kinds after --only/--exclude.',
  '',
  '  bash: eval "$(erpsync completion bash)"   (e.g. in ~/.bashrc)',
  '  zsh:  eval "$(erpsync completion zsh)"    (e.g. in ~/.zshrc, after compinit)',
  '  fish: erpsync completion fish | source     (or save it in ~/.config/fish/completions/erpsync.fish)',
  '',
  'options:',
  '  -h, --help  show this help',
].join('\n');

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: string, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

/** What every command's --help says, as completion needs it. */
async function describeCommands(io: CliIO): Promise<CommandSpec[]> {
  const specs: CommandSpec[] = [];
  for (const command of listCommands()) {
    if (command.name === 'completion') {
      specs.push({ name: command.name, summary: command.summary, flags: [{ flag: '--help', description: 'show this help' }] });
      continue;
    }
    const stdout = new Capture();
    await (await command.load())(['--help'], { ...io, stdout, stderr: new Capture() });
    specs.push({ name: command.name, summary: command.summary, flags: readFlagsFromHelp(stdout.text) });
  }
  return specs;
}

export async function runCompletionCommand(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs('completion', args, { help: { type: 'boolean', short: 'h' } });
  if (parsed.values.help) {
    writeLine(io.stdout, help);
    return 0;
  }
  const [shell, ...extra] = parsed.positionals;
  if (shell === undefined || extra.length > 0 || !shells.includes(shell as Shell)) {
    throw new ErpsyncError('USAGE', `completion takes one shell: ${shells.join(', ')}${shell === undefined ? '' : `, not \`${parsed.positionals.join(' ')}\``}`);
  }
  io.stdout.write(renderCompletion(shell as Shell, await describeCommands(io)));
  return 0;
}
