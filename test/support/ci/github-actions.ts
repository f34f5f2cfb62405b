// Runs a GitHub Actions workflow of the templates as the runner would: its jobs in `needs` order
// (a matrix job once per entry), each step's own `run:` script with `bash -eo pipefail` after its
// `${{ }}` are evaluated, with the variables GitHub sets (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH,
// GITHUB_SHA, GITHUB_REF, GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH, GITHUB_STEP_SUMMARY, GITHUB_ACTOR,
// RUNNER_TEMP, GITHUB_WORKSPACE …), `if:` conditions, step outputs and job outputs. The job's
// GITHUB_TOKEN carries the `permissions:` it asks for (read-only for a fork's pull request, which
// gets no secrets either), and the fake forge refuses what they do not allow. `uses:` steps are
// emulated minimally: checkout fetches the run's commit from the repository (as deep as
// `fetch-depth` says), setup-node does nothing, upload/download-artifact copy folders.
import { cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import type { ChangeRequest, CiWorld } from './ci-world.js';
import { repositoryName, runBash } from './ci-world.js';
import type { Contexts, StatusFunctions, Value } from './github-expressions.js';
import { condition, interpolate, interpolateValue } from './github-expressions.js';

interface StepDefinition {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string | number | boolean>;
  env?: Record<string, string>;
  if?: string | boolean;
}

interface JobDefinition {
  name?: string;
  needs?: string | string[];
  if?: string | boolean;
  permissions?: Record<string, string>;
  concurrency?: { group: string; 'cancel-in-progress'?: boolean };
  strategy?: { matrix: string | Record<string, Value> };
  outputs?: Record<string, string>;
  env?: Record<string, string>;
  steps: StepDefinition[];
}

export interface WorkflowDefinition {
  name: string;
  on: Record<string, unknown>;
  permissions?: Record<string, string>;
  concurrency?: { group: string; 'cancel-in-progress'?: boolean };
  env?: Record<string, string>;
  jobs: Record<string, JobDefinition>;
}

export interface Annotation {
  level: string;
  message: string;
}

export interface StepResult {
  name: string;
  outcome: 'success' | 'failure' | 'skipped';
  code: number | null;
  /** The step's stdout and stderr as the log shows them. */
  log: string;
  /** The environment the step ran with (for the secrets it was given). */
  env: Record<string, string>;
  annotations: Annotation[];
}

export interface JobResult {
  id: string;
  name: string;
  matrix?: Value;
  outcome: 'success' | 'failure' | 'skipped';
  concurrency?: { group: string; cancelInProgress: boolean };
  permissions: Record<string, string>;
  outputs: Record<string, string>;
  steps: StepResult[];
  summary: string;
}

export interface WorkflowResult {
  runId: number;
  jobs: JobResult[];
}

export interface WorkflowRun {
  /** The workflow's path in the repository, e.g. .github/workflows/erpsync-plan.yml. */
  file: string;
  event: string;
  payload: Record<string, Value>;
  sha: string;
  ref: string;
  secrets: Record<string, string>;
  actor?: string;
  /** A fork's pull request: no secrets, a read-only token. */
  fork?: boolean;
}

type Permissions = Record<string, string>;

/** What every job of one run shares. */
interface RunContext {
  world: CiWorld;
  run: WorkflowRun;
  workflow: WorkflowDefinition;
  runId: number;
}

/** The run GitHub starts for a push to a pull request (its test merge commit, refs/pull/N/merge). */
export function pullRequestRun(world: CiWorld, file: string, request: ChangeRequest, secrets: Record<string, string>): WorkflowRun {
  const sha = world.testMerge(request);
  const headRepo = request.fork ? 'contribuidor/lojas' : repositoryName;
  world.updateForge((state) => {
    state.github.pulls = [...state.github.pulls.filter((p) => p.number !== request.number), { number: request.number, head: request.head, base: request.base, mergeCommit: null, fork: request.fork }];
  });
  const payload = { action: 'synchronize', number: request.number, pull_request: { number: request.number, base: { sha: request.base, ref: 'main' }, head: { sha: request.head, ref: request.branch, repo: { full_name: headRepo, fork: request.fork } } } };
  return { file, event: 'pull_request', payload, sha, ref: `refs/pull/${request.number}/merge`, secrets: request.fork ? {} : secrets, fork: request.fork };
}

/** The run GitHub starts when the request is merged into main. */
export function mergeRun(world: CiWorld, file: string, request: ChangeRequest, secrets: Record<string, string>): WorkflowRun {
  const sha = world.merge(request);
  world.updateForge((state) => {
    const pull = state.github.pulls.find((p) => p.number === request.number);
    if (pull) pull.mergeCommit = sha;
  });
  return { file, event: 'push', payload: { ref: 'refs/heads/main', after: sha, head_commit: { id: sha } }, sha, ref: 'refs/heads/main', secrets };
}

export function readWorkflow(world: CiWorld, file: string, sha: string): WorkflowDefinition {
  return parse(world.git('show', `${sha}:${file}`)) as WorkflowDefinition;
}

/** Runs the workflow's jobs in order; a job whose needs failed is skipped, as GitHub does. */
export async function runWorkflow(world: CiWorld, run: WorkflowRun): Promise<WorkflowResult> {
  const workflow = readWorkflow(world, run.file, run.sha);
  const runId = world.runId();
  const results: JobResult[] = [];
  const needsOf = (job: JobDefinition) => (job.needs === undefined ? [] : [job.needs].flat());
  const done = new Map<string, JobResult>();
  const pending = Object.keys(workflow.jobs);
  while (pending.length > 0) {
    const next = pending.findIndex((id) => needsOf(workflow.jobs[id] as JobDefinition).every((need) => done.has(need)));
    if (next < 0) throw new Error(`${run.file}: jobs whose needs never finish: ${pending.join(', ')}`);
    const [id] = pending.splice(next, 1) as [string];
    const job = workflow.jobs[id] as JobDefinition;
    const needs: Record<string, Value> = Object.fromEntries(needsOf(job).map((need) => [need, { result: done.get(need)?.outcome ?? null, outputs: done.get(need)?.outputs ?? {} }]));
    const instances = await runJob({ world, run, workflow, runId }, id, job, needs);
    results.push(...instances);
    const failed = instances.some((i) => i.outcome === 'failure');
    const all = instances.every((i) => i.outcome === 'skipped');
    done.set(id, { ...(instances.at(-1) as JobResult), outcome: failed ? 'failure' : all ? 'skipped' : 'success' });
  }
  return { runId, jobs: results };
}

function baseContexts(world: CiWorld, run: WorkflowRun, runId: number, workspace: string, temp: string, token: string): Contexts {
  return {
    github: {
      event_name: run.event,
      event: run.payload,
      sha: run.sha,
      ref: run.ref,
      repository: repositoryName,
      run_id: String(runId),
      actor: run.actor ?? 'dev',
      token,
      workspace,
      server_url: 'https://github.com',
    },
    secrets: { ...run.secrets, GITHUB_TOKEN: token },
    runner: { temp, os: 'Linux' },
    vars: {},
  };
}

async function runJob(context: RunContext, id: string, job: JobDefinition, needs: Record<string, Value>): Promise<JobResult[]> {
  const { world, run, workflow, runId } = context;
  const permissions = grantedPermissions(job.permissions ?? workflow.permissions ?? { contents: 'read' }, run.fork === true);
  const needsPassed = Object.values(needs).every((n) => (n as { result: string }).result === 'success');
  const probe = { ...baseContexts(world, run, runId, '', '', ''), needs };
  const status: StatusFunctions = { success: () => needsPassed, failure: () => !needsPassed };
  const skipped = (): JobResult[] => [{ id, name: job.name ?? id, outcome: 'skipped', permissions, outputs: {}, steps: [], summary: '' }];
  if (!condition(job.if, probe, status)) return skipped();
  const matrix = job.strategy ? interpolateValue(typeof job.strategy.matrix === 'string' ? job.strategy.matrix : JSON.stringify(job.strategy.matrix), probe) : null;
  const entries: (Value | undefined)[] = matrix === null ? [undefined] : (((matrix as { include?: Value[] }).include ?? []) as Value[]);
  const results: JobResult[] = [];
  for (const [index, entry] of entries.entries()) results.push(await runJobInstance(context, { id, job, needs, permissions, matrix: entry, index }));
  return results;
}

/** What the job's GITHUB_TOKEN may do: what it asks for, read-only for a fork's pull request. */
function grantedPermissions(asked: Permissions, fork: boolean): Permissions {
  return Object.fromEntries(Object.entries(asked).map(([scope, level]) => [scope, fork && level === 'write' ? 'read' : level]));
}

/** GitHub's variables for a job's steps. */
function runnerVariables(context: RunContext, id: string, workspace: string, temp: string, eventPath: string): Record<string, string> {
  const { world, run, workflow, runId } = context;
  return {
    ...world.machineEnv(),
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: run.event,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_SHA: run.sha,
    GITHUB_REF: run.ref,
    GITHUB_REPOSITORY: repositoryName,
    GITHUB_RUN_ID: String(runId),
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_JOB: id,
    GITHUB_WORKFLOW: workflow.name,
    GITHUB_ACTOR: run.actor ?? 'dev',
    GITHUB_WORKSPACE: workspace,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: 'https://api.github.com',
    RUNNER_TEMP: temp,
    RUNNER_OS: 'Linux',
  };
}

interface JobInstance {
  id: string;
  job: JobDefinition;
  needs: Record<string, Value>;
  permissions: Permissions;
  matrix: Value | undefined;
  index: number;
}

async function runJobInstance(context: RunContext, { id, job, needs, permissions, matrix, index }: JobInstance): Promise<JobResult> {
  const { world, run, workflow, runId } = context;
  const runner = path.join(world.root, 'runners', `${runId}-${id}-${index}`);
  const workspace = path.join(runner, 'work');
  const temp = path.join(runner, 'temp');
  mkdirSync(workspace, { recursive: true });
  mkdirSync(temp, { recursive: true });
  const token = `ghs_fake_${runId}_${id}_${index}`;
  world.updateForge((state) => void (state.github.tokens[token] = permissions));
  const eventPath = path.join(temp, 'event.json');
  writeFileSync(eventPath, JSON.stringify(run.payload));
  const stepsContext: Record<string, Value> = {};
  const contexts: Contexts = { ...baseContexts(world, run, runId, workspace, temp, token), needs, steps: stepsContext, matrix: matrix ?? null, strategy: { 'job-index': index }, env: {} };
  const evaluateEnv = (env: Record<string, string> | undefined) => Object.fromEntries(Object.entries(env ?? {}).map(([k, v]) => [k, interpolate(String(v), contexts)]));
  const workflowEnv = evaluateEnv(workflow.env);
  contexts.env = workflowEnv;
  const jobEnv = { ...workflowEnv, ...evaluateEnv(job.env) };
  contexts.env = jobEnv;
  const githubEnv = runnerVariables(context, id, workspace, temp, eventPath);
  const added: { env: Record<string, string>; path: string[] } = { env: {}, path: [] };
  const steps: StepResult[] = [];
  let failed = false;
  let summary = '';
  for (const [n, step] of job.steps.entries()) {
    const status: StatusFunctions = { success: () => !failed, failure: () => failed };
    const stepEnv = { ...jobEnv, ...added.env, ...evaluateEnv(step.env) };
    contexts.env = stepEnv;
    const name = interpolate(step.name ?? step.uses ?? step.run?.split('\n')[0] ?? `step ${n + 1}`, contexts);
    if (!condition(step.if, contexts, status)) {
      steps.push({ name, outcome: 'skipped', code: null, log: '', env: {}, annotations: [] });
      if (step.id) stepsContext[step.id] = { outcome: 'skipped', conclusion: 'skipped', outputs: {} };
      continue;
    }
    const files = { GITHUB_OUTPUT: path.join(temp, `output-${n}`), GITHUB_ENV: path.join(temp, `env-${n}`), GITHUB_PATH: path.join(temp, `path-${n}`), GITHUB_STEP_SUMMARY: path.join(temp, `summary-${n}`) };
    for (const file of Object.values(files)) writeFileSync(file, '');
    const env = { ...githubEnv, ...stepEnv, ...files, PATH: [...added.path, githubEnv.PATH].join(':') };
    const result = step.uses
      ? await emulateAction(world, run, runId, step, contexts, workspace)
      : await runBash(interpolate(step.run ?? '', contexts), env, workspace, path.join(temp, `step-${n}.sh`), ['--noprofile', '--norc', '-eo', 'pipefail']);
    const outputs = readKeyValues(files.GITHUB_OUTPUT);
    Object.assign(added.env, readKeyValues(files.GITHUB_ENV));
    added.path.unshift(...readFileSync(files.GITHUB_PATH, 'utf8').split('\n').filter(Boolean).reverse());
    summary += readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8');
    const outcome = result.code === 0 ? 'success' : 'failure';
    failed ||= outcome === 'failure';
    // The runner takes its workflow commands out of the log; `::add-mask::` values are left
    // unmasked here, so a test sees a secret that reached the log.
    const log = result.log.replace(/^::add-mask::.*\n?/gm, '');
    steps.push({ name, outcome, code: result.code, log, env, annotations: annotationsIn(log) });
    if (step.id) stepsContext[step.id] = { outcome, conclusion: outcome, outputs };
  }
  const outcome = failed ? 'failure' : 'success';
  const outputs = Object.fromEntries(Object.entries(job.outputs ?? {}).map(([k, v]) => [k, interpolate(v, contexts)]));
  const concurrency = job.concurrency ? { group: interpolate(job.concurrency.group, contexts), cancelInProgress: job.concurrency['cancel-in-progress'] === true } : undefined;
  return { id, name: interpolate(job.name ?? id, contexts), ...(matrix === undefined ? {} : { matrix }), outcome, ...(concurrency ? { concurrency } : {}), permissions, outputs, steps, summary };
}

/** GITHUB_OUTPUT and GITHUB_ENV: `name=value` lines and `name<<DELIMITER` blocks. */
function readKeyValues(file: string): Record<string, string> {
  const lines = readFileSync(file, 'utf8').split('\n');
  const values: Record<string, string> = {};
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    const block = /^([^=<]+)<<(.+)$/.exec(line);
    if (block) {
      const end = lines.indexOf(block[2] ?? '', i + 1);
      values[block[1] ?? ''] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (line.includes('=')) values[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
  }
  return values;
}

function annotationsIn(log: string): Annotation[] {
  return [...log.matchAll(/^::(error|warning|notice)(?: [^:]*)?::(.*)$/gm)].map((m) => ({ level: m[1] ?? '', message: (m[2] ?? '').replaceAll('%0A', '\n').replaceAll('%0D', '\r').replaceAll('%25', '%') }));
}

async function emulateAction(world: CiWorld, run: WorkflowRun, runId: number, step: StepDefinition, contexts: Contexts, workspace: string): Promise<{ code: number; log: string }> {
  const inputs = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, interpolate(String(v), contexts)]));
  const [action] = (step.uses ?? '').split('@');
  try {
    if (action === 'actions/checkout') return { code: 0, log: world.checkout(run.sha, Number(inputs['fetch-depth'] ?? 1), workspace) };
    if (action === 'actions/setup-node') return { code: 0, log: `node ${process.version} (the runner's)\n` };
    if (action === 'actions/upload-artifact') return { code: 0, log: uploadArtifact(world, run, runId, inputs, workspace) };
    if (action === 'actions/download-artifact') return { code: 0, log: downloadArtifact(world, runId, inputs, workspace) };
  } catch (error) {
    return { code: 1, log: `::error::${(error as Error).message}\n` };
  }
  throw new Error(`the harness does not emulate uses: ${step.uses ?? ''}`);
}

