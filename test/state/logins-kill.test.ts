// Logins in the postgres backend survive runners that die mid-refresh. Twenty real processes
// (test/state/support/refresh-logins-child.mjs, on the built modules) share one schema and
// refresh the logins of ten OAuth stores fifty times in all, at random moments, against the
// emulator (a server in this process), which rotates single-use refresh tokens; five of them
// are killed with SIGKILL mid-refresh — a few ms after taking a login, or right when the token
// endpoint has answered and the commit is next. Afterwards every store's stored access token
// works; a refresh token can be lost only to a runner killed holding that login after its token
// call went out (the window no client can close: docs/safety.md), and no runner that lived was
// refused for a token another one had spent.
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, createOAuthProvider, createStaticTokenProvider, ipBudgetOf, storedFromTokenSet } from '../../src/api/index.js';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator, OAuthClient } from '../../src/emulator/index.js';
import { sealingKeyFrom } from '../../src/state/crypto.js';
import { connectPostgres } from '../../src/state/postgres/connect.js';
import type { PostgresConnection } from '../../src/state/postgres/connect.js';
import { postgresLogins } from '../../src/state/postgres/logins.js';
import type { LoginStore } from '../../src/state/state-store.js';
import { authorizeOnEmulator } from '../api/support.js';
import { ensureBuiltCli } from '../reliability/support/built-cli.js';
import { createRandom } from '../reliability/support/random.js';
import type { Random } from '../reliability/support/random.js';
import { freshBackend } from '../support/postgres.js';
import { crossProcessSlackMs, mostInWindow } from '../support/windows.js';
import type { TestBackend } from '../support/postgres.js';

const app: OAuthClient = { clientId: 'erpsync-kill', clientSecret: 'app-secret-for-kills', redirectUri: 'http://127.0.0.1:1/callback' };
const targets = Array.from({ length: 10 }, (_, i) => `loja-${i}`);
// The service's token window (20 calls a minute per IP, 16 of them erpsync's) scaled as the benches
// scale it: a minute is 6 s, so fifty refreshes under the rule take seconds, not minutes.
const windowScale = 0.1;
const tokenBudget = ipBudgetOf(1, windowScale);
const childScript = path.join(import.meta.dirname, 'support', 'refresh-logins-child.mjs');

let emulator: Emulator;
let backend: TestBackend;
let connection: PostgresConnection;
let logins: LoginStore;

beforeAll(async () => {
  await ensureBuiltCli();
  emulator = await createEmulator({ seed: 'fresh', rateLimit: 0, oauthClients: [app] });
  backend = freshBackend();
  const env = { ...process.env, ...backend.env };
  connection = await connectPostgres(backend.choice, env);
  logins = postgresLogins(connection, sealingKeyFrom(env, backend.choice.keyEnv));
  for (const target of targets) {
    const tokens = await authorizeOnEmulator(emulator, app);
    await logins.write(refOf(target), storedFromTokenSet(tokens, { baseUrl: emulator.baseUrl, clientId: app.clientId, tokenUrl: `${emulator.baseUrl}/oauth/token`, now: Date.now() }));
  }
}, 180_000);

afterAll(async () => {
  await connection.close();
  await backend.drop();
  await emulator.close();
});

function refOf(target: string): { target: string; baseUrl: string; file: string } {
  return { target, baseUrl: emulator.baseUrl, file: '' };
}

/** Where a doomed runner is killed: on its nth `refreshing` line after a few ms, or on its nth `answered` line at once. */
interface KillAim {
  at: 'refreshing' | 'answered';
  nth: number;
  delayMs: number;
}

interface RunnerEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  failures: { target: string; code: string }[];
  /** The login it was refreshing when the kill was sent, as far as its lines had told. */
  killedDuring?: string;
}

interface PlannedRefresh {
  target: string;
  pauseMs: number;
}

function startRunner(plan: readonly PlannedRefresh[], aim: KillAim | undefined): Promise<RunnerEnd> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [childScript], {
    env: {
      PATH: process.env.PATH,
      ...backend.env,
      LOGINS_BACKEND_CHOICE: JSON.stringify(backend.choice),
      LOGINS_PLAN: JSON.stringify(plan),
      LOGINS_BASE_URL: emulator.baseUrl,
      LOGINS_CLIENT_SECRET: app.clientSecret,
      ERPSYNC_EGRESS: 'kill-test',
      ERPSYNC_IP_WINDOW_SCALE: String(windowScale),
    },
    stdio: 'pipe',
  });
  const end: Omit<RunnerEnd, 'code' | 'signal'> = { failures: [] };
  let refreshing: string | undefined;
  let seen = 0;
  let killSent = false;
  const onLine = (line: string): void => {
    const [event = '', target = '', code = ''] = line.split(' ');
    if (event === 'refreshing') refreshing = target;
    if (event === 'refreshed' || event === 'failed') refreshing = undefined;
    if (event === 'failed') end.failures.push({ target, code });
    // A doomed runner is kept alive until its kill lands, unless its aim never came.
    if (event === 'done' && !killSent) child.stdin.end();
    if (aim?.at === event && (seen += 1) === aim.nth) {
      killSent = true;
      setTimeout(() => {
        end.killedDuring = refreshing;
        child.kill('SIGKILL');
      }, aim.delayMs);
    }
  };
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString('utf8')).split('\n');
    pending = lines.pop() ?? '';
    lines.forEach(onLine);
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code !== 0 && code !== 1 && signal === null) reject(new Error(`a runner ended with ${code}: ${stderr}`));
      resolve({ ...end, code, signal });
    });
  });
}

