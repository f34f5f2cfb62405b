// The three loops of examples/ci/gitlab/.gitlab-ci.yml, run as a GitLab runner runs them
// (test/support/ci): the jobs' own scripts with GitLab's predefined variables and the project's
// one File variable, against a sandbox fleet on the real PostgreSQL backend, `glab` answered by a
// fake GitLab that records every call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuiltCli } from '../reliability/support/built-cli.js';
import type { CiFleet } from '../support/ci/ci-fleet.js';
import { openCiFleet, overlay } from '../support/ci/ci-fleet.js';
import { deleteGroup, groupsOf, historyOf, secretValues } from '../support/ci/ci-checks.js';
import type { PipelineResult, PipelineRun } from '../support/ci/gitlab-ci.js';
import { mergePipeline, mergeRequestPipeline, runPipeline } from '../support/ci/gitlab-ci.js';

let fleet: CiFleet;
let variables: PipelineRun['variables'];

beforeAll(async () => {
  await ensureBuiltCli();
  fleet = await openCiFleet({ size: 4, owners: (i) => (i % 2 === 1 ? ['alice'] : ['bruno', '@agencia/suporte']), collaborators: ['alice', 'bruno'] });
  const token = fleet.world.forge().gitlab.token;
  variables = { ERPSYNC_STATE: { value: `${fleet.secrets.ERPSYNC_STATE}\nGITLAB_TOKEN=${token}\n`, file: true } };
}, 120_000);
afterAll(async () => fleet?.close());

const notes = (iid: number) => fleet.world.forge().gitlab.notes.filter((n) => n.mr === iid && n.body.startsWith('<!-- erpsync-plan-comment'));
const logs = (run: PipelineResult) => run.jobs.map((j) => `--- ${j.name}\n${j.log}`).join('\n');

describe('GitLab CI: the merge request and merge loops', () => {
  let request = { number: 3, branch: '', base: '', head: '', fork: false };

  it('plans the stores a merge request affects into one note, updated in place on the next push', async () => {
    request = fleet.world.openRequest(3, { 'lojas/loja-01.yaml': overlay(1, ['Promoções']) });
    const first = await runPipeline(fleet.world, mergeRequestPipeline(fleet.world, request, variables));
    expect(first.jobs.map((j) => [j.name, j.outcome]), logs(first)).toEqual([['erpsync-plan', 'success']]);
    const ids = notes(3).map((n) => n.id);
    expect(ids).toHaveLength(1);
    expect(notes(3)[0]?.body).toContain('lojas/loja-01');

    request = fleet.world.push(request, { 'lojas/loja-01.yaml': overlay(1, ['Promoções', 'Outlet']) });
    const second = await runPipeline(fleet.world, mergeRequestPipeline(fleet.world, request, variables));
    expect(second.jobs.map((j) => j.outcome), logs(second)).toEqual(['success']);
    expect(notes(3).map((n) => n.id)).toEqual(ids);
    expect(notes(3)[0]?.body).toContain('Outlet');
    for (const secret of secretValues({ state: variables.ERPSYNC_STATE?.value ?? '' })) expect(logs(first) + logs(second) + JSON.stringify(fleet.world.forge().gitlab.notes)).not.toContain(secret);
  }, 60_000);

  it('applies exactly the plans of the merge request\'s last commit, each concurrency group in its resource group; the journal names the merge commit', async () => {
    const run = await runPipeline(fleet.world, mergePipeline(fleet.world, request, variables));
    expect(run.jobs.map((j) => j.outcome), logs(run)).toEqual(['success', 'success', 'success', 'success', 'success']);
    expect(run.jobs.slice(1).map((j) => j.resourceGroup)).toEqual(['erpsync-apply-1', 'erpsync-apply-2', 'erpsync-apply-3', 'erpsync-apply-4']);
    const download = fleet.world.calls().find((c) => c.tool === 'glab' && /\/jobs\/\d+\/artifacts\/erpsync-plans\.tar\.gz$/.test(c.args[1] ?? ''));
    expect(download?.exit).toBe(0);
    expect(await groupsOf(fleet, 1)).toEqual(['Insumos', 'Loja 1', 'Outlet', 'Promoções', 'Revenda']);
    expect((await historyOf(fleet, 1)).at(-1)).toMatchObject({ git: { revision: fleet.world.git('rev-parse', 'main') }, actor: { user: 'dev' } });
    expect((await historyOf(fleet, 2)).length).toBe(1);
  }, 60_000);

  it('runs a fork\'s merge request without the project\'s variable: validated, not planned, no note', async () => {
    const fork = fleet.world.openRequest(4, { 'lojas/loja-02.yaml': overlay(2, ['Presentes']) }, { fork: true });
    const calls = fleet.world.calls().length;
    const run = await runPipeline(fleet.world, mergeRequestPipeline(fleet.world, fork, variables));
    expect(run.jobs.map((j) => j.outcome), logs(run)).toEqual(['success']);
    expect(run.jobs[0]?.env.ERPSYNC_STATE).toBeUndefined();
    expect(run.jobs[0]?.log).toContain('not planned: a pull request from a fork gets no secrets');
    expect(fleet.world.calls().slice(calls).filter((c) => c.tool === 'glab')).toEqual([]);
  }, 60_000);
});

describe('GitLab CI: the nightly drift loop', () => {
  const nightly = () => runPipeline(fleet.world, { source: 'schedule', sha: fleet.world.git('rev-parse', 'main'), branch: 'main', variables: { ...variables, ERPSYNC_SCHEDULE: { value: 'drift' } } });
  const driftIssues = () => fleet.world.forge().gitlab.issues.filter((i) => i.labels.includes('erpsync-drift'));

  it('opens an issue for the drifted store assigned to its owner, and closes it after the fix', async () => {
    await deleteGroup(fleet, 2, 'Revenda');
    const first = await nightly();
    expect(first.jobs.map((j) => [j.name, j.outcome]), logs(first)).toEqual([['erpsync-drift', 'success']]);
    expect(driftIssues().map((i) => [i.title.includes('lojas/loja-02'), i.state, i.assignees])).toEqual([[true, 'opened', [{ username: 'bruno' }]]]);
    expect(driftIssues()[0]?.description).toContain('@agencia/suporte');

    expect((await fleet.cli(['apply', '--target', 'lojas/loja-02', '--auto-approve'])).code).toBe(0);
    const next = await nightly();
    expect(driftIssues().map((i) => i.state), logs(next)).toEqual(['closed']);
  }, 60_000);
});
