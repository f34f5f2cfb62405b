// Issue 35's pull-request story at fleet scale, through the GitHub Actions templates as the harness
// runs them: 300 sandbox stores, a pull request changing 20 of them (3 with a delete, 1 with a
// change the planner blocks). Every comment stays under GitHub's 65,536 characters, the first one's
// first table lists the 20 stores and the blocked one, every removal comes before any update, and
// a second push updates the same comments. Between review and merge one store is edited by hand:
// the merge refuses it alone (exit 3), applies exactly the other 19 reviewed plans, and each of
// their journals names the merge commit. Only the 20 stores are ever planned or applied.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { ensureBuiltCli } from '../reliability/support/built-cli.js';
import type { CiFleet } from '../support/ci/ci-fleet.js';
import { openCiFleet, overlay } from '../support/ci/ci-fleet.js';
import type { WorkflowResult } from '../support/ci/github-actions.js';
import { mergeRun, pullRequestRun, runWorkflow } from '../support/ci/github-actions.js';
import { groupsOf, historyOf } from '../support/ci/ci-checks.js';
import { storeName } from '../support/fleet.js';

const plan = '.github/workflows/erpsync-plan.yml';
const apply = '.github/workflows/erpsync-apply.yml';
const size = 300;
const changed = Array.from({ length: 20 }, (_, k) => 7 + 15 * k);
const withDelete = changed.slice(0, 3);
const blocked = changed[3] ?? 0;
// Not in the blocked store's concurrency group (their groups are a fixed hash of the names), so its
// job's exit code is the refusal's own.
const editedByHand = changed[11] ?? 0;

let fleet: CiFleet;
beforeAll(async () => {
  await ensureBuiltCli();
  fleet = await openCiFleet({ size, firstApplied: changed });
}, 180_000);
afterAll(async () => {
  await fleet?.close();
});

/** Store i's overlay in the pull request: a new group; a delete of its own group; or a removal the planner blocks. */
function changedOverlay(i: number, extra: string): string {
  if (withDelete.includes(i)) return `version: 1\ngruposProdutos:\n  - nome: Loja ${i}\n    ensure: absent\n  - nome: ${extra}\n`;
  if (i === blocked) return `${overlay(i, [extra])}formasPagamentos:\n  - descricao: Dinheiro\n    ensure: absent\n`;
  return overlay(i, [extra]);
}
const files = (extra: string) => Object.fromEntries(changed.map((i) => [`${storeName(i)}.yaml`, changedOverlay(i, extra)]));
const planComments = (number: number) => fleet.world.forge().github.comments.filter((c) => c.issue === number && c.body.startsWith('<!-- erpsync-plan-comment'));
const logs = (run: WorkflowResult) => run.jobs.flatMap((j) => j.steps.map((s) => s.log)).join('\n');

describe('GitHub Actions on a 300-store fleet: 20 stores changed', () => {
  let request = { number: 21, branch: '', base: '', head: '', fork: false };

  it('comments the 20 stores under 65,536 characters each: one table first, the blocked store in it, removals before updates; a second push updates the same comments', async () => {
    request = fleet.world.openRequest(21, files('Promoções'));
    const first = await runWorkflow(fleet.world, pullRequestRun(fleet.world, plan, request, fleet.secrets));
    // The check fails for the blocked change (the template's rule); the comments are posted all the same.
    expect(first.jobs.map((j) => j.outcome), logs(first)).toEqual(['failure']);
    const comments = planComments(21);
    expect(comments.length).toBeGreaterThan(0);
    for (const comment of comments) expect(comment.body.length).toBeLessThan(65_536);

    const lines = (comments[0]?.body ?? '').split('\n');
    const table = lines.slice(lines.findIndex((line) => line.startsWith('| store |')));
    const rows = table.slice(2, table.findIndex((line) => line === ''));
    expect(rows.map((row) => row.split(' | ')[0]?.slice(2)).sort()).toEqual(changed.map(storeName).sort());
    expect(rows.find((row) => row.startsWith(`| ${storeName(blocked)} |`))).toMatch(/ \| 1 \| – \|$/);
    const all = comments.map((c) => c.body).join('');
    const removals = withDelete.map((i) => all.indexOf(`- \`${storeName(i)}\` · \`gruposProdutos\` \`Loja ${i}\`: delete`));
    for (const at of removals) expect(at).toBeGreaterThan(0);
    expect(Math.max(...removals)).toBeLessThan(all.indexOf('— update:') === -1 ? all.indexOf('<details>') : all.indexOf('— update:'));

    const ids = comments.map((c) => c.id);
    request = fleet.world.push(request, files('Outlet'));
    const second = await runWorkflow(fleet.world, pullRequestRun(fleet.world, plan, request, fleet.secrets));
    expect(second.jobs.map((j) => j.outcome), logs(second)).toEqual(['failure']);
    expect(planComments(21).map((c) => c.id)).toEqual(ids);
    expect(planComments(21)[0]?.body).toContain('Outlet');
  }, 240_000);

  it('merges: the store edited by hand in between is refused (exit 3), the other 19 reviewed plans apply, and each journal names the merge commit', async () => {
    await fleet.stores[editedByHand - 1]?.open(async (emulator: Emulator) => {
      const made = await fetch(`${emulator.baseUrl}/grupos-produtos`, { method: 'POST', headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ nome: 'Outlet' }) });
      expect(made.status).toBe(201);
    });
    const run = await runWorkflow(fleet.world, mergeRun(fleet.world, apply, request, fleet.secrets));
    const merge = fleet.world.git('rev-parse', 'main');
    const jobs = run.jobs.filter((j) => j.id === 'apply');
    const applied = jobs.flatMap((j) => String((j.matrix as { targets: string }).targets).split(',')).sort();
    expect(applied).toEqual(changed.map(storeName).sort());
    const refusedJob = jobs.find((j) => String((j.matrix as { targets: string }).targets).split(',').includes(storeName(editedByHand)));
    expect(refusedJob?.steps.at(-1)?.code, logs(run)).toBe(3);
    expect(logs(run)).toMatch(new RegExp(`${storeName(editedByHand)} .* error: the account changed since the plan was made; plan again`));

    for (const i of changed) {
      const groups = await groupsOf(fleet, i);
      if (i === editedByHand) {
        expect(groups).toEqual(['Insumos', `Loja ${i}`, 'Outlet', 'Revenda']);
        expect((await historyOf(fleet, i)).filter((r) => r.git?.revision === merge)).toEqual([]);
        continue;
      }
      expect(groups).toContain('Outlet');
      expect(groups.includes(`Loja ${i}`)).toBe(!withDelete.includes(i));
      expect((await historyOf(fleet, i)).at(-1)).toMatchObject({ git: { revision: merge } });
    }
    // The 280 others were never planned nor applied: their accounts are as new.
    expect(await groupsOf(fleet, 1)).toEqual([]);
  }, 240_000);
});
