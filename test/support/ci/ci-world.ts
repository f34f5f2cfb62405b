// The world a CI template runs in, for the harness: the repository (a git repo standing for the
// forge's copy, with its pull/merge requests as branches), the forge itself (a JSON file that
// test/support/ci/fake-forge.mjs answers `gh` and `glab` from and logs every call beside), and the
// runner machine's PATH, where `gh`, `glab` and `npm` are that fake and `node` the test's own.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const repositoryName = 'agencia/lojas';
export const gitlabProjectId = 4242;

export interface GitHubIssue {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  labels: string[];
  assignees: string[];
}

export interface GitLabIssue {
  iid: number;
  title: string;
  description: string;
  state: 'opened' | 'closed';
  labels: string[];
  assignees: { username: string }[];
}

export interface ForgeState {
  github: {
    repository: string;
    nextId: number;
    nextNumber: number;
    comments: { id: number; issue: number; body: string }[];
    issues: GitHubIssue[];
    labels: string[];
    collaborators: string[];
    pulls: { number: number; head: string; base: string; mergeCommit: string | null; fork: boolean }[];
    artifacts: { id: number; name: string; runId: number; headSha: string; dir: string }[];
    tokens: Record<string, Record<string, string>>;
  };
  gitlab: {
    projectId: number;
    token: string;
    nextId: number;
    nextIid: number;
    notes: { id: number; mr: number; body: string; system: boolean }[];
    issueNotes: { id: number; issue: number; body: string }[];
    issues: GitLabIssue[];
    users: { id: number; username: string }[];
    mergeRequests: { iid: number; sha: string; base: string; mergeCommit: string | null; fork: boolean; branch: string }[];
    pipelines: { id: number; mr: number | null; sha: string; status: string; jobs: { id: number; name: string; status: string; artifactsDir?: string }[] }[];
  };
}

export interface ForgeCall {
  tool: string;
  args: string[];
  cwd: string;
  exit: number;
}

/** A pull request (GitHub) or merge request (GitLab): its branch and commits. */
export interface ChangeRequest {
  number: number;
  branch: string;
  base: string;
  head: string;
  fork: boolean;
}

const packageRoot = path.resolve(import.meta.dirname, '../../..');
const fakeForge = path.join(import.meta.dirname, 'fake-forge.mjs');
const gitIdentity = { GIT_AUTHOR_NAME: 'Dev', GIT_AUTHOR_EMAIL: 'dev@agencia.invalid', GIT_COMMITTER_NAME: 'Dev', GIT_COMMITTER_EMAIL: 'dev@agencia.invalid' };

export class CiWorld {
  readonly origin: string;
  readonly forgeFile: string;
  readonly artifacts: string;
  private readonly bin: string;
  private nextRunId = 7000;

  private constructor(readonly root: string) {
    this.origin = path.join(root, 'origin');
    this.forgeFile = path.join(root, 'forge.json');
    this.artifacts = path.join(root, 'artifacts');
    this.bin = path.join(root, 'bin');
  }

  /** An empty repository on `main` and a forge that knows it; `collaborators` can be assigned issues. */
  static create(collaborators: string[] = []): CiWorld {
    const world = new CiWorld(mkdtempSync(path.join(tmpdir(), 'erpsync-ci-')));
    for (const dir of [world.origin, world.artifacts, world.bin, path.join(world.root, 'home')]) mkdirSync(dir, { recursive: true });
    world.git('init', '-q', '-b', 'main');
    // The runners fetch the exact commit a run is for, merge refs included, as GitHub's checkout does.
    world.git('config', 'uploadpack.allowAnySHA1InWant', 'true');
    for (const tool of ['gh', 'glab', 'npm']) {
      writeFileSync(path.join(world.bin, tool), `#!/bin/sh\nexec "${process.execPath}" "${fakeForge}" ${tool} "$@"\n`);
      chmodSync(path.join(world.bin, tool), 0o755);
    }
    const state: ForgeState = {
      github: { repository: repositoryName, nextId: 9001, nextNumber: 100, comments: [], issues: [], labels: [], collaborators, pulls: [], artifacts: [], tokens: {} },
      gitlab: {
        projectId: gitlabProjectId,
        token: 'glpat-fake-project-token',
        nextId: 5001,
        nextIid: 1,
        notes: [],
        issueNotes: [],
        issues: [],
        users: collaborators.map((username, i) => ({ id: 300 + i, username })),
        mergeRequests: [],
        pipelines: [],
      },
    };
    writeFileSync(world.forgeFile, JSON.stringify(state, null, 2));
    return world;
  }

