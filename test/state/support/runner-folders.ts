// Runners that share nothing but the database (issue 34's must-show tests): each run is a separate
// process of the built CLI in a working folder and HOME of its own, with a lock folder of its own
// (so no lease can be shared through a file), and its own git repository holding the config and
// manifests, so the journal records the revision it applied. Only the variables the test passes
// (the backend's, the accounts' tokens) are common. This module starts nothing but those runs.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startCli } from '../../reliability/support/built-cli.js';

export interface RunnerFolder {
  name: string;
  /** The working folder: the config and manifests, then `.erpsync/` once it ran. */
  dir: string;
  /** What each run of this runner gets: its HOME and lock folder, and the variables given. */
  env: NodeJS.ProcessEnv;
  /** Writes `files` (relative to the working folder) and commits them; returns the new revision. */
  commit(files: Record<string, string>, message: string): string;
  /** Starts the built CLI in the working folder with this runner's variables and `env`. */
  run(args: readonly string[], env?: NodeJS.ProcessEnv): ReturnType<typeof startCli>;
}

const git = (dir: string, args: readonly string[]): string =>
  execFileSync('git', ['-c', 'user.name=Runner', '-c', 'user.email=runner@example.test', ...args], { cwd: dir, encoding: 'utf8' }).trim();

/** A runner's folders under `root/name`, its repository initialised with `files`. */
export function openRunnerFolder(root: string, name: string, env: NodeJS.ProcessEnv, files: Record<string, string>): RunnerFolder {
  const dir = path.join(root, name, 'work');
  const home = path.join(root, name, 'home');
  for (const folder of [dir, home]) mkdirSync(folder, { recursive: true });
  git(dir, ['init', '-q', '-b', 'main']);
  const runnerEnv = { ...env, HOME: home, ERPSYNC_LOCK_DIR: path.join(root, name, 'locks') };
  const runner: RunnerFolder = {
    name,
    dir,
    env: runnerEnv,
    commit(changed, message) {
      for (const [file, text] of Object.entries(changed)) writeFileSync(path.join(dir, file), text);
      git(dir, ['add', '-A']);
      git(dir, ['commit', '-q', '-m', message]);
      return git(dir, ['rev-parse', 'HEAD']);
    },
    run: (args, extra = {}) => startCli(args, { cwd: dir, env: { ...runnerEnv, ...extra } }),
  };
  // What the runs leave in the folder is not part of the manifests' revision.
  runner.commit({ '.gitignore': '.erpsync/\n', ...files }, 'the store configuration');
  return runner;
}
