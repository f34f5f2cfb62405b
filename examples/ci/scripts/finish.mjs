// The last step of the pull request and schedule loops: the job ends as erpsync did, after the
// comment or the issues were posted either way.
//   plan:  0 no changes and 2 changes pass; blocked changes fail (the merge would refuse them);
//          1 error and 3 refused fail.
//   drift: 0 in sync and 2 drift pass (the issues tell the owners); 1 and 3 fail.
// Usage: node finish.mjs OUT plan|drift
import path from 'node:path';
import process from 'node:process';
import { outputFolder, readJson, report, runScript } from './ci-lib.mjs';

function finishPlan(out) {
  const { exitcode, blocked = {} } = readJson(path.join(out, 'request.json'));
  const stores = Object.keys(blocked);
  if (stores.length > 0) {
    report('error', `blocked changes in ${stores.join(', ')}: the merge would refuse them; see the comment`);
    return 1;
  }
  if (exitcode === 0 || exitcode === 2) return 0;
  report('error', `erpsync plan exited with ${exitcode}`);
  return exitcode;
}

function finishDrift(out) {
  const { exitcode } = readJson(path.join(out, 'drift.json'));
  if (exitcode === 0 || exitcode === 2) return 0;
  report('error', `erpsync drift exited with ${exitcode}`);
  return exitcode;
}

await runScript(() => {
  const loop = process.argv[3];
  const out = outputFolder('node finish.mjs OUT plan|drift');
  if (loop === 'plan') return finishPlan(out);
  if (loop === 'drift') return finishDrift(out);
  throw new Error('usage: node finish.mjs OUT plan|drift');
});
