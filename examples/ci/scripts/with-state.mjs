// Runs one command with the one secret's variables (ERPSYNC_STATE: the backend's URL and key, the
// OAuth app …) in its environment, and exits with its code: for the erpsync commands the loops'
// scripts do not wrap, such as the hourly `erpsync login --refresh --all-targets`.
// Usage: node with-state.mjs COMMAND [ARGS…]
import { spawnSync } from 'node:child_process';
import process from 'node:process';
import { childEnv, readState, runScript } from './ci-lib.mjs';

await runScript(() => {
  const [command, ...args] = process.argv.slice(2);
  if (!command) throw new Error('usage: node with-state.mjs COMMAND [ARGS…]');
  const state = readState();
  if (state === undefined) throw new Error('the ERPSYNC_STATE secret is not set (the backend\'s URL and key): see examples/ci/README.md');
  const run = spawnSync(command, args, { env: childEnv(state), stdio: 'inherit' });
  if (run.error) throw new Error(`could not run ${command}: ${run.error.message}`);
  return run.status ?? 1;
});
