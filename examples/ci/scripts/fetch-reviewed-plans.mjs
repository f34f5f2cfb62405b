// The merge loop, its first step: the plans reviewed on the merged request, exactly. The commit
// on the main branch leads to its merged pull/merge request, the request to its last (head)
// commit, and that commit to the plans its plan run saved — nothing is planned afresh here. The
// stores with something to apply are grouped by their concurrency group (`erpsync targets --json`):
//   OUT/request.json, OUT/plans/  the reviewed run's files, as they were saved
//   OUT/groups.json               [{ group, shard: "I/N", targets: "a,b" }], one apply job per group
// and, on GitHub, the step output `matrix` ({ include: groups }; empty when nothing is to apply).
// Usage: node fetch-reviewed-plans.mjs OUT
import path from 'node:path';
import { addSummary, currentCommit, matrixOf, outputFolder, readJson, readState, report, runScript, setOutput, writeJson } from './ci-lib.mjs';
import { currentForge } from './forge.mjs';

/** The stores a reviewed plan changes (or holds blocked changes for, which apply names and refuses). */
function storesToApply(out, reviewed) {
  if (reviewed.targets.length === 0) return [];
  return readJson(path.join(out, 'plans', 'index.json'))
    .stores.filter((store) => store.file && (store.changes > 0 || reviewed.blocked?.[store.target] > 0))
    .map((store) => store.target);
}

/** One apply job per concurrency group holding any of the stores: its name, its shard I/N, its stores. */
function groupsOf(stores) {
  if (stores.length === 0) return [];
  return matrixOf(['--target', stores.join(',')]).map((job) => ({ group: job.group, shard: job.shard, targets: job.targets.join(',') }));
}

await runScript(() => {
  const out = outputFolder('node fetch-reviewed-plans.mjs OUT');
  const sha = currentCommit();
  const forge = currentForge(readState());
  const request = forge.mergedRequestOf(sha);
  if (!request) {
    report('error', `${sha.slice(0, 7)} came from no merged pull request: erpsync applies only plans reviewed on one. Push the change through a pull request.`);
    return 1;
  }
  if (!forge.downloadPlans(request, out)) {
    report('error', `no saved plans for the last commit ${request.head.slice(0, 7)} of #${request.number}: its plan did not succeed, or they expired. Plan again: open a pull request with the change.`);
    return 1;
  }
  const reviewed = readJson(path.join(out, 'request.json'));
  if (reviewed.head !== request.head || !(reviewed.exitcode === 0 || reviewed.exitcode === 2)) {
    report('error', `the saved plans of #${request.number} are not a successful plan of ${request.head.slice(0, 7)}: plan again`);
    return 1;
  }
  const groups = groupsOf(storesToApply(out, reviewed));
  writeJson(path.join(out, 'groups.json'), groups);
  setOutput('matrix', groups.length > 0 ? JSON.stringify({ include: groups }) : '');
  addSummary(`### erpsync: the reviewed plans of #${request.number} (${request.head.slice(0, 7)})\n\n${groups.length > 0 ? groups.map((g) => `- \`${g.group}\`: ${g.targets.split(',').join(', ')}`).join('\n') : 'They change no store: nothing to apply.'}`);
  return 0;
});
