// The few things the loops ask of the forge, one adapter per forge: GitHub through `gh` (with the
// job's GITHUB_TOKEN in GH_TOKEN), GitLab through `glab api` (with a project access token in
// GITLAB_TOKEN, from the one secret). Every call is a documented REST endpoint or gh command, so
// what each needs is visible here and in the workflows' `permissions:`.
import { spawnSync } from 'node:child_process';
import { URLSearchParams } from 'node:url';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { childEnv, onGitHub, readJson } from './ci-lib.mjs';

/** The artifact of a request's plans: on GitHub one per head commit; on GitLab the plan job's file. */
export const plansArtifact = { github: (head) => `erpsync-plans-${head}`, gitlabJob: 'erpsync-plan', gitlabFile: 'erpsync-plans.tar.gz' };

function call(tool, args, env, binary = false) {
  const run = spawnSync(tool, args, { env, stdio: ['ignore', 'pipe', 'pipe'], encoding: binary ? 'buffer' : 'utf8', maxBuffer: 512 * 1024 * 1024 });
  if (run.error) throw new Error(`could not run ${tool}: ${run.error.message}`);
  if (run.status !== 0) throw new Error(`${tool} ${args.slice(0, 2).join(' ')} failed (exit ${run.status}): ${String(run.stderr).trim().slice(0, 500)}`);
  return run.stdout;
}

/** GET every page of a list endpoint (100 a page), as the REST APIs of both forges page. */
function everyPage(get, endpoint, query = {}) {
  const items = [];
  for (let page = 1; ; page += 1) {
    const search = new URLSearchParams({ ...query, per_page: '100', page: String(page) });
    const batch = JSON.parse(get(`${endpoint}?${search}`));
    items.push(...batch);
    if (batch.length < 100) return items;
  }
}

function github(env) {
  const repo = env.GITHUB_REPOSITORY;
  const gh = (...args) => call('gh', args, childEnv());
  const api = (endpoint) => gh('api', endpoint);
  return {
    name: 'github',
    /** The pull request this run plans: its number, the base and head commits, whether it comes from a fork. */
    request() {
      const pull = readJson(env.GITHUB_EVENT_PATH).pull_request;
      if (!pull) throw new Error('this is not a pull_request run (GITHUB_EVENT_PATH has no pull_request)');
      return { number: pull.number, base: pull.base.sha, head: pull.head.sha, fork: pull.head.repo?.full_name !== repo };
    },
    comments: (number) => everyPage(api, `repos/${repo}/issues/${number}/comments`).map((c) => ({ id: c.id, body: c.body ?? '' })),
    createComment: (number, file) => JSON.parse(gh('api', '--method', 'POST', `repos/${repo}/issues/${number}/comments`, '-F', `body=@${file}`)).id,
    updateComment: (_number, id, file) => void gh('api', '--method', 'PATCH', `repos/${repo}/issues/comments/${id}`, '-F', `body=@${file}`),
    deleteComment: (_number, id) => void gh('api', '--method', 'DELETE', `repos/${repo}/issues/comments/${id}`),
    /** The merged pull request this commit came from: its number and its last (head) commit. */
    mergedRequestOf(sha) {
      const pull = JSON.parse(api(`repos/${repo}/commits/${sha}/pulls`)).find((p) => p.merged_at);
      return pull ? { number: pull.number, head: pull.head.sha } : undefined;
    },
    /** Downloads the plans saved for the request's head commit into `dir`; false when there are none. */
    downloadPlans(request, dir) {
      const name = plansArtifact.github(request.head);
      const found = JSON.parse(api(`repos/${repo}/actions/artifacts?${new URLSearchParams({ name, per_page: '100' })}`)).artifacts.filter((a) => !a.expired);
      const newest = found.sort((a, b) => b.id - a.id)[0];
      if (!newest) return false;
      gh('run', 'download', String(newest.workflow_run.id), '--name', name, '--dir', dir);
      return true;
    },
    openIssues(label) {
      const issues = JSON.parse(gh('issue', 'list', '--label', label, '--state', 'open', '--limit', '1000', '--json', 'number,title,body,labels,assignees'));
      return issues.map((i) => ({ number: i.number, title: i.title, body: i.body ?? '', labels: i.labels.map((l) => l.name), assignees: i.assignees.map((a) => a.login) }));
    },
    /** gh refuses a label the repository lacks: make each, or leave it as it is. */
    ensureLabels: (labels) => labels.forEach((label) => gh('label', 'create', label, '--color', 'D93F0B', '--description', 'erpsync: a store drifted from its manifests', '--force')),
    createIssue({ title, bodyFile, labels, assignees }) {
      const url = gh('issue', 'create', '--title', title, '--body-file', bodyFile, ...labels.flatMap((l) => ['--label', l]), ...(assignees.length > 0 ? ['--assignee', assignees.join(',')] : []));
      return Number(/\/issues\/(\d+)/.exec(url)?.[1]);
    },
    updateIssue(number, { title, bodyFile, labels, assignees }) {
      gh('issue', 'edit', String(number), '--title', title, '--body-file', bodyFile, ...labels.flatMap((l) => ['--add-label', l]), ...(assignees.length > 0 ? ['--add-assignee', assignees.join(',')] : []));
    },
    closeIssue: (number, comment) => void gh('issue', 'close', String(number), '--comment', comment),
  };
}

