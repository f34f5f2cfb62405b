// The pull request loop of examples/ci/github-actions, run as GitHub runs it (test/support/ci).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuiltCli } from '../reliability/support/built-cli.js';
import type { CiFleet } from '../support/ci/ci-fleet.js';
import { openCiFleet, overlay } from '../support/ci/ci-fleet.js';
import { pullRequestRun, runWorkflow } from '../support/ci/github-actions.js';

const planWorkflow = '.github/workflows/erpsync-plan.yml';
let fleet: CiFleet;

beforeAll(async () => {
  await ensureBuiltCli();
  fleet = await openCiFleet({ size: 4 });
}, 120_000);
afterAll(async () => fleet?.close());

describe('GitHub Actions: the pull request loop', () => {
  it('plans the affected stores, comments and keeps their plans', async () => {
    const request = fleet.world.openRequest(7, { 'lojas/loja-02.yaml': overlay(2, ['Promoções']) });
    const run = await runWorkflow(fleet.world, pullRequestRun(fleet.world, planWorkflow, request, fleet.secrets));
    for (const job of run.jobs) for (const step of job.steps) console.log(step.name, step.outcome, step.log);
    expect(run.jobs.map((j) => j.outcome)).toEqual(['success']);
  }, 60_000);
});
