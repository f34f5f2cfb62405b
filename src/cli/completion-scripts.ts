// Shell completion scripts (bash, zsh, fish) from a description of the commands. Pure: the
// description comes from the flag table (completion-command.ts), the same one parsing and --help
// use, so a flag added to a command is completed without a second list to keep in step. After
// --only/--exclude the kinds are offered; after a flag whose value is a FILE, DIR or PATH, paths.
import { kindKeys, nestedUnitKinds } from '../model/kinds.js';

export interface FlagSpec {
  flag: string;
  /** The value's placeholder in the help (`FILE`, `N`), or the choices (`text|markdown`); absent for a switch. */
  value?: string;
  description: string;
}

export interface CompletedCommand {
  name: string;
  summary: string;
  flags: FlagSpec[];
}

export const shells = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof shells)[number];

const selectionFlags = new Set(['--only', '--exclude']);
const kindWords = [...kindKeys, ...nestedUnitKinds].join(' ');
const takesPath = (flag: FlagSpec) => flag.value !== undefined && /FILE|DIR|PATH/.test(flag.value);
const choicesOf = (flag: FlagSpec) => (flag.value?.includes('|') ? flag.value.split('|') : undefined);

function renderBash(commands: readonly CompletedCommand[]): string {
  const valueCases = commands
    .flatMap((c) => c.flags)
    .filter((f) => f.value !== undefined && !takesPath(f) && !selectionFlags.has(f.flag))
    .map((f) => f.flag);
  const choices = commands.flatMap((c) => c.flags.flatMap((f) => (choicesOf(f) ? [`    ${c.name}:${f.flag}) COMPREPLY=($(compgen -W "${choicesOf(f)?.join(' ')}" -- "$cur")); return ;;`] : [])));
  return [
    '# erpsync completion for bash. Load it with: eval "$(erpsync completion bash)"',
    '# (or save it as ~/.local/share/bash-completion/completions/erpsync).',
    '_erpsync() {',
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" cmd="${COMP_WORDS[1]}" flags=""',
    '  if [ "$COMP_CWORD" -eq 1 ]; then',
    `    COMPREPLY=($(compgen -W "${commands.map((c) => c.name).join(' ')} --help --version" -- "$cur"))`,
    '    return',
    '  fi',
    '  case "$cmd:$prev" in',
    ...choices,
    `    *:--only|*:--exclude) COMPREPLY=($(compgen -W "${kindWords}" -- "$cur")); return ;;`,
    ...(valueCases.length > 0 ? [`    ${[...new Set(valueCases)].map((f) => `*:${f}`).join('|')}) COMPREPLY=(); return ;;`] : []),
    '  esac',
    '  case "$cmd" in',
    ...commands.map((c) => `    ${c.name}) flags="${c.flags.map((f) => f.flag).join(' ')}" ;;`),
    '  esac',
    '  if [[ "$cur" == -* ]]; then',
    '    COMPREPLY=($(compgen -W "$flags" -- "$cur"))',
    '  else',
    '    COMPREPLY=($(compgen -f -- "$cur"))',
    '  fi',
    '}',
    'complete -o filenames -F _erpsync erpsync',
    '',
  ].join('\n');
}

/** Text inside a zsh `_arguments` spec in single quotes: brackets and colons escaped. */
function zshText(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/'/g, "'\\''").replace(/([[\]:])/g, '\\$1');
}

function zshFlag(flag: FlagSpec): string {
  const repeat = selectionFlags.has(flag.flag) ? '*' : '';
  const head = `${repeat}${flag.flag}[${zshText(flag.description)}]`;
  if (flag.value === undefined) return `'${head}'`;
  const action = selectionFlags.has(flag.flag) ? `(${kindWords})` : takesPath(flag) ? '_files' : choicesOf(flag) ? `(${choicesOf(flag)?.join(' ')})` : ' ';
  return `'${head}:${zshText(flag.value)}:${action}'`;
}

function renderZsh(commands: readonly CompletedCommand[]): string {
  return [
    '#compdef erpsync',
    '# erpsync completion for zsh. Load it with: eval "$(erpsync completion zsh)"',
    '# (or save it as _erpsync in a folder of $fpath).',
    '_erpsync() {',
    '  local -a commands',
    `  commands=(${commands.map((c) => `'${c.name}:${zshText(c.summary)}'`).join(' ')})`,
    '  if (( CURRENT == 2 )); then',
    "    _describe 'command' commands",
    '    return',
    '  fi',
    '  local cmd=$words[2]',
    '  shift words',
    '  (( CURRENT-- ))',
    '  case $cmd in',
    ...commands.map((c) => `    ${c.name}) _arguments ${[...c.flags.map(zshFlag), "'*:file:_files'"].join(' ')} ;;`),
    '  esac',
    '}',
    'if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _erpsync "$@"; else compdef _erpsync erpsync; fi',
    '',
  ].join('\n');
}

function fishText(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function renderFish(commands: readonly CompletedCommand[]): string {
  const lines = [
    '# erpsync completion for fish. Load it with: erpsync completion fish | source',
    '# (or save it as ~/.config/fish/completions/erpsync.fish).',
    'complete -c erpsync -f',
    ...commands.map((c) => `complete -c erpsync -n __fish_use_subcommand -a ${c.name} -d ${fishText(c.summary)}`),
  ];
  for (const command of commands) {
    const when = `-n '__fish_seen_subcommand_from ${command.name}'`;
    for (const flag of command.flags) {
      const value = flag.value === undefined ? '' : selectionFlags.has(flag.flag) ? ` -x -a '${kindWords}'` : takesPath(flag) ? ' -r -F' : choicesOf(flag) ? ` -x -a '${choicesOf(flag)?.join(' ')}'` : ' -x';
      lines.push(`complete -c erpsync ${when} -l ${flag.flag.slice(2)}${value} -d ${fishText(flag.description)}`);
    }
    lines.push(`complete -c erpsync ${when} -F`);
  }
  return `${lines.join('\n')}\n`;
}

export function renderCompletion(shell: Shell, commands: readonly CompletedCommand[]): string {
  switch (shell) {
    case 'bash':
      return renderBash(commands);
    case 'zsh':
      return renderZsh(commands);
    case 'fish':
      return renderFish(commands);
  }
}