/** The files of `path:` (lines), relative to their common folder, as upload-artifact keeps them. */
function uploadArtifact(world: CiWorld, run: WorkflowRun, runId: number, inputs: Record<string, string>, workspace: string): string {
  const name = inputs.name ?? 'artifact';
  const paths = (inputs.path ?? '').split('\n').map((p) => p.trim()).filter(Boolean).map((p) => path.resolve(workspace, p));
  const existing = paths.filter((p) => existsSync(p));
  if (existing.length === 0) return `::warning::No files were found with the provided path: ${inputs.path ?? ''}. No artifacts will be uploaded.\n`;
  const root = existing.length === 1 && statSync(existing[0] as string).isDirectory() ? (existing[0] as string) : commonFolder(existing);
  const state = world.forge();
  if (state.github.artifacts.some((a) => a.runId === runId && a.name === name)) throw new Error(`an artifact named ${name} already exists in this run (upload-artifact@v4 refuses)`);
  const id = state.github.artifacts.length + 1;
  const dir = path.join(world.artifacts, String(id));
  for (const source of existing) cpSync(source, path.join(dir, path.relative(root, source)), { recursive: true });
  const pull = (run.payload.pull_request ?? null) as { head?: { sha?: string } } | null;
  world.updateForge((s) => s.github.artifacts.push({ id, name, runId, headSha: pull?.head?.sha ?? run.sha, dir }));
  return `Artifact ${name} (${id}) uploaded\n`;
}