/** Fifty refreshes: ten runners refresh three stores, ten refresh two, each after a pause of up to 300 ms. */
function plans(random: Random): PlannedRefresh[][] {
  return Array.from({ length: 20 }, (_, runner) => Array.from({ length: runner < 10 ? 3 : 2 }, () => ({ target: random.pick(targets), pauseMs: random.int(0, 300) })));
}

/** Whether the stored refresh token still works: the login is refreshed (and stored) through the backend. */
async function refreshes(target: string): Promise<boolean> {
  const provider = createOAuthProvider({ slot: logins.slot(refOf(target)), clientSecret: app.clientSecret, refreshBeforeMs: 24 * 3_600_000 });
  return provider.accessToken().then(
    () => true,
    () => false,
  );
}

async function getStatusWith(accessToken: string): Promise<number> {
  const client = createApiClient({ baseUrl: emulator.baseUrl, credentials: createStaticTokenProvider(accessToken), rate: Number.POSITIVE_INFINITY });
  try {
    return (await client.request({ method: 'GET', path: '/formas-pagamentos' })).status;
  } finally {
    await client.close();
  }
}

describe('logins in the postgres backend under SIGKILL', () => {
  it('keep every store authenticating after 20 runners refresh them 50 times and 5 are killed mid-refresh', async () => {
    const random = createRandom(34);
    const planned = plans(random);
    const doomed = new Map<number, KillAim>();
    while (doomed.size < 5) {
      const runner = random.int(0, planned.length - 1);
      const nth = random.int(1, planned[runner]?.length ?? 1);
      doomed.set(runner, doomed.size % 2 === 0 ? { at: 'answered', nth, delayMs: 0 } : { at: 'refreshing', nth, delayMs: random.int(0, 5) });
    }
    const tokenCallsBefore = emulator.requestLog().filter((e) => e.path === '/oauth/token').length;

    const ends = await Promise.all(planned.map((plan, runner) => startRunner(plan, doomed.get(runner))));

    const tokenCallTimes = emulator.requestLog().filter((e) => e.path === '/oauth/token').slice(tokenCallsBefore).map((e) => e.at);
    const tokenCalls = tokenCallTimes.length;
    // Together, the runners of the egress stay within its token rule in every window.
    expect(mostInWindow(tokenCallTimes, tokenBudget.tokenWindowMs, crossProcessSlackMs)).toBeLessThanOrEqual(tokenBudget.tokenCalls);
    const killed = ends.filter((end) => end.signal === 'SIGKILL');
    const killedMidRefresh = new Set(killed.flatMap((end) => (end.killedDuring === undefined ? [] : [end.killedDuring])));
    expect(killed.length).toBeGreaterThanOrEqual(1);
    // Every store's stored access token works, whatever was killed when.
    for (const target of targets) {
      const stored = await logins.slot(refOf(target)).read();
      expect(await getStatusWith(stored.accessToken ?? '')).toBe(200);
    }
    const lost: string[] = [];
    for (const target of targets) if (!(await refreshes(target))) lost.push(target);
    // A refresh token is lost only where a runner died holding that login; a runner that lived was
    // refused only on such a login (never for a token another runner had spent).
    for (const target of lost) expect(killedMidRefresh).toContain(target);
    for (const end of ends.filter((e) => e.signal === null)) {
      for (const failure of end.failures) expect({ ...failure, lost: lost.includes(failure.target) }).toEqual({ target: failure.target, code: 'AUTH_FAILED', lost: true });
      expect(end.code).toBe(end.failures.length === 0 ? 0 : 1);
    }
    console.log(
      `logins under kills: ${killed.length} of 5 kills landed (${killedMidRefresh.size} while holding a login), the runners made ${tokenCalls} token calls for 50 planned refreshes (at most ${mostInWindow(tokenCallTimes, tokenBudget.tokenWindowMs, crossProcessSlackMs)} in a ${tokenBudget.tokenWindowMs / 1000} s window, the rule ${tokenBudget.tokenCalls}), ` +
        `${lost.length} of ${targets.length} refresh tokens lost to a kill after the token call and before the commit; every stored access token works`,
    );
  }, 180_000);
});