  git(...args: string[]): string {
    return execFileSync('git', args, { cwd: this.origin, encoding: 'utf8', env: { ...process.env, ...gitIdentity } }).trim();
  }

  /** Writes (or, for null, deletes) files on `branch` and commits them; the new commit's sha. */
  commit(files: Record<string, string | null>, message: string, branch = 'main'): string {
    if (this.git('symbolic-ref', '--short', 'HEAD') !== branch) this.git('checkout', '-q', branch);
    for (const [file, text] of Object.entries(files)) {
      const full = path.join(this.origin, file);
      if (text === null) rmSync(full);
      else {
        mkdirSync(path.dirname(full), { recursive: true });
        writeFileSync(full, text);
      }
    }
    this.git('add', '-A');
    this.git('commit', '-q', '-m', message);
    const sha = this.git('rev-parse', 'HEAD');
    // The repository stays on main between changes: what an operator runs by hand runs on main.
    if (branch !== 'main') this.git('checkout', '-q', 'main');
    return sha;
  }

  /** A branch off main with `files` changed: the request's first push. */
  openRequest(number: number, files: Record<string, string | null>, options: { fork?: boolean } = {}): ChangeRequest {
    const branch = `change-${number}`;
    const base = this.git('rev-parse', 'main');
    this.git('branch', branch, 'main');
    const head = this.commit(files, `change ${number}`, branch);
    return { number, branch, base, head, fork: options.fork === true };
  }

  /** Another push to the request's branch. */
  push(request: ChangeRequest, files: Record<string, string | null>): ChangeRequest {
    return { ...request, head: this.commit(files, `change ${request.number}, again`, request.branch) };
  }

  /** The commit GitHub makes to test a pull request (refs/pull/N/merge): its head merged into the base branch. */
  testMerge(request: ChangeRequest): string {
    const tree = this.git('merge-tree', '--write-tree', 'main', request.head);
    const merge = this.git('commit-tree', tree, '-p', this.git('rev-parse', 'main'), '-p', request.head, '-m', `Merge ${request.head} into main`);
    this.git('update-ref', `refs/pull/${request.number}/merge`, merge);
    return merge;
  }

  /** Merges the request into main (a merge commit); its sha. */
  merge(request: ChangeRequest): string {
    this.git('checkout', '-q', 'main');
    this.git('merge', '-q', '--no-ff', '-m', `Merge #${request.number}`, request.branch);
    return this.git('rev-parse', 'HEAD');
  }

  /** The commit `sha` in `dir`, with `depth` commits of history (0: all), as a runner fetches it. */
  checkout(sha: string, depth: number, dir: string): string {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env: this.machineEnv(), encoding: 'utf8' });
    git('init', '-q');
    git('fetch', '-q', ...(depth > 0 ? [`--depth=${depth}`] : []), `file://${this.origin}`, sha);
    git('checkout', '-q', '--detach', 'FETCH_HEAD');
    return `checked out ${sha}\n`;
  }

  runId(): number {
    return this.nextRunId++;
  }

  forge(): ForgeState {
    return JSON.parse(readFileSync(this.forgeFile, 'utf8')) as ForgeState;
  }

  updateForge(change: (state: ForgeState) => void): void {
    const state = this.forge();
    change(state);
    writeFileSync(this.forgeFile, JSON.stringify(state, null, 2));
  }

  /** Every `gh`, `glab` and `npm` call the templates made, in order. */
  calls(): ForgeCall[] {
    try {
      return readFileSync(`${this.forgeFile}.calls.jsonl`, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as ForgeCall);
    } catch {
      return [];
    }
  }

  /** What a runner machine has: the fake tools first on PATH, a home of its own, the package under test. */
  machineEnv(): Record<string, string> {
    return {
      PATH: [this.bin, path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
      HOME: path.join(this.root, 'home'),
      LANG: 'C.UTF-8',
      ERPSYNC_FAKE_FORGE: this.forgeFile,
      ERPSYNC_FAKE_PACKAGE: packageRoot,
      ...gitIdentity,
    };
  }

  close(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** Runs a job's script with bash (`options` as the CI passes them); its exit code and its log (stdout and stderr as they came). */
export function runBash(script: string, env: Record<string, string>, cwd: string, file: string, options: string[]): Promise<{ code: number; log: string }> {
  writeFileSync(file, script);
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [...options, file], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? 1, log }));
  });
}
