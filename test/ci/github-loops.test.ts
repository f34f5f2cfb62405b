// The three loops of examples/ci/github-actions, run as GitHub runs them (test/support/ci): the
// workflows' own steps in order with GitHub's variables, against a sandbox fleet on the real
// PostgreSQL backend, `gh` answered by a fake GitHub that records every call. One fleet, one story:
// a pull request is planned and commented, pushed to again, merged and applied; another merged
// after main moved is refused; a fork gets no secret; the nightly drift opens, updates and closes
// the stores' issues.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuiltCli } from '../reliability/support/built-cli.js';
import type { CiFleet } from '../support/ci/ci-fleet.js';
import { baseManifest, openCiFleet, overlay } from '../support/ci/ci-fleet.js';
import type { WorkflowResult } from '../support/ci/github-actions.js';
import { mergeRun, pullRequestRun, runWorkflow } from '../support/ci/github-actions.js';
import { deleteGroup, groupsOf, historyOf, secretValues } from '../support/ci/ci-checks.js';

const plan = '.github/workflows/erpsync-plan.yml';
const apply = '.github/workflows/erpsync-apply.yml';
const drift = '.github/workflows/erpsync-drift.yml';
const owners: Record<number, string[]> = { 1: ['alice'], 2: ['alice', '@agencia/suporte'], 3: ['bruno'], 4: ['bruno'], 5: ['carla'] };

let fleet: CiFleet;
const chat: unknown[] = [];
const server = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk: Buffer) => (body += chunk.toString()));
  request.on('end', () => {
    chat.push(JSON.parse(body));
    response.end('ok');
  });
});

beforeAll(async () => {
  await ensureBuiltCli();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fleet = await openCiFleet({ size: 5, owners: (i) => owners[i] ?? [], collaborators: ['alice', 'bruno'] });
}, 120_000);
afterAll(async () => {
  server.close();
  await fleet?.close();
});

const planComments = (number: number) => fleet.world.forge().github.comments.filter((c) => c.issue === number && c.body.startsWith('<!-- erpsync-plan-comment'));
const annotations = (run: WorkflowResult) => run.jobs.flatMap((j) => j.steps.flatMap((s) => s.annotations.map((a) => `${a.level}: ${a.message}`)));
const logs = (run: WorkflowResult) => run.jobs.flatMap((j) => j.steps.map((s) => s.log)).join('\n');

