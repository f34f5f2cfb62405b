// The schedule loop, its drift: every store of the config compared with its manifests, nothing
// changed. erpsync writes one notification per store (`--notify`: open while it drifts, close when
// it is back in sync, error when it could not be read; each with a stable key, its owners, a title
// and a body with the records, fields and who or what changed them) and the fleet's report:
//   OUT/notify.json  for post-drift-notifications.mjs
//   OUT/drift/       each store's whole report (Markdown); the fleet's, under 60,000 characters, goes to the run's summary
//   OUT/drift.json   { exitcode }: 0 in sync, 2 drift, 1 error, 3 refused
// Usage: node drift-fleet.mjs OUT
import path from 'node:path';
import { addSummary, erpsync, outputFolder, readState, report, runScript, setOutput, writeJson } from './ci-lib.mjs';

await runScript(() => {
  const out = outputFolder('node drift-fleet.mjs OUT');
  const state = readState();
  if (state === undefined) throw new Error('the ERPSYNC_STATE secret is not set (the backend\'s URL and key): see examples/ci/README.md');
  const drift = erpsync(['drift', '--all-targets', '--notify', path.join(out, 'notify.json'), '--format', 'markdown', '--out', path.join(out, 'drift')], { state, capture: true });
  writeJson(path.join(out, 'drift.json'), { exitcode: drift.code });
  setOutput('exitcode', String(drift.code));
  addSummary(drift.stdout);
  if (drift.code === 2) report('notice', 'stores drifted: their owners are told in an issue each');
  return 0;
});