function gitlab(env, token) {
  const project = env.CI_PROJECT_ID;
  const glabEnv = childEnv(token ? { GITLAB_TOKEN: token } : {});
  const glab = (...args) => call('glab', ['api', ...args], glabEnv);
  const userIds = new Map();
  const userId = (username) => {
    if (!userIds.has(username)) userIds.set(username, JSON.parse(glab(`users?${new URLSearchParams({ username })}`))[0]?.id);
    return userIds.get(username);
  };
  // GitLab's free tier takes one assignee an issue: the first owner that is a user; the body names every owner.
  const assigneeField = (assignees) => {
    const id = assignees.map(userId).find((found) => found !== undefined);
    return id === undefined ? [] : ['-F', `assignee_id=${id}`];
  };
  const notes = (iid) => `projects/${project}/merge_requests/${iid}/notes`;
  return {
    name: 'gitlab',
    request() {
      if (!env.CI_MERGE_REQUEST_IID) throw new Error('this is not a merge request pipeline (CI_MERGE_REQUEST_IID is not set)');
      return { number: Number(env.CI_MERGE_REQUEST_IID), base: env.CI_MERGE_REQUEST_DIFF_BASE_SHA, head: env.CI_COMMIT_SHA, fork: env.CI_MERGE_REQUEST_SOURCE_PROJECT_ID !== env.CI_MERGE_REQUEST_PROJECT_ID };
    },
    comments: (iid) => everyPage(glab, notes(iid), { sort: 'asc' }).filter((n) => !n.system).map((n) => ({ id: n.id, body: n.body ?? '' })),
    createComment: (iid, file) => JSON.parse(glab('--method', 'POST', notes(iid), '-F', `body=@${file}`)).id,
    updateComment: (iid, id, file) => void glab('--method', 'PUT', `${notes(iid)}/${id}`, '-F', `body=@${file}`),
    deleteComment: (iid, id) => void glab('--method', 'DELETE', `${notes(iid)}/${id}`),
    mergedRequestOf(sha) {
      const request = JSON.parse(glab(`projects/${project}/repository/commits/${sha}/merge_requests`)).find((mr) => mr.state === 'merged');
      return request ? { number: request.iid, head: request.sha } : undefined;
    },
    /** The plan job of the merge request's last successful pipeline on its head commit: its file of plans, unpacked. */
    downloadPlans(request, dir) {
      const pipeline = everyPage(glab, `projects/${project}/merge_requests/${request.number}/pipelines`)
        .filter((p) => p.sha === request.head && p.status === 'success')
        .sort((a, b) => b.id - a.id)[0];
      if (!pipeline) return false;
      const job = everyPage(glab, `projects/${project}/pipelines/${pipeline.id}/jobs`).find((j) => j.name === plansArtifact.gitlabJob && j.status === 'success');
      if (!job) return false;
      const archive = path.join(dir, '..', plansArtifact.gitlabFile);
      writeFileSync(archive, call('glab', ['api', `projects/${project}/jobs/${job.id}/artifacts/${plansArtifact.gitlabFile}`], glabEnv, true));
      mkdirSync(dir, { recursive: true });
      call('tar', ['xzf', archive, '-C', dir], process.env);
      return true;
    },
    openIssues: (label) =>
      everyPage(glab, `projects/${project}/issues`, { labels: label, state: 'opened' }).map((i) => ({ number: i.iid, title: i.title, body: i.description ?? '', labels: i.labels, assignees: i.assignees.map((a) => a.username) })),
    ensureLabels: () => undefined, // GitLab makes the labels an issue is given
    createIssue: ({ title, bodyFile, labels, assignees }) =>
      JSON.parse(glab('--method', 'POST', `projects/${project}/issues`, '-f', `title=${title}`, '-F', `description=@${bodyFile}`, '-f', `labels=${labels.join(',')}`, ...assigneeField(assignees))).iid,
    updateIssue(iid, { title, bodyFile, labels, assignees }) {
      glab('--method', 'PUT', `projects/${project}/issues/${iid}`, '-f', `title=${title}`, '-F', `description=@${bodyFile}`, '-f', `add_labels=${labels.join(',')}`, ...assigneeField(assignees));
    },
    closeIssue(iid, comment) {
      glab('--method', 'POST', `projects/${project}/issues/${iid}/notes`, '-f', `body=${comment}`);
      glab('--method', 'PUT', `projects/${project}/issues/${iid}`, '-f', 'state_event=close');
    },
  };
}

/** The forge this job runs on; GitLab's calls use the API token from the secret (`state`). */
export function currentForge(state) {
  const env = process.env;
  if (onGitHub) return github(env);
  if (env.GITLAB_CI === 'true') return gitlab(env, state?.GITLAB_TOKEN);
  throw new Error('neither GitHub Actions (GITHUB_ACTIONS) nor GitLab CI (GITLAB_CI) is running this');
}

