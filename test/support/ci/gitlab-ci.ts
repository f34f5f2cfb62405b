// Runs a pipeline of the GitLab template as a GitLab runner would: the jobs whose `rules:` match
// the pipeline's source, stage by stage and `needs` first, `parallel: N` as N jobs
// (CI_NODE_INDEX/CI_NODE_TOTAL); each job a fresh clone of the commit (GIT_DEPTH deep), the
// artifacts of the jobs it depends on restored, `before_script` + `script` run by bash with
// `set -eo pipefail`, with GitLab's predefined variables (CI_PIPELINE_SOURCE, CI_COMMIT_SHA,
// CI_MERGE_REQUEST_IID, CI_MERGE_REQUEST_DIFF_BASE_SHA, CI_PROJECT_DIR, CI_JOB_URL, GITLAB_USER_LOGIN …),
// the file's `variables:` and the project's CI/CD variables (a File variable as a path to its
// content). A fork's merge request runs in the fork's project: none of the project's variables.
// The pipeline and its jobs' artifacts are entered in the fake forge, where `glab api` finds them.
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import type { ChangeRequest, CiWorld } from './ci-world.js';
import { gitlabProjectId, runBash } from './ci-world.js';

interface JobDefinition {
  stage?: string;
  rules?: { if?: string; when?: string }[];
  needs?: (string | { job: string })[];
  parallel?: number;
  resource_group?: string;
  variables?: Record<string, string>;
  before_script?: string[];
  script: string[];
  artifacts?: { paths?: string[]; when?: string };
}

interface PipelineDefinition {
  stages?: string[];
  variables?: Record<string, string>;
  default?: { before_script?: string[] };
  [job: string]: unknown;
}

const keywords = new Set(['stages', 'variables', 'default', 'workflow', 'include', 'image', 'services', 'cache', 'before_script', 'after_script']);

export interface PipelineRun {
  source: 'merge_request_event' | 'push' | 'schedule';
  sha: string;
  branch?: string;
  request?: ChangeRequest;
  /** The project's CI/CD variables (a fork's pipeline gets none). */
  variables: Record<string, { value: string; file?: boolean }>;
  user?: string;
}

export interface GitLabJobResult {
  name: string;
  id: number;
  outcome: 'success' | 'failure';
  log: string;
  resourceGroup?: string;
  env: Record<string, string>;
}

export interface PipelineResult {
  id: number;
  jobs: GitLabJobResult[];
}

/** The pipeline GitLab runs for a push to a merge request (a detached one, on its head commit). */
export function mergeRequestPipeline(world: CiWorld, request: ChangeRequest, variables: PipelineRun['variables']): PipelineRun {
  world.updateForge((state) => {
    state.gitlab.mergeRequests = [...state.gitlab.mergeRequests.filter((m) => m.iid !== request.number), { iid: request.number, sha: request.head, base: request.base, mergeCommit: null, fork: request.fork, branch: request.branch }];
  });
  return { source: 'merge_request_event', sha: request.head, request, variables: request.fork ? {} : variables };
}

/** The pipeline of main after the merge request is merged. */
export function mergePipeline(world: CiWorld, request: ChangeRequest, variables: PipelineRun['variables']): PipelineRun {
  const sha = world.merge(request);
  world.updateForge((state) => {
    const mr = state.gitlab.mergeRequests.find((m) => m.iid === request.number);
    if (mr) mr.mergeCommit = sha;
  });
  return { source: 'push', sha, branch: 'main', variables };
}