describe('GitHub Actions: the pull request and merge loops', () => {
  let request = { number: 7, branch: '', base: '', head: '', fork: false };

  it('plans the stores a pull request affects into one comment and the artifact of its head commit', async () => {
    request = fleet.world.openRequest(7, { 'lojas/loja-02.yaml': overlay(2, ['Promoções']), 'lojas/loja-04.yaml': overlay(4, ['Promoções']) });
    // A longer plan of an earlier push left a second part: it goes.
    fleet.world.updateForge((state) => void state.github.comments.push({ id: 1, issue: 7, body: '<!-- erpsync-plan-comment part=2 -->\nan older plan' }));
    const run = await runWorkflow(fleet.world, pullRequestRun(fleet.world, plan, request, fleet.secrets));
    expect(run.jobs.map((j) => j.outcome), logs(run)).toEqual(['success']);
    const [comment, ...more] = planComments(7);
    expect(more).toEqual([]);
    expect(comment?.body).toMatch(/^<!-- erpsync-plan-comment part=1\b/);
    expect(comment?.body).toContain('lojas/loja-02');
    expect(comment?.body).toContain('lojas/loja-04');
    expect(comment?.body).not.toContain('lojas/loja-01');
    const artifact = fleet.world.forge().github.artifacts.find((a) => a.name === `erpsync-plans-${request.head}`);
    const index = JSON.parse(readFileSync(path.join(artifact?.dir ?? '', 'plans/index.json'), 'utf8')) as { stores: { target: string }[] };
    expect(index.stores.map((s) => s.target)).toEqual(['lojas/loja-02', 'lojas/loja-04']);
    for (const secret of secretValues(fleet.secrets)) expect(logs(run) + JSON.stringify(fleet.world.forge())).not.toContain(secret);
  }, 60_000);

  it('updates the same comment on the next push', async () => {
    const before = planComments(7).map((c) => c.id);
    request = fleet.world.push(request, { 'lojas/loja-02.yaml': overlay(2, ['Promoções', 'Outlet']) });
    const run = await runWorkflow(fleet.world, pullRequestRun(fleet.world, plan, request, fleet.secrets));
    expect(run.jobs.map((j) => j.outcome), logs(run)).toEqual(['success']);
    expect(planComments(7).map((c) => c.id)).toEqual(before);
    expect(planComments(7)[0]?.body).toContain('Outlet');
    expect(fleet.world.calls().filter((c) => c.tool === 'gh').map((c) => c.exit)).not.toContain(1);
  }, 60_000);

  it('applies exactly the reviewed plans on merge, a job per concurrency group, and each store\'s journal names the merge commit', async () => {
    const run = await runWorkflow(fleet.world, mergeRun(fleet.world, apply, request, fleet.secrets));
    expect(run.jobs.map((j) => [j.id, j.outcome]), logs(run)).toEqual([['reviewed-plans', 'success'], ...run.jobs.slice(1).map(() => ['apply', 'success'])]);
    const download = fleet.world.calls().find((c) => c.tool === 'gh' && c.args[0] === 'run' && c.args[1] === 'download');
    expect(download?.args).toContain(`erpsync-plans-${request.head}`);
    const applied = run.jobs.filter((j) => j.id === 'apply');
    expect(applied.flatMap((j) => String((j.matrix as { targets: string }).targets).split(',')).sort()).toEqual(['lojas/loja-02', 'lojas/loja-04']);
    for (const job of applied) expect(job.concurrency).toEqual({ group: `erpsync-apply-${(job.matrix as { group: string }).group}`, cancelInProgress: false });
    expect(await groupsOf(fleet, 2)).toEqual(['Insumos', 'Loja 2', 'Outlet', 'Promoções', 'Revenda']);
    expect(await groupsOf(fleet, 4)).toEqual(['Insumos', 'Loja 4', 'Promoções', 'Revenda']);
    const merge = fleet.world.git('rev-parse', 'main');
    for (const store of [2, 4]) expect((await historyOf(fleet, store)).at(-1)).toMatchObject({ git: { revision: merge }, actor: { user: 'dev' } });
    expect((await historyOf(fleet, 1)).length).toBe(1); // the fleet's first apply only
  }, 60_000);

  it('fails the check of a pull request whose plan holds a blocked change, naming the store, and shows it in the comment', async () => {
    const blocked = fleet.world.openRequest(11, { 'lojas/loja-05.yaml': `${overlay(5)}formasPagamentos:\n  - descricao: Dinheiro\n    ensure: absent\n` });
    const run = await runWorkflow(fleet.world, pullRequestRun(fleet.world, plan, blocked, fleet.secrets));
    expect(run.jobs.map((j) => j.outcome)).toEqual(['failure']);
    expect(run.jobs[0]?.steps.map((s) => s.outcome)).toEqual([...Array(7).fill('success'), 'failure']);
    expect(annotations(run)).toContain('error: blocked changes in lojas/loja-05: the merge would refuse them; see the comment');
    expect(planComments(11)[0]?.body).toMatch(/\| lojas\/loja-05 \| .* \| 1 \| – \|/);
  }, 60_000);

  it('gives a fork\'s pull request no secret: validated, not planned, nothing posted', async () => {
    const fork = fleet.world.openRequest(10, { 'lojas/loja-05.yaml': overlay(5, ['Presentes']) }, { fork: true });
    const calls = fleet.world.calls().length;
    const run = await runWorkflow(fleet.world, pullRequestRun(fleet.world, plan, fork, fleet.secrets));
    expect(run.jobs.map((j) => j.outcome), logs(run)).toEqual(['success']);
    expect(run.jobs[0]?.permissions).toEqual({ contents: 'read', 'pull-requests': 'read' });
    expect(annotations(run).join('\n')).toContain('not planned: a pull request from a fork gets no secrets');
    for (const step of run.jobs[0]?.steps ?? []) expect(step.env.ERPSYNC_STATE ?? '').toBe('');
    expect(fleet.world.calls().slice(calls).filter((c) => c.tool === 'gh')).toEqual([]);
    expect(fleet.world.forge().github.artifacts.filter((a) => a.headSha === fork.head)).toEqual([]);
  }, 60_000);
});

