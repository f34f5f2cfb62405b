// A runner for test/state/logins-kill.test.ts: a real process that opens the postgres backend from
// the built modules (dist/, `npm run build`) and refreshes the logins its plan names, one after
// another, each after its pause. It tells the test on stdout when a refresh holds the login
// (`refreshing T`), when the token endpoint has answered and the commit is next (`answered T`),
// and when the refresh is done (`refreshed T`) or failed (`failed T CODE`), so the test can kill
// it at those moments; then `done`, and it waits for stdin to close before it exits, so a kill
// aimed at it always finds it alive. It prints no token.
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { configureProcessGovernor, createOAuthProvider } from '../../../dist/api/index.js';
import { sealingKeyFrom } from '../../../dist/state/crypto.js';
import { connectPostgres } from '../../../dist/state/postgres/connect.js';
import { postgresIpBudget } from '../../../dist/state/postgres/ip-budget.js';
import { postgresLogins } from '../../../dist/state/postgres/logins.js';

/** Every stored token counts as about to expire, so each planned refresh calls the token endpoint. */
const alwaysRefresh = 24 * 3_600_000;
const say = (line) => process.stdout.write(`${line}\n`);

const choice = JSON.parse(process.env.LOGINS_BACKEND_CHOICE ?? '');
const plan = JSON.parse(process.env.LOGINS_PLAN ?? '');
const baseUrl = process.env.LOGINS_BASE_URL ?? '';
const connection = await connectPostgres(choice, process.env);
const logins = postgresLogins(connection, sealingKeyFrom(process.env, choice.keyEnv));
// Token calls pass the process's governor, whose windows every runner naming the egress shares
// through the backend: the per-IP token rule holds for all of them together.
const governor = configureProcessGovernor(undefined, process.env.ERPSYNC_IP_WINDOW_SCALE);
const ipBudget = postgresIpBudget(connection, { runner: `kill-test ${process.pid}` });
await ipBudget.share(governor, process.env.ERPSYNC_EGRESS ?? 'default');

/** The backend's slot, saying on stdout where a refresh is. */
function announcing(slot, target) {
  return {
    describe: slot.describe,
    read: () => slot.read(),
    rotate: (work) =>
      slot.rotate(async (current) => {
        say(`refreshing ${target}`);
        const next = await work(current);
        say(`answered ${target}`);
        return next;
      }),
  };
}

let failed = false;
for (const { target, pauseMs } of plan) {
  await sleep(pauseMs);
  const slot = announcing(logins.slot({ target, baseUrl, file: '' }), target);
  const provider = createOAuthProvider({ slot, clientSecret: process.env.LOGINS_CLIENT_SECRET, refreshBeforeMs: alwaysRefresh, governor });
  try {
    await provider.accessToken();
    say(`refreshed ${target}`);
  } catch (error) {
    failed = true;
    say(`failed ${target} ${error?.code ?? 'UNKNOWN'}`);
  }
}
await ipBudget.handOn(governor);
await connection.close();
process.exitCode = failed ? 1 : 0;
say('done');
// Reading stdin keeps the process alive until the test closes it.
process.stdin.resume();
