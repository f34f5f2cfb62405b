// Loads the manifests as they were at a git revision (`erpsync drift --baseline REF`): the files
// under the given paths are read from git into a scratch directory laid out like the work tree
// and loaded there, so positions and the digest read as they would have at that revision. A
// target's manifests load as its run loads them now: its layers, with its own variables; a layer
// that did not exist at that revision declared nothing then. Each store of a fleet has its own.
// Effects only (git, a temporary directory); what the baseline means is findDrift's business.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadManifests } from '../manifest/load-manifests.js';
import { hasErrors } from '../model/diagnostics.js';
import { formatPosition } from '../model/diagnostics.js';
import { ErpsyncError } from '../model/errors.js';
import { defaultPolicy } from '../model/desired.js';
import type { DesiredState } from '../model/desired.js';

const run = promisify(execFile);
const manifestExtension = /\.ya?ml$/i;
const emptyDesired: Omit<DesiredState, 'digest'> = { files: [], declaredKinds: new Set(), records: new Map(), policy: defaultPolicy };

export interface Baseline {
  /** As the user named it, with the commit it resolved to: `main (1a2b3c4)`. */
  ref: string;
  desired: DesiredState;
}

/** Runs git in `cwd`; a failure says what could not be read from git (`the baseline`, `the changes since main`). */
export async function git(args: readonly string[], cwd: string, what = 'the baseline'): Promise<Buffer> {
  try {
    const { stdout } = await run('git', [...args], { cwd, encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new ErpsyncError('BASELINE_UNAVAILABLE', `cannot read ${what} from git: git ${args[0] ?? ''} failed${stderr ? `: ${stderr.split('\n')[0] ?? ''}` : ''}`, { cause: error });
  }
}

/** The work tree's root (as reached from `cwd`, links in its path kept) and the commit `ref` names. */
export async function resolveRevision(ref: string, cwd: string, what = 'the baseline'): Promise<{ root: string; commit: string }> {
  const root = path.resolve(cwd, (await git(['rev-parse', '--show-cdup'], cwd, what)).toString().trim());
  const commit = (await git(['rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`], cwd, what)).toString().trim();
  return { root, commit };
}

/** The manifests a run reads (read-and-plan's manifestPathsOf): paths, and whether each is a layer. */
export interface BaselineSource {
  paths: readonly string[];
  layers: boolean;
}

export interface BaselineOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The target's declared variables, as its manifests read them now. */
  variables?: Readonly<Record<string, string>>;
}

export async function loadBaseline(ref: string, source: BaselineSource, options: BaselineOptions): Promise<Baseline> {
  const { root, commit } = await resolveRevision(ref, options.cwd);
  const given = source.paths.length > 0 ? source.paths : ['.'];
  const inRepo = given.map((p) => path.relative(root, path.resolve(options.cwd, p)).split(path.sep).join('/'));
  if (inRepo.some((p) => p.startsWith('..'))) {
    throw new ErpsyncError('BASELINE_UNAVAILABLE', `the manifests must be inside the git work tree ${root} to compare them with ${ref}`);
  }
  const listed = (await git(['ls-tree', '-r', '-z', '--name-only', '--full-tree', commit, '--', ...inRepo.map((p) => (p === '' ? '.' : p))], root))
    .toString()
    .split('\0')
    .filter((file) => file !== '');
  // Directories are read for their YAML files, as the loader does; a file named outright is read as is.
  const files = listed.filter((file) => manifestExtension.test(file) || inRepo.includes(file));

  const label = `${ref} (${commit.slice(0, 7)})`;
  // No manifests there yet: nothing was declared at that revision, so everything declared now is new.
  if (files.length === 0) return { ref: label, desired: { ...emptyDesired, digest: createHash('sha256').digest('hex') } };

  const scratch = await mkdtemp(path.join(tmpdir(), 'erpsync-baseline-'));
  try {
    for (const file of files) {
      const target = path.join(scratch, ...file.split('/'));
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, await git(['show', `${commit}:${file}`], root));
    }
    const cwd = path.join(scratch, path.relative(root, options.cwd));
    await mkdir(cwd, { recursive: true });
    // Each path as it stood at that revision, in the scratch copy; one that was not there yet is left out.
    const thenPaths = inRepo.filter((p) => p === '' || files.some((file) => file === p || file.startsWith(`${p}/`))).map((p) => path.join(scratch, p));
    const result = await loadManifests(thenPaths, { cwd, env: options.env, ...(options.variables ? { variables: options.variables } : {}), layers: source.layers, offline: true });
    if (!result.desired || hasErrors(result.diagnostics)) {
      const errors = result.diagnostics.filter((d) => d.severity === 'error').slice(0, 5);
      throw new ErpsyncError('BASELINE_UNAVAILABLE', `the manifests at ${label} do not load`, {
        details: errors.map((d) => `${formatPosition(d.position)}: ${d.code}: ${d.message}`),
      });
    }
    return { ref: label, desired: result.desired };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
