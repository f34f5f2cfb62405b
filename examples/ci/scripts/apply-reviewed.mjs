// The merge loop, one concurrency group's job: applies exactly the reviewed plans of the stores
// named in ERPSYNC_TARGETS (`erpsync apply OUT/plans --target …`). erpsync refuses (exit 3, nothing
// written) when the checkout's manifests are not the ones planned — the main branch moved past the
// request — and refuses a store whose account changed since the plan alone, the others applying.
// The journal records this commit and the job's actor for every store.
// Usage: ERPSYNC_TARGETS=a,b node apply-reviewed.mjs OUT
import path from 'node:path';
import process from 'node:process';
import { addSummary, erpsync, outputFolder, readState, report, runScript } from './ci-lib.mjs';

const outcomes = {
  0: ['notice', 'applied the reviewed plans'],
  1: ['error', 'a change failed or was blocked (named above): fix it in a new pull request'],
  3: ['error', 'refused: the manifests or a store\'s account changed since these plans were made (named above). Plan again: open a pull request with the change'],
};

await runScript(() => {
  const out = outputFolder('ERPSYNC_TARGETS=a,b node apply-reviewed.mjs OUT');
  const targets = process.env.ERPSYNC_TARGETS ?? '';
  if (targets === '') throw new Error('ERPSYNC_TARGETS names no store');
  const state = readState();
  if (state === undefined) throw new Error('the ERPSYNC_STATE secret is not set (the backend\'s URL and key): see examples/ci/README.md');
  const { code } = erpsync(['apply', path.join(out, 'plans'), '--target', targets, '--auto-approve'], { state });
  const [level, message] = outcomes[code] ?? outcomes[1];
  report(level, `${targets.split(',').join(', ')}: ${message} (exit ${code})`);
  addSummary(`### erpsync apply: ${targets.split(',').join(', ')}: exit ${code}`);
  return code;
});
