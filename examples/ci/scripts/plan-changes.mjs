// The pull request loop, its plan: the stores whose manifests or config the change touches
// (`--changed-since BASE`: `targets` lists them, `plan` plans them) go into saved plans and comment parts:
//   OUT/request.json  the request's number, base and head commits, the stores planned, erpsync's exit code
//   OUT/plans/        `erpsync plan --out`: what the merge applies, exactly
//   OUT/comments/     `--comment-dir`: comment-1.md … each under the forge's size limit
// A request from a fork has no secret: its stores are validated offline and not planned.
// Exits 0 whatever erpsync said (finish.mjs exits with it), so that the comment is posted either way.
// Usage: node plan-changes.mjs OUT
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { addSummary, erpsync, matrixOf, outputFolder, readJson, readState, report, runScript, setOutput, storesOf, writeJson } from './ci-lib.mjs';
import { currentForge } from './forge.mjs';

/** Blocked changes per store, from the saved plans (their shape: schemas/plan.schema.json). */
function blockedIn(plans) {
  const blocked = {};
  for (const store of readJson(path.join(plans, 'index.json')).stores) {
    const count = store.file ? readJson(path.join(plans, store.file)).changes.filter((c) => c.action === 'blocked').length : 0;
    if (count > 0) blocked[store.target] = count;
  }
  return blocked;
}

function validateOffline(targets) {
  let failed = 0;
  for (const target of targets) if (erpsync(['validate', '--target', target, '--quiet']).code !== 0) failed += 1;
  return failed;
}

await runScript(() => {
  const out = outputFolder('node plan-changes.mjs OUT');
  const request = currentForge().request();
  const targets = storesOf(matrixOf(['--changed-since', request.base]));
  const record = (exitcode, extra = {}) => {
    writeJson(path.join(out, 'request.json'), { formatVersion: 1, ...request, targets, exitcode, ...extra });
    setOutput('exitcode', String(exitcode));
    setOutput('planned', String(targets.length > 0 && (exitcode === 0 || exitcode === 2) && !request.fork));
  };
  if (request.fork) {
    const failed = validateOffline(targets);
    report('notice', `not planned: a pull request from a fork gets no secrets, so erpsync cannot read the stores' accounts. ${targets.length} affected store(s) validated offline${failed > 0 ? `, ${failed} invalid` : ''}. A maintainer plans it from a branch of this repository.`);
    addSummary(`### erpsync plan: not planned (fork)\n\nPull requests from forks get no secrets. ${targets.length} affected store(s) were validated offline.`);
    record(failed > 0 ? 1 : 0);
    return 0;
  }
  if (targets.length === 0) {
    report('notice', `no store reads a file this change touches (compared with ${request.base.slice(0, 7)}): nothing to plan`);
    record(0);
    return 0;
  }
  const state = readState();
  if (state === undefined) {
    report('error', 'the ERPSYNC_STATE secret is not set (the backend\'s URL and key): see examples/ci/README.md');
    record(1);
    return 0;
  }
  const plans = path.join(out, 'plans');
  const comments = path.join(out, 'comments');
  const plan = erpsync(['plan', '--changed-since', request.base, '--detailed-exitcode', '--out', plans, '--comment-dir', comments], { state });
  const saved = plan.code === 0 || plan.code === 2;
  record(plan.code, saved ? { blocked: blockedIn(plans) } : {});
  const parts = saved ? readdirSync(comments).filter((f) => /^comment-\d+\.md$/.test(f)).length : 0;
  addSummary(`### erpsync plan: ${targets.length} store(s), exit ${plan.code}\n\n${saved ? `${parts} comment part(s) on the pull request; the plans are kept for the merge.` : 'No plans were saved: see the log.'}`);
  return 0;
});