/** GitLab's `rules: if:` expressions: `$VAR`, quoted strings, `==`, `!=`, `&&`, `||`, parentheses. */
export function ruleMatches(expression: string, variables: Record<string, string>): boolean {
  const tokens = [...expression.matchAll(/\s*(\$\w+|"[^"]*"|'[^']*'|==|!=|&&|\|\||\(|\)|null|\S+)/g)].map((m) => m[1] ?? '');
  let at = 0;
  const value = (): string | null => {
    const token = tokens[at++] ?? '';
    if (token.startsWith('$')) return variables[token.slice(1)] ?? null;
    if (/^["']/.test(token)) return token.slice(1, -1);
    if (token === 'null') return null;
    throw new Error(`the harness cannot read the rule \`${expression}\` at \`${token}\``);
  };
  const comparison = (): boolean => {
    if (tokens[at] === '(') {
      at += 1;
      const inner = or();
      at += 1;
      return inner;
    }
    const left = value();
    const op = tokens[at];
    if (op !== '==' && op !== '!=') return left !== null && left !== '';
    at += 1;
    const right = value();
    return op === '==' ? left === right : left !== right;
  };
  const and = (): boolean => {
    let result = comparison();
    while (tokens[at] === '&&') {
      at += 1;
      result = comparison() && result;
    }
    return result;
  };
  const or = (): boolean => {
    let result = and();
    while (tokens[at] === '||') {
      at += 1;
      result = and() || result;
    }
    return result;
  };
  return or();
}

/** `$VAR` and `${VAR}` in a value, from the variables known so far. */
function expand(text: string, variables: Record<string, string>): string {
  return text.replace(/\$\{?(\w+)\}?/g, (whole, name: string) => variables[name] ?? whole);
}

function included(job: JobDefinition, variables: Record<string, string>): boolean {
  if (!job.rules) return true;
  const rule = job.rules.find((r) => r.if === undefined || ruleMatches(r.if, variables));
  return rule !== undefined && rule.when !== 'never' && rule.when !== 'manual';
}

export function readPipeline(world: CiWorld, sha: string): PipelineDefinition {
  return parse(world.git('show', `${sha}:.gitlab-ci.yml`)) as PipelineDefinition;
}

export async function runPipeline(world: CiWorld, run: PipelineRun): Promise<PipelineResult> {
  const pipeline = readPipeline(world, run.sha);
  const id = world.runId();
  const predefined = predefinedVariables(world, run, id);
  const jobs = Object.entries(pipeline).filter(([name]) => !keywords.has(name) && !name.startsWith('.')) as [string, JobDefinition][];
  const stages = pipeline.stages ?? ['build', 'test', 'deploy'];
  // Rules see the pipeline's variables too: the project's, and a schedule's own (ERPSYNC_SCHEDULE).
  const ruleVariables = { ...predefined, ...Object.fromEntries(Object.entries(run.variables).filter(([, v]) => !v.file).map(([k, v]) => [k, v.value])) };
  const chosen = jobs.filter(([, job]) => included(job, ruleVariables)).sort(([, a], [, b]) => stages.indexOf(a.stage ?? 'test') - stages.indexOf(b.stage ?? 'test'));
  const results: GitLabJobResult[] = [];
  const finished = new Map<string, { artifacts: string[]; outcome: string }>();
  world.updateForge((state) => void state.gitlab.pipelines.push({ id, mr: run.request?.number ?? null, sha: run.sha, status: 'running', jobs: [] }));
  for (const [name, job] of ordered(chosen)) {
    const needs = job.needs?.map((n) => (typeof n === 'string' ? n : n.job));
    const dependencies = [...finished].filter(([other]) => (needs ? needs.includes(other) : stages.indexOf((pipeline[other] as JobDefinition).stage ?? 'test') < stages.indexOf(job.stage ?? 'test')));
    if (dependencies.some(([, d]) => d.outcome !== 'success')) break;
    const count = job.parallel ?? 1;
    const done: GitLabJobResult[] = [];
    for (let index = 1; index <= count; index += 1) {
      const node: Record<string, string> = count > 1 ? { CI_NODE_INDEX: String(index), CI_NODE_TOTAL: String(count) } : {};
      done.push(await runJob(world, run, pipeline, id, count > 1 ? `${name} ${index}/${count}` : name, job, { ...predefined, ...node }, dependencies.flatMap(([, d]) => d.artifacts)));
    }
    results.push(...done);
    finished.set(name, { artifacts: done.map((d) => artifactsDir(world, d.id)), outcome: done.every((d) => d.outcome === 'success') ? 'success' : 'failure' });
  }
  const status = results.every((r) => r.outcome === 'success') && results.length === chosen.reduce((n, [, j]) => n + (j.parallel ?? 1), 0) ? 'success' : 'failed';
  world.updateForge((state) => {
    const entry = state.gitlab.pipelines.find((p) => p.id === id);
    if (entry) entry.status = status;
  });
  return { id, jobs: results };
}

/** The jobs in an order that runs each after the ones it `needs` (and the earlier stages). */
function ordered(jobs: [string, JobDefinition][]): [string, JobDefinition][] {
  const result: [string, JobDefinition][] = [];
  const pending = [...jobs];
  while (pending.length > 0) {
    const next = pending.findIndex(([, job]) => (job.needs ?? []).every((n) => result.some(([done]) => done === (typeof n === 'string' ? n : n.job))));
    if (next < 0) throw new Error(`jobs whose needs are not in the pipeline: ${pending.map(([n]) => n).join(', ')}`);
    result.push(...pending.splice(next, 1));
  }
  return result;
}

function predefinedVariables(world: CiWorld, run: PipelineRun, pipelineId: number): Record<string, string> {
  const projectId = run.request?.fork ? String(gitlabProjectId + 1) : String(gitlabProjectId);
  const request: Record<string, string> = run.request
    ? {
        CI_MERGE_REQUEST_IID: String(run.request.number),
        CI_MERGE_REQUEST_DIFF_BASE_SHA: run.request.base,
        CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: run.request.branch,
        CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
        CI_MERGE_REQUEST_PROJECT_ID: String(gitlabProjectId),
        CI_MERGE_REQUEST_SOURCE_PROJECT_ID: projectId,
      }
    : { CI_COMMIT_BRANCH: run.branch ?? 'main' };
  return {
    ...world.machineEnv(),
    CI: 'true',
    GITLAB_CI: 'true',
    CI_SERVER_URL: 'https://gitlab.example',
    CI_SERVER_HOST: 'gitlab.example',
    CI_API_V4_URL: 'https://gitlab.example/api/v4',
    CI_PROJECT_ID: projectId,
    CI_PROJECT_PATH: 'agencia/lojas',
    CI_DEFAULT_BRANCH: 'main',
    CI_PIPELINE_SOURCE: run.source,
    CI_PIPELINE_ID: String(pipelineId),
    CI_PIPELINE_URL: `https://gitlab.example/agencia/lojas/-/pipelines/${pipelineId}`,
    CI_COMMIT_SHA: run.sha,
    CI_COMMIT_SHORT_SHA: run.sha.slice(0, 8),
    CI_COMMIT_REF_NAME: run.request ? run.request.branch : (run.branch ?? 'main'),
    GITLAB_USER_LOGIN: run.user ?? 'dev',
    ...request,
  };
}

function artifactsDir(world: CiWorld, jobId: number): string {
  return path.join(world.artifacts, `gitlab-job-${jobId}`);
}

async function runJob(world: CiWorld, run: PipelineRun, pipeline: PipelineDefinition, pipelineId: number, name: string, job: JobDefinition, predefined: Record<string, string>, restore: string[]): Promise<GitLabJobResult> {
  const jobId = world.runId();
  const builds = path.join(world.root, 'runners', `gitlab-${jobId}`);
  const projectDir = path.join(builds, 'project');
  mkdirSync(projectDir, { recursive: true });
  const variables: Record<string, string> = { ...predefined, CI_JOB_ID: String(jobId), CI_JOB_NAME: name, CI_JOB_STAGE: job.stage ?? 'test', CI_JOB_URL: `https://gitlab.example/agencia/lojas/-/jobs/${jobId}`, CI_PROJECT_DIR: projectDir, CI_BUILDS_DIR: builds };
  for (const [key, value] of Object.entries({ ...pipeline.variables, ...job.variables })) variables[key] = expand(String(value), variables);
  for (const [key, { value, file }] of Object.entries(run.variables)) {
    if (!file) variables[key] = value;
    else {
      variables[key] = path.join(builds, `${key}.var`);
      writeFileSync(variables[key], value, { mode: 0o600 });
    }
  }
  world.checkout(run.sha, Number(variables.GIT_DEPTH ?? 20), projectDir);
  for (const dir of restore) if (existsSync(dir)) cpSync(dir, projectDir, { recursive: true });
  const script = ['set -eo pipefail', ...(job.before_script ?? pipeline.default?.before_script ?? []), ...job.script].join('\n');
  const result = await runBash(script, variables, projectDir, path.join(builds, 'script.sh'), ['--noprofile', '--norc']);
  const outcome = result.code === 0 ? 'success' : 'failure';
  const kept = job.artifacts?.paths && (outcome === 'success' || job.artifacts.when === 'always') ? job.artifacts.paths : [];
  for (const file of kept) {
    const source = path.join(projectDir, file);
    if (existsSync(source)) cpSync(source, path.join(artifactsDir(world, jobId), file), { recursive: true });
  }
  world.updateForge((state) => {
    state.gitlab.pipelines.find((p) => p.id === pipelineId)?.jobs.push({ id: jobId, name, status: outcome === 'success' ? 'success' : 'failed', ...(kept.length > 0 ? { artifactsDir: artifactsDir(world, jobId) } : {}) });
  });
  const resourceGroup = job.resource_group ? expand(job.resource_group, variables) : undefined;
  return { name, id: jobId, outcome, log: result.log, ...(resourceGroup ? { resourceGroup } : {}), env: variables };
}