function commonFolder(paths: string[]): string {
  const parts = paths.map((p) => path.dirname(p).split(path.sep));
  const first = parts[0] ?? [];
  let length = first.length;
  for (const other of parts) while (first.slice(0, length).join(path.sep) !== other.slice(0, length).join(path.sep)) length -= 1;
  return first.slice(0, length).join(path.sep);
}

function downloadArtifact(world: CiWorld, runId: number, inputs: Record<string, string>, workspace: string): string {
  const artifact = world.forge().github.artifacts.find((a) => a.runId === runId && a.name === inputs.name);
  if (!artifact) throw new Error(`Unable to download artifact(s): Artifact not found for name: ${inputs.name ?? ''}`);
  cpSync(artifact.dir, path.resolve(workspace, inputs.path ?? '.'), { recursive: true });
  return `Artifact ${artifact.name} downloaded\n`;
}

/** The first step of the run named `name` (jobs in order), for assertions. */
export function stepNamed(result: WorkflowResult, name: string): StepResult {
  const step = result.jobs.flatMap((j) => j.steps).find((s) => s.name === name);
  if (!step) throw new Error(`no step named "${name}" ran; steps: ${result.jobs.flatMap((j) => j.steps.map((s) => s.name)).join(' | ')}`);
  return step;
}
