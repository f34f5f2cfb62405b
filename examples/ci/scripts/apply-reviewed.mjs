// The merge loop, one concurrency group's job: applies exactly the reviewed plans of the stores
// named in ERPSYNC_TARGETS (`erpsync apply OUT/plans --target …`). erpsync refuses (exit 3, nothing
// written) when the checkout's manifests are not the ones planned — the main branch moved past the
// request — and refuses a store whose account changed since the plan alone, the others applying.
// The journal records this commit and the job's actor for every store.
// The job's stores: ERPSYNC_TARGETS (GitHub's matrix entry), or ERPSYNC_GROUP_SHARD=I/N (a GitLab
// job of `parallel: N`, N the config's concurrency groups): group I's entry of OUT/groups.json.
// Usage: ERPSYNC_TARGETS=a,b node apply-reviewed.mjs OUT
import path from 'node:path';
import process from 'node:process';
import { addSummary, erpsync, outputFolder, readJson, readState, report, runScript } from './ci-lib.mjs';

const outcomes = {
  0: ['notice', 'applied the reviewed plans'],
  1: ['error', 'a change failed or was blocked (named above): fix it in a new pull request'],
  3: ['error', 'refused: the manifests or a store\'s account changed since these plans were made (named above); plan again: open a pull request that touches these stores'],
};

/** The stores of concurrency group I of N, from the groups the reviewed plans touch. */
function storesOfShard(out, shard) {
  if (!shard) throw new Error('neither ERPSYNC_TARGETS nor ERPSYNC_GROUP_SHARD names this job\'s stores');
  const groups = readJson(path.join(out, 'groups.json'));
  const other = groups.find((g) => g.shard.split('/')[1] !== shard.split('/')[1]);
  if (other) throw new Error(`this job is one of ${shard.split('/')[1]} (parallel) but the config has ${other.shard.split('/')[1]} concurrency groups: make them equal`);
  return groups.find((g) => g.shard === shard)?.targets ?? '';
}

await runScript(() => {
  const out = outputFolder('ERPSYNC_TARGETS=a,b node apply-reviewed.mjs OUT');
  const targets = process.env.ERPSYNC_TARGETS ?? storesOfShard(out, process.env.ERPSYNC_GROUP_SHARD);
  if (targets === '') {
    report('notice', `nothing to apply in group ${process.env.ERPSYNC_GROUP_SHARD}`);
    return 0;
  }
  const state = readState();
  if (state === undefined) throw new Error('the ERPSYNC_STATE secret is not set (the backend\'s URL and key): see examples/ci/README.md');
  const { code } = erpsync(['apply', path.join(out, 'plans'), '--target', targets, '--auto-approve'], { state });
  const [level, message] = outcomes[code] ?? outcomes[1];
  report(level, `${targets.split(',').join(', ')}: ${message} (exit ${code})`);
  addSummary(`### erpsync apply: ${targets.split(',').join(', ')}: exit ${code}`);
  return code;
});