describe('GitHub Actions: the nightly drift loop', () => {
  const nightly = () => runWorkflow(fleet.world, { file: drift, event: 'schedule', payload: { schedule: '17 5 * * *' }, sha: fleet.world.git('rev-parse', 'main'), ref: 'refs/heads/main', secrets: { ERPSYNC_STATE: `${fleet.secrets.ERPSYNC_STATE}\nERPSYNC_CHAT_WEBHOOK_URL=http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` } });
  const driftIssues = () => fleet.world.forge().github.issues.filter((i) => i.labels.includes('erpsync-drift'));

  it('opens one issue per drifted store for its owners, keeps it while the store drifts, closes it after the fix', async () => {
    await deleteGroup(fleet, 1, 'Loja 1');
    await deleteGroup(fleet, 3, 'Insumos');
    const first = await nightly();
    expect(first.jobs.map((j) => j.outcome), logs(first)).toEqual(['success']);
    const opened = driftIssues();
    expect(opened.map((i) => [i.title.includes('lojas/loja-01') ? 1 : i.title.includes('lojas/loja-03') ? 3 : 0, i.state, i.assignees])).toEqual([
      [1, 'open', ['alice']],
      [3, 'open', ['bruno']],
    ]);
    expect(opened[0]?.body).toContain('Loja 1');
    expect(opened[1]?.body).toContain('Insumos');
    expect(chat).toMatchObject([{ action: 'opened', target: 'lojas/loja-01' }, { action: 'opened', target: 'lojas/loja-03' }]);

    const second = await nightly();
    expect(second.jobs[0]?.outcome).toBe('success');
    expect(driftIssues().map((i) => [i.number, i.state])).toEqual(opened.map((i) => [i.number, 'open']));

    expect((await fleet.cli(['apply', '--target', 'lojas/loja-01,lojas/loja-03', '--auto-approve'])).code).toBe(0);
    await nightly();
    expect(driftIssues().map((i) => [i.number, i.state])).toEqual(opened.map((i) => [i.number, 'closed']));
    expect(chat.slice(2)).toMatchObject([{ action: 'closed', target: 'lojas/loja-01' }, { action: 'closed', target: 'lojas/loja-03' }]);
  }, 90_000);
});

describe('GitHub Actions: a merge after main moved', () => {
  it('refuses the plans of a pull request that main moved past: plan again', async () => {
    const late = fleet.world.openRequest(8, { 'lojas/loja-03.yaml': overlay(3, ['Atacado']) });
    expect((await runWorkflow(fleet.world, pullRequestRun(fleet.world, plan, late, fleet.secrets))).jobs[0]?.outcome).toBe('success');
    // Meanwhile another change to the base every store reads is merged.
    fleet.world.merge(fleet.world.openRequest(9, { 'base/grupos.yaml': `${baseManifest}  - nome: Serviços\n` }));

    const run = await runWorkflow(fleet.world, mergeRun(fleet.world, apply, late, fleet.secrets));
    const refused = run.jobs.find((j) => j.id === 'apply');
    expect(refused?.outcome).toBe('failure');
    expect(refused?.steps.at(-1)?.code).toBe(3);
    expect(annotations(run).join('\n')).toContain('plan again');
    expect(await groupsOf(fleet, 3)).not.toContain('Atacado');
  }, 90_000);
});
