// `erpsync completion bash|zsh|fish`: the bash script is run in bash as the shell would call it
// (COMP_WORDS / COMP_CWORD); every flag any script offers is one its command accepts; zsh and
// fish (not installed here) are checked for the same commands, flags and kinds.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { describeCommands } from '../../src/cli/completion-command.js';
import { runCli } from '../support/run-cli.js';

const cwd = fileURLToPath(new URL('../../', import.meta.url));
const unknownFlag = /has no option|unknown (option|flag)/i;
const script = async (shell: string) => {
  const run = await runCli(['completion', shell], { cwd });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return run.stdout;
};

/** What bash completes for the words typed so far (the last one being completed). */
function completeInBash(bash: string, words: string[]): string[] {
  const program = `${bash}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _erpsync; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync('bash', ['-c', program], { cwd, encoding: 'utf8' }).split('\n').filter((line) => line !== '');
}

describe('erpsync completion', () => {
  it('bash completes commands, the flags of each command, kinds after --only, and choices', async () => {
    const bash = await script('bash');
    expect(completeInBash(bash, ['erpsync', 'pl'])).toEqual(['plan']);
    expect(completeInBash(bash, ['erpsync', 'c'])).toEqual(['compare', 'completion']);
    expect(completeInBash(bash, ['erpsync', 'plan', '--on'])).toEqual(['--only']);
    expect(completeInBash(bash, ['erpsync', 'drift', '--ex'])).toEqual(['--exclude']);
    expect(completeInBash(bash, ['erpsync', 'apply', '--only', 'grupos'])).toEqual(['gruposProdutos']);
    expect(completeInBash(bash, ['erpsync', 'plan', '--format', 'm'])).toEqual(['markdown']);
    expect(completeInBash(bash, ['erpsync', 'apply', '--ou'])).toEqual(['--outcome-wait']);
    expect(completeInBash(bash, ['erpsync', 'plan', '--max-deletes', ''])).toEqual([]);
  });

  it('offers only flags the commands accept: each one, given to its command with --help, is taken', async () => {
    const bash = await script('bash');
    const offered = [...bash.matchAll(/^ {4}([a-z]+)\) flags="([^"]*)"/gm)].map((m) => ({ command: m[1] ?? '', flags: (m[2] ?? '').split(' ') }));
    expect(offered.map((o) => o.command)).toEqual(['validate', 'plan', 'apply', 'drift', 'export', 'compare', 'import', 'doctor', 'sandbox', 'targets', 'login', 'backend', 'history', 'report', 'completion']);
    for (const { command, flags } of offered) {
      const help = (await runCli([command, '--help'], { cwd })).stdout;
      const specs = new Map((describeCommands().find((c) => c.name === command)?.flags ?? []).map((f) => [f.flag, f]));
      for (const flag of flags) {
        expect(help, `${command} --help lists ${flag}`).toMatch(new RegExp(`^ {2}(-\\w, )?${flag}\\b`, "m"));
        const value = specs.get(flag)?.value;
        // Some commands check a flag's value before --help (sandbox): only an unknown flag fails this.
        const run = await runCli([command, flag, ...(value === undefined ? [] : ['1']), '--help'], { cwd });
        expect(run.stderr, `${command} ${flag}`).not.toMatch(unknownFlag);
      }
      expect((await runCli([command, '--no-such-flag', '--help'], { cwd })).stderr).toMatch(unknownFlag);
    }
  });

  it('zsh and fish name the same commands and flags, with kinds after --only/--exclude', async () => {
    const zsh = await script('zsh');
    expect(zsh.split('\n')[0]).toBe('#compdef erpsync');
    expect(zsh).toContain("'plan:show what apply would change in the account'");
    expect(zsh).toMatch(/ {4}plan\) _arguments .*'\*--only\[only these records[^']*\]:KIND\\\[\/IDENTITY\\\]:\(formasPagamentos [^)]*gruposProdutos[^)]*\)'/);
    expect(zsh).toMatch(/ {4}apply\) _arguments .*'--auto-approve\[/);
    const fish = await script('fish');
    expect(fish).toContain("complete -c erpsync -n __fish_use_subcommand -a drift -d 'report how the account drifted from the manifests (changes nothing)'");
    expect(fish).toMatch(/complete -c erpsync -n '__fish_seen_subcommand_from drift' -l only -x -a '[^']*gruposProdutos[^']*' -d /);
    expect(fish).toContain("complete -c erpsync -n '__fish_seen_subcommand_from plan' -l out -r -F -d ");
    expect(fish).toContain("complete -c erpsync -n '__fish_seen_subcommand_from plan' -l format -x -a 'text markdown'");
  });

  it('refuses a shell it does not know', async () => {
    const run = await runCli(['completion', 'tcsh'], { cwd });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('completion takes one shell: bash, zsh, fish, not `tcsh`');
  });
});
