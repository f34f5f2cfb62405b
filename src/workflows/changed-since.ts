// `--changed-since REF`: the targets whose manifests or config entry changed between the git
// revision REF and the working tree (committed, staged, unstaged and untracked files alike). This
// is the edge: it asks git which files changed and what the config was at REF, reads the config as
// it is, and leaves the deciding to target/changed-targets (pure).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { TargetsConfig } from '../api/index.js';
import { DEFAULT_CONFIG_FILE } from '../api/index.js';
import { git, resolveRevision } from '../drift/load-baseline.js';
import { displayPath } from '../manifest/find-files.js';
import { checkConfigText } from '../manifest/load-config.js';
import type { RunIO } from '../model/run-io.js';
import type { TouchedTarget } from '../target/changed-targets.js';
import { compareConfigs, touchedTargets } from '../target/changed-targets.js';
import { describeTargetManifests } from '../target/resolve-target.js';
import { manifestPathsOf } from './read-and-plan.js';

export interface ChangedSinceRequest {
  ref: string;
  /** The config file as the command line names it (default erpsync.config.yaml). */
  configFile: string | undefined;
  /** Manifest paths given on the command line: every target reads them instead of its own. */
  paths: readonly string[];
}

/** The targets of `names` (kept in their order) that the changes since `ref` touch, each with why. */
export async function targetsChangedSince(request: ChangedSinceRequest, config: TargetsConfig, names: readonly string[], io: RunIO): Promise<TouchedTarget[]> {
  const what = `the changes since ${request.ref}`;
  const configFile = path.resolve(io.cwd, request.configFile ?? DEFAULT_CONFIG_FILE);
  // The repository the config is in, wherever the command runs from.
  const { root, commit } = await resolveRevision(request.ref, path.dirname(configFile), what);
  const listed = async (args: string[]) => (await git(args, root, what)).toString().split('\0').filter((file) => file !== '');
  const changed = [
    ...(await listed(['diff', '--name-only', '--no-renames', '-z', commit, '--'])),
    ...(await listed(['ls-files', '--others', '--exclude-standard', '-z'])),
  ].map((file) => path.join(root, ...file.split('/')));

  const configShown = displayPath(configFile, io.cwd);
  const inRepo = path.relative(root, configFile).split(path.sep).join('/');
  const before = await configAt(commit, inRepo, root, what);
  const after = parsedConfig(configShown, await readFile(configFile));

  const reads = names.map((name) => {
    const target = describeTargetManifests(config, name);
    const manifests = manifestPathsOf(request.paths, target).paths.map((p) => path.resolve(io.cwd, p));
    return { target: name, manifests, envFile: target.envFile };
  });
  return touchedTargets(changed, reads, compareConfigs(before, after), configShown, (file) => displayPath(file, io.cwd));
}

/** The config at the commit, as parsed; `null` when it was not there, or not a config erpsync could read then (every target counts as changed). */
async function configAt(commit: string, file: string, root: string, what: string): Promise<unknown> {
  const present = (await git(['ls-tree', '--name-only', '-z', commit, '--', file], root, what)).length > 0;
  if (!present) return null;
  return parsedConfig(`${commit.slice(0, 7)}:${file}`, await git(['show', `${commit}:${file}`], root, what)) ?? null;
}

function parsedConfig(shown: string, bytes: Uint8Array): unknown {
  return checkConfigText(shown, bytes).value ?? null;
}
