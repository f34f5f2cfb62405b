// `gh`, `glab` and `npm` as the CI templates call them, for the harness (test/support/ci): each call
// is appended to STATE.calls.jsonl and answered from a fake GitHub / GitLab kept in the JSON file
// ERPSYNC_FAKE_FORGE names — pull requests and merge requests, their comments with ids, issues with
// labels and assignees, artifacts, pipelines, and the job tokens with their permissions, refused
// (403) where a real forge would refuse them. `npm ci` installs the erpsync package under test
// (ERPSYNC_FAKE_PACKAGE) as npm would: node_modules/erpsync and its bin. A call the fake does not
// know fails loudly, so a template never relies on something the harness does not check.
/* global console, process -- a Node.js script run by the templates' steps */
import { appendFileSync, cpSync, mkdirSync, readFileSync, readdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { URL } from 'node:url';

class Refusal extends Error {
  constructor(message, code = 1) {
    super(message);
    this.code = code;
  }
}

const stateFile = process.env.ERPSYNC_FAKE_FORGE;
const [tool = '', ...args] = process.argv.slice(2);
const state = JSON.parse(readFileSync(stateFile, 'utf8'));
const json = (value) => `${JSON.stringify(value)}\n`;

/** `--name value` and `-n value` options, repeatable ones as lists; the rest are positionals. */
function options(list, known) {
  const found = { _: [] };
  for (let i = 0; i < list.length; i += 1) {
    const arg = list[i];
    const name = known[arg];
    if (name === undefined) {
      if (arg.startsWith('-')) throw new Refusal(`fake ${tool}: unknown flag ${arg} in ${list.join(' ')}`, 2);
      found._.push(arg);
    } else if (name.endsWith('[]')) (found[name.slice(0, -2)] ??= []).push(list[++i]);
    else found[name] = list[++i];
  }
  return found;
}

/** `api` arguments as both CLIs take them: --method, -f raw fields, -F typed fields (`@file` read). */
function apiRequest(list) {
  const fields = {};
  let method;
  let endpoint;
  for (let i = 0; i < list.length; i += 1) {
    const arg = list[i];
    if (arg === '--method' || arg === '-X') method = list[++i];
    else if (['-f', '--raw-field', '-F', '--field'].includes(arg)) {
      const [key, ...rest] = list[++i].split('=');
      let value = rest.join('=');
      if (arg === '-F' || arg === '--field') {
        if (value.startsWith('@')) value = readFileSync(path.resolve(value.slice(1)), 'utf8');
        else if (/^-?\d+$/.test(value)) value = Number(value);
        else if (['true', 'false', 'null'].includes(value)) value = JSON.parse(value);
      }
      fields[key] = value;
    } else if (!arg.startsWith('-') && endpoint === undefined) endpoint = arg;
    else throw new Refusal(`fake ${tool} api: unknown argument ${arg}`, 2);
  }
  const url = new URL(endpoint.replace(/^\//, ''), 'https://forge.invalid/');
  return { method: method ?? (Object.keys(fields).length > 0 ? 'POST' : 'GET'), path: decodeURIComponent(url.pathname.slice(1)), query: url.searchParams, fields };
}

function page(items, query) {
  const size = Number(query.get('per_page') ?? 30);
  const at = Number(query.get('page') ?? 1);
  return items.slice((at - 1) * size, at * size);
}

// ---- GitHub ----------------------------------------------------------------------------------

const hub = state.github;

function grant(scopes, level) {
  const token = process.env.GH_TOKEN ?? process.env.GITHUB_TOKEN;
  if (!token) throw new Refusal('gh: To use GitHub CLI in a GitHub Actions workflow, set the GH_TOKEN environment variable.', 4);
  const permissions = hub.tokens[token];
  if (!permissions) throw new Refusal('HTTP 401: Bad credentials (https://api.github.com/)');
  const allowed = scopes.some((scope) => permissions[scope] === 'write' || (level === 'read' && permissions[scope] === 'read'));
  if (!allowed) throw new Refusal(`HTTP 403: Resource not accessible by integration (needs ${scopes.join(' or ')}: ${level})`);
}

function issueOf(number) {
  const issue = hub.issues.find((i) => i.number === Number(number));
  if (!issue) throw new Refusal(`GraphQL: Could not resolve to an issue with the number of ${number}.`);
  return issue;
}

function checkLabelsAndPeople(labels = [], assignees = []) {
  for (const label of labels) if (!hub.labels.includes(label)) throw new Refusal(`could not add label: '${label}' not found`);
  for (const login of assignees.flatMap((a) => a.split(','))) if (!hub.collaborators.includes(login)) throw new Refusal(`could not assign user: '${login}' not found`);
}

function githubApi(request) {
  const repo = `repos/${hub.repository}/`;
  if (!request.path.startsWith(repo)) throw new Refusal(`HTTP 404: Not Found (${request.path})`);
  const route = request.path.slice(repo.length);
  let match;
  if ((match = /^issues\/(\d+)\/comments$/.exec(route))) {
    const issue = Number(match[1]);
    if (request.method === 'GET') {
      grant(['pull-requests', 'issues'], 'read');
      return json(page(hub.comments.filter((c) => c.issue === issue), request.query));
    }
    grant(['pull-requests', 'issues'], 'write');
    const comment = { id: hub.nextId++, issue, body: String(request.fields.body) };
    hub.comments.push(comment);
    return json(comment);
  }
  if ((match = /^issues\/comments\/(\d+)$/.exec(route))) {
    grant(['pull-requests', 'issues'], 'write');
    const comment = hub.comments.find((c) => c.id === Number(match[1]));
    if (!comment) throw new Refusal('HTTP 404: Not Found');
    if (request.method === 'DELETE') {
      hub.comments = hub.comments.filter((c) => c !== comment);
      return '';
    }
    comment.body = String(request.fields.body);
    return json(comment);
  }
  if ((match = /^commits\/([0-9a-f]{40})\/pulls$/.exec(route))) {
    grant(['pull-requests'], 'read');
    const pulls = hub.pulls.filter((p) => p.mergeCommit === match[1] || p.head === match[1]);
    return json(pulls.map((p) => ({ number: p.number, merged_at: p.mergeCommit ? '2026-01-01T00:00:00Z' : null, head: { sha: p.head }, base: { sha: p.base } })));
  }
  if (route === 'actions/artifacts') {
    grant(['actions'], 'read');
    const found = hub.artifacts.filter((a) => a.name === request.query.get('name'));
    return json({ total_count: found.length, artifacts: found.map((a) => ({ id: a.id, name: a.name, expired: false, workflow_run: { id: a.runId, head_sha: a.headSha } })) });
  }
  throw new Refusal(`fake gh api: no route for ${request.method} ${request.path}`, 2);
}

function github() {
  const [command, sub, ...rest] = args;
  if (command === 'api') return githubApi(apiRequest(args.slice(1)));
  if (command === 'run' && sub === 'download') {
    grant(['actions'], 'read');
    const o = options(rest, { '--name': 'name', '-n': 'name', '--dir': 'dir', '-D': 'dir' });
    const artifact = hub.artifacts.find((a) => a.runId === Number(o._[0]) && a.name === o.name);
    if (!artifact) throw new Refusal(`no artifact matches ${o.name}`);
    cpSync(artifact.dir, path.resolve(o.dir ?? '.'), { recursive: true });
    return '';
  }
  if (command === 'label' && sub === 'create') {
    grant(['issues'], 'write');
    const o = options(rest, { '--color': 'color', '--description': 'description', '--force': 'force' });
    if (!hub.labels.includes(o._[0])) hub.labels.push(o._[0]);
    return '';
  }
  if (command === 'issue') return githubIssue(sub, rest);
  throw new Refusal(`fake gh: no command ${command} ${sub}`, 2);
}

function githubIssue(sub, rest) {
  if (sub === 'list') {
    grant(['issues'], 'read');
    const o = options(rest, { '--label': 'label[]', '--state': 'state', '--limit': 'limit', '--json': 'json' });
    const fields = o.json.split(',');
    const issues = hub.issues.filter((i) => (o.state ?? 'open') === i.state && (o.label ?? []).every((l) => i.labels.includes(l))).slice(0, Number(o.limit ?? 30));
    const shown = { labels: (i) => i.labels.map((name) => ({ name })), assignees: (i) => i.assignees.map((login) => ({ login })) };
    return json(issues.map((i) => Object.fromEntries(fields.map((f) => [f, shown[f]?.(i) ?? i[f]]))));
  }
  grant(['issues'], 'write');
  const o = options(rest, { '--title': 'title', '--body-file': 'bodyFile', '--label': 'label[]', '--assignee': 'assignee[]', '--add-label': 'label[]', '--add-assignee': 'assignee[]', '--comment': 'comment' });
  if (sub === 'create') {
    checkLabelsAndPeople(o.label, o.assignee);
    const issue = { number: hub.nextNumber++, title: o.title, body: readFileSync(path.resolve(o.bodyFile), 'utf8'), state: 'open', labels: o.label ?? [], assignees: (o.assignee ?? []).flatMap((a) => a.split(',')) };
    hub.issues.push(issue);
    return `https://github.com/${hub.repository}/issues/${issue.number}\n`;
  }
  const issue = issueOf(o._[0]);
  if (sub === 'edit') {
    checkLabelsAndPeople(o.label, o.assignee);
    issue.title = o.title ?? issue.title;
    if (o.bodyFile) issue.body = readFileSync(path.resolve(o.bodyFile), 'utf8');
    issue.labels = [...new Set([...issue.labels, ...(o.label ?? [])])];
    issue.assignees = [...new Set([...issue.assignees, ...(o.assignee ?? []).flatMap((a) => a.split(','))])];
    return `https://github.com/${hub.repository}/issues/${issue.number}\n`;
  }
  if (sub === 'close') {
    issue.state = 'closed';
    if (o.comment) hub.comments.push({ id: hub.nextId++, issue: issue.number, body: o.comment });
    return '';
  }
  throw new Refusal(`fake gh issue: no command ${sub}`, 2);
}

// ---- GitLab ----------------------------------------------------------------------------------

const lab = state.gitlab;

function gitlabIssue(iid) {
  const issue = lab.issues.find((i) => i.iid === Number(iid));
  if (!issue) throw new Refusal('404 Not found');
  return issue;
}

function assignee(id) {
  const user = lab.users.find((u) => u.id === Number(id));
  if (!user) throw new Refusal('400 Bad request: assignee_id is invalid');
  return [{ username: user.username }];
}

function gitlabApi(request) {
  const fields = request.fields;
  if (request.path === 'users') return json(lab.users.filter((u) => u.username === request.query.get('username')));
  const project = `projects/${lab.projectId}/`;
  if (!request.path.startsWith(project)) throw new Refusal(`404 Project Not Found (${request.path})`);
  const route = request.path.slice(project.length);
  let match;
  if ((match = /^merge_requests\/(\d+)\/notes(?:\/(\d+))?$/.exec(route))) {
    const mr = Number(match[1]);
    if (match[2] === undefined && request.method === 'GET') return json(page(lab.notes.filter((n) => n.mr === mr), request.query));
    if (match[2] === undefined) {
      const note = { id: lab.nextId++, mr, body: String(fields.body), system: false };
      lab.notes.push(note);
      return json(note);
    }
    const note = lab.notes.find((n) => n.id === Number(match[2]) && n.mr === mr);
    if (!note) throw new Refusal('404 Not found');
    if (request.method === 'DELETE') {
      lab.notes = lab.notes.filter((n) => n !== note);
      return '';
    }
    note.body = String(fields.body);
    return json(note);
  }
  if ((match = /^repository\/commits\/([0-9a-f]{40})\/merge_requests$/.exec(route))) {
    return json(lab.mergeRequests.filter((m) => m.mergeCommit === match[1] || m.sha === match[1]).map((m) => ({ iid: m.iid, sha: m.sha, state: m.mergeCommit ? 'merged' : 'opened' })));
  }
  if ((match = /^merge_requests\/(\d+)\/pipelines$/.exec(route))) {
    return json(page(lab.pipelines.filter((p) => p.mr === Number(match[1])).map((p) => ({ id: p.id, sha: p.sha, status: p.status })), request.query));
  }
  if ((match = /^pipelines\/(\d+)\/jobs$/.exec(route))) {
    const pipeline = lab.pipelines.find((p) => p.id === Number(match[1]));
    return json(page((pipeline?.jobs ?? []).map((j) => ({ id: j.id, name: j.name, status: j.status })), request.query));
  }
  if ((match = /^jobs\/(\d+)\/artifacts\/(.+)$/.exec(route))) {
    const job = lab.pipelines.flatMap((p) => p.jobs).find((j) => j.id === Number(match[1]));
    if (!job?.artifactsDir || !readdirSync(job.artifactsDir, { recursive: true }).includes(match[2])) throw new Refusal('404 Not found');
    return readFileSync(path.join(job.artifactsDir, match[2]));
  }
  if (route === 'issues' && request.method === 'GET') {
    const labels = (request.query.get('labels') ?? '').split(',').filter(Boolean);
    const issues = lab.issues.filter((i) => i.state === (request.query.get('state') ?? 'opened') && labels.every((l) => i.labels.includes(l)));
    return json(page(issues, request.query));
  }
  if (route === 'issues') {
    const issue = { iid: lab.nextIid++, title: fields.title, description: fields.description, state: 'opened', labels: String(fields.labels ?? '').split(',').filter(Boolean), assignees: fields.assignee_id === undefined ? [] : assignee(fields.assignee_id) };
    lab.issues.push(issue);
    return json(issue);
  }
  if ((match = /^issues\/(\d+)\/notes$/.exec(route))) {
    const note = { id: lab.nextId++, issue: gitlabIssue(match[1]).iid, body: String(fields.body), system: false };
    lab.issueNotes.push(note);
    return json(note);
  }
  if ((match = /^issues\/(\d+)$/.exec(route)) && request.method === 'PUT') {
    const issue = gitlabIssue(match[1]);
    if (fields.title !== undefined) issue.title = fields.title;
    if (fields.description !== undefined) issue.description = fields.description;
    if (fields.add_labels !== undefined) issue.labels = [...new Set([...issue.labels, ...String(fields.add_labels).split(',').filter(Boolean)])];
    if (fields.assignee_id !== undefined) issue.assignees = assignee(fields.assignee_id);
    if (fields.state_event === 'close') issue.state = 'closed';
    return json(issue);
  }
  throw new Refusal(`fake glab api: no route for ${request.method} ${request.path}`, 2);
}

function gitlab() {
  if (args[0] !== 'api') throw new Refusal(`fake glab: no command ${args[0]}`, 2);
  if (process.env.GITLAB_TOKEN !== lab.token) throw new Refusal('glab: 401 Unauthorized');
  return gitlabApi(apiRequest(args.slice(1)));
}

// ---- npm -------------------------------------------------------------------------------------

function npm() {
  if (args.join(' ') !== 'ci') throw new Refusal(`fake npm: only \`npm ci\` is emulated, not \`npm ${args.join(' ')}\``, 2);
  mkdirSync('node_modules/.bin', { recursive: true });
  symlinkSync(process.env.ERPSYNC_FAKE_PACKAGE, 'node_modules/erpsync');
  symlinkSync('../erpsync/dist/cli/bin.js', 'node_modules/.bin/erpsync');
  return 'added 1 package (erpsync, the package under test)\n';
}

let code = 0;
try {
  const handlers = { gh: github, glab: gitlab, npm };
  if (!handlers[tool]) throw new Refusal(`fake forge: no tool ${tool}`, 2);
  const output = handlers[tool]();
  process.stdout.write(output);
  writeFileSync(`${stateFile}.tmp`, JSON.stringify(state, null, 2));
  renameSync(`${stateFile}.tmp`, stateFile);
} catch (error) {
  if (!(error instanceof Refusal)) throw error;
  console.error(error.message);
  code = error.code;
}
appendFileSync(`${stateFile}.calls.jsonl`, `${JSON.stringify({ tool, args, cwd: process.cwd(), exit: code })}\n`);
process.exitCode = code;
