// Token upkeep (issue 34) against the emulator, on both backends' login stores: of 30 logins, the
// 10 whose token expires soon cost exactly 10 token calls and the next upkeep none; a login the
// token endpoint refuses fails alone (its code, no token) while the others refresh; two runners
// upkeeping the same logins at once send those 10 between them (the store's exclusive refresh);
// and the service's token rule, scaled in time, is never broken (the most token calls the
// emulator saw in any window is the governor's budget, and its per-IP ledger records no
// violation). Then the command: `erpsync login --refresh` on a config (one line per target, --json,
// --dry-run, exit codes), `erpsync login` storing into the postgres backend, and `targets --check
// --json` reporting each login's age, expiry and scopes — never a token.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGovernor, ipBudgetOf, NO_PROXY_SETTINGS, storedFromTokenSet } from '../../src/api/index.js';
import type { Governor, StoredCredentials } from '../../src/api/index.js';
import { main } from '../../src/cli/main.js';
import { createIpLedger, serviceIpRules } from '../../src/emulator/index.js';
import type { Emulator, OAuthClient } from '../../src/emulator/index.js';
import { sealingKeyFrom } from '../../src/state/crypto.js';
import { localLogins } from '../../src/state/local/logins.js';
import { connectPostgres } from '../../src/state/postgres/connect.js';
import { postgresLogins } from '../../src/state/postgres/logins.js';
import type { LoginRef, LoginStore } from '../../src/state/state-store.js';
import { planLoginUpkeep, runLoginUpkeep } from '../../src/workflows/login-upkeep.js';
import type { UpkeepPlan, UpkeepResult } from '../../src/workflows/login-upkeep.js';
import { answersWith, authorizeOnEmulator, captureIO, freePort, startEmulator } from '../api/support.js';
import { waitForOutput } from '../support/eventually.js';
import { freshBackend } from '../support/postgres.js';
import type { TestBackend } from '../support/postgres.js';
import { runCli } from '../support/run-cli.js';
import { mostInWindow } from '../support/windows.js';

const minute = 60_000;
const hour = 60 * minute;
const within = 2 * hour;

interface Backend {
  /** Another store on the same logins, as a second runner opens it (for postgres, a pool of its own). */
  open(): Promise<LoginStore>;
  ref(target: string, baseUrl: string): LoginRef;
  dir: string;
  /** The variables a CLI run needs to use this backend (none for local). */
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

async function localBackend(): Promise<Backend> {
  const dir = await mkdtemp(join(tmpdir(), 'erpsync-upkeep-'));
  return {
    dir,
    env: {},
    open: () => Promise.resolve(localLogins()),
    ref: (target, baseUrl) => ({ target, baseUrl, file: join(dir, '.erpsync', `credentials-${target}.json`) }),
    close: () => rm(dir, { recursive: true, force: true }),
  };
}

async function postgresBackend(): Promise<Backend> {
  const dir = await mkdtemp(join(tmpdir(), 'erpsync-upkeep-'));
  const test: TestBackend = freshBackend();
  const env = { ...process.env, ...test.env };
  const closes: (() => Promise<void>)[] = [];
  return {
    dir,
    env: test.env,
    async open() {
      const connection = await connectPostgres(test.choice, env);
      closes.push(() => connection.close());
      return postgresLogins(connection, sealingKeyFrom(env, test.choice.keyEnv));
    },
    ref: (target, baseUrl) => ({ target, baseUrl, file: join(dir, '.erpsync', `credentials-${target}.json`) }),
    async close() {
      for (const close of closes) await close();
      await test.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

const opened: Backend[] = [];
afterEach(async () => {
  for (const backend of opened.splice(0)) await backend.close();
});

async function using(make: () => Promise<Backend>): Promise<Backend> {
  const backend = await make();
  opened.push(backend);
  return backend;
}

const app: OAuthClient = { clientId: 'erpsync-upkeep', clientSecret: 'app-secret-for-the-upkeep', redirectUri: 'http://127.0.0.1:1/callback' };
const names = (count: number) => Array.from({ length: count }, (_, i) => `loja-${String(i + 1).padStart(2, '0')}`);
const tokenCallTimes = (emulator: Emulator) => emulator.requestLog().filter((e) => e.method === 'POST' && e.path === '/oauth/token').map((e) => e.at);

/** A login per target, authorized on the emulator; `expiresInMs(i)` sets when each one's access token is said to expire. */
async function storeLogins(emulator: Emulator, store: LoginStore, backend: Backend, targets: readonly string[], expiresInMs: (i: number) => number | undefined): Promise<void> {
  for (const [i, target] of targets.entries()) {
    const tokens = await authorizeOnEmulator(emulator, app);
    const stored = storedFromTokenSet(tokens, { baseUrl: emulator.baseUrl, clientId: app.clientId, tokenUrl: `${emulator.baseUrl}/oauth/token`, now: Date.now() });
    const expires = expiresInMs(i);
    await store.write(backend.ref(target, emulator.baseUrl), expires === undefined ? stored : { ...stored, expiresAt: new Date(Date.now() + expires).toISOString() });
  }
  emulator.clearLog();
}

/** One runner's upkeep plan: it reads the logins through its store and picks those due. */
async function planUpkeep(emulator: Emulator, store: LoginStore, backend: Backend, targets: readonly string[]): Promise<UpkeepPlan> {
  const logins = await Promise.all(targets.map(async (target) => ({ target, credentials: await store.slot(backend.ref(target, emulator.baseUrl)).read() })));
  return planLoginUpkeep(logins, { now: Date.now(), withinMs: within });
}

/** One runner's upkeep: it plans, then refreshes what it found due. */
async function upkeep(emulator: Emulator, store: LoginStore, backend: Backend, targets: readonly string[], governor: Governor): Promise<UpkeepResult[]> {
  return refreshPlanned(emulator, store, backend, await planUpkeep(emulator, store, backend, targets), governor);
}

function refreshPlanned(emulator: Emulator, store: LoginStore, backend: Backend, plan: UpkeepPlan, governor: Governor): Promise<UpkeepResult[]> {
  return runLoginUpkeep(plan, {
    slotOf: (target) => store.slot(backend.ref(target, emulator.baseUrl)),
    clientOf: () => ({ clientSecret: app.clientSecret }),
    governor,
    proxy: NO_PROXY_SETTINGS,
    signal: new AbortController().signal,
  });
}


describe.each([
  ['local', localBackend],
  ['postgres', postgresBackend],
] as const)('token upkeep on the %s backend', (_name, make) => {
  it('refreshes the 10 of 30 logins that expire soon with exactly 10 token calls, then none', async () => {
    const backend = await using(make);
    const emulator = await startEmulator({ oauthClients: [app] });
    const store = await backend.open();
    const targets = names(30);
    // Every third login expires within the hour (the first ten of them), the rest in 6 h.
    await storeLogins(emulator, store, backend, targets, (i) => (i % 3 === 0 && i < 30 ? 20 * minute + i * minute : undefined));
    const soon = targets.filter((_, i) => i % 3 === 0);
    expect(soon).toHaveLength(10);

    const governor = createGovernor();
    const results = await upkeep(emulator, store, backend, targets, governor);
    expect(tokenCallTimes(emulator)).toHaveLength(10);
    expect(results.map((r) => r.target)).toEqual(soon);
    expect(results.every((r) => r.outcome === 'refreshed' && Date.parse(r.expiresAt ?? '') > Date.now() + 5 * hour)).toBe(true);
    // What the store holds now works, and nothing the results say is a token.
    const refreshed = await store.slot(backend.ref(soon[3] ?? '', emulator.baseUrl)).read();
    expect(await answersWith(emulator, refreshed.accessToken)).toBe(200);
    expect(JSON.stringify(results)).not.toContain(refreshed.accessToken);

    expect(await upkeep(emulator, store, backend, targets, governor)).toEqual([]);
    expect(tokenCallTimes(emulator)).toHaveLength(10);
  });

  it('a login the token endpoint refuses fails alone, with its code and no token; the others are refreshed', async () => {
    const backend = await using(make);
    const emulator = await startEmulator({ oauthClients: [app] });
    const store = await backend.open();
    const targets = names(5);
    await storeLogins(emulator, store, backend, targets, () => 10 * minute);
    const spent = await store.slot(backend.ref('loja-03', emulator.baseUrl)).read();
    await store.write(backend.ref('loja-03', emulator.baseUrl), { ...spent, refreshToken: 'a-refresh-token-the-service-never-issued' });

    const results = await upkeep(emulator, store, backend, targets, createGovernor());
    expect(results.map((r) => [r.target, r.outcome])).toEqual(targets.map((t) => [t, t === 'loja-03' ? 'failed' : 'refreshed']));
    expect(results[2]).toMatchObject({ code: 'AUTH_FAILED', message: expect.stringContaining('the token endpoint refused') });
    expect(JSON.stringify(results)).not.toContain('a-refresh-token-the-service-never-issued');
    expect(JSON.stringify(results)).not.toContain(app.clientSecret);
    expect(tokenCallTimes(emulator)).toHaveLength(5);
  });

  it('two runners upkeeping the same logins at once send each due login one token call between them', async () => {
    const backend = await using(make);
    const emulator = await startEmulator({ oauthClients: [app] });
    const [first, second] = [await backend.open(), await backend.open()];
    const targets = names(10);
    await storeLogins(emulator, first, backend, targets, () => 10 * minute);

    // Both runners read the logins before either refreshes one, so each finds all ten due.
    const plans = [await planUpkeep(emulator, first, backend, targets), await planUpkeep(emulator, second, backend, targets)] as const;
    const both = await Promise.all([refreshPlanned(emulator, first, backend, plans[0], createGovernor()), refreshPlanned(emulator, second, backend, plans[1], createGovernor())]);
    expect(tokenCallTimes(emulator)).toHaveLength(10);
    const outcomes = both.flat();
    expect(outcomes.filter((r) => r.outcome === 'refreshed')).toHaveLength(10);
    expect(outcomes.filter((r) => r.outcome === 'already-fresh')).toHaveLength(10);
    for (const target of targets) {
      const login = await second.slot(backend.ref(target, emulator.baseUrl)).read();
      expect(await answersWith(emulator, login.accessToken)).toBe(200);
    }
  });

  it("keeps to the service's token rule: never more token calls in a window than the governor's budget", async () => {
    const backend = await using(make);
    // The rule's window scaled to 1.5 s (the service: 20 calls in 60 s; the governor keeps 16).
    const scale = 0.025;
    const ledger = createIpLedger({ enforce: false, rules: serviceIpRules.map((rule) => ({ ...rule, windowMs: rule.windowMs * scale })) });
    const emulator = await startEmulator({ oauthClients: [app], ipRules: ledger });
    const store = await backend.open();
    const targets = names(30);
    await storeLogins(emulator, store, backend, targets, () => 30 * minute);
    ledger.reset();

    const governor = createGovernor(ipBudgetOf(1, scale));
    const results = await upkeep(emulator, store, backend, targets, governor);
    expect(results.filter((r) => r.outcome === 'refreshed')).toHaveLength(30);
    const times = tokenCallTimes(emulator);
    expect(times).toHaveLength(30);
    expect(governor.budget).toMatchObject({ tokenCalls: 16, tokenWindowMs: 1_500 });
    // Marks are whole milliseconds: a window is judged 2 ms short.
    expect(mostInWindow(times, governor.budget.tokenWindowMs, 2)).toBe(16);
    expect(ledger.violations()).toEqual([]);
  });
});

describe('erpsync login --refresh', () => {
  const secretEnv = { UPKEEP_APP_ID: app.clientId, UPKEEP_APP_SECRET: app.clientSecret, LOJA_TOKEN: 'static-token-of-loja-05' };

  /** A config of five targets on the emulator: 01-03 with logins, 04 without, 05 with a static token. */
  async function fleetConfig(backend: Backend, emulator: Emulator): Promise<LoginStore> {
    const entries = names(5).flatMap((name, i) => [
      `  lojas/${name}:`,
      `    baseUrl: ${emulator.baseUrl}`,
      i === 4 ? '    credentials: { tokenEnv: LOJA_TOKEN }' : '    credentials: { clientIdEnv: UPKEEP_APP_ID, clientSecretEnv: UPKEEP_APP_SECRET }',
    ]);
    await writeFile(join(backend.dir, 'erpsync.config.yaml'), ['version: 1', 'targets:', ...entries, ''].join('\n'));
    const store = await backend.open();
    const expiries = [30 * minute, 5 * hour, 20 * minute];
    for (const [i, name] of names(3).entries()) {
      const tokens = await authorizeOnEmulator(emulator, app);
      const stored = storedFromTokenSet(tokens, { baseUrl: emulator.baseUrl, clientId: app.clientId, tokenUrl: `${emulator.baseUrl}/oauth/token`, now: Date.now() });
      await store.write(backend.ref(`lojas/${name}`, emulator.baseUrl), { ...stored, expiresAt: new Date(Date.now() + (expiries[i] ?? 0)).toISOString() });
    }
    emulator.clearLog();
    return store;
  }

  const envOf = (backend: Backend): NodeJS.ProcessEnv => ({ ...secretEnv, ...backend.env, ERPSYNC_LOCK_DIR: join(backend.dir, '.locks') });
  const secretsOf = async (store: LoginStore, backend: Backend, emulator: Emulator): Promise<string[]> =>
    (await Promise.all(names(3).map((name) => store.slot(backend.ref(`lojas/${name}`, emulator.baseUrl)).read()))).flatMap((c: StoredCredentials) => [c.refreshToken, c.accessToken ?? '']);

  it('refreshes the due logins of every target, one line each, and fails for the missing one', async () => {
    const backend = await using(localBackend);
    const emulator = await startEmulator({ oauthClients: [app] });
    const store = await fleetConfig(backend, emulator);
    const run = await runCli(['login', '--refresh', '--all-targets'], { cwd: backend.dir, env: envOf(backend) });
    expect(run.code, run.stderr).toBe(1);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^Token upkeep of 5 logins in the local credentials files: refreshing those whose access token expires within 2:00:00$/);
    expect(lines.slice(1, 6).map((line) => line.split(/\s{2,}/).slice(0, 2))).toEqual([
      ['lojas/loja-01', 'refreshed'],
      ['lojas/loja-02', 'fresh'],
      ['lojas/loja-03', 'refreshed'],
      ['lojas/loja-04', 'missing'],
      ['lojas/loja-05', 'skipped'],
    ]);
    expect(lines[4]).toContain('run `erpsync login --target lojas/loja-04`');
    expect(lines[5]).toContain('uses the token in LOJA_TOKEN');
    expect(lines[6]).toBe('2 refreshed, 0 refreshed by another runner, 1 fresh, 1 missing, 0 failed, 1 skipped, 2 token calls');
    expect(tokenCallTimes(emulator)).toHaveLength(2);
    for (const secret of await secretsOf(store, backend, emulator)) expect(run.stdout + run.stderr).not.toContain(secret);

    // The three with logins, as JSON: nothing due any more, exit 0.
    const again = await runCli(['login', '--refresh', '--target', 'lojas/loja-01,lojas/loja-02,lojas/loja-03', '--json'], { cwd: backend.dir, env: envOf(backend) });
    expect(again.code, again.stderr).toBe(0);
    const report = JSON.parse(again.stdout) as { tokenCalls: number; withinMs: number; targets: { target: string; outcome: string }[] };
    expect(report).toMatchObject({ tokenCalls: 0, withinMs: within });
    expect(report.targets.map((t) => t.outcome)).toEqual(['fresh', 'fresh', 'fresh']);
  });

  it('--dry-run lists each login with its age, expiry and scopes and what would be refreshed, sending nothing', async () => {
    const backend = await using(localBackend);
    const emulator = await startEmulator({ oauthClients: [app] });
    const store = await fleetConfig(backend, emulator);
    const run = await runCli(['login', '--refresh', '--all-targets', '--dry-run', '--json', '--within', '45m'], { cwd: backend.dir, env: envOf(backend) });
    expect(run.code, run.stderr).toBe(1);
    const report = JSON.parse(run.stdout) as { dryRun: boolean; withinMs: number; targets: Record<string, unknown>[] };
    expect(report).toMatchObject({ dryRun: true, withinMs: 45 * minute });
    expect(report.targets.map((t) => [t.target, t.outcome])).toEqual([
      ['lojas/loja-01', 'due'],
      ['lojas/loja-02', 'fresh'],
      ['lojas/loja-03', 'due'],
      ['lojas/loja-04', 'missing'],
      ['lojas/loja-05', 'skipped'],
    ]);
    const first = report.targets[0] as { expiresInMs: number; login: { ageMs: number; expiresInMs: number; scopes: string[] } };
    expect(first.login.ageMs).toBeGreaterThanOrEqual(0);
    expect(first.login.expiresInMs).toBeLessThanOrEqual(30 * minute);
    expect(first.login.scopes.length).toBeGreaterThan(0);
    expect(tokenCallTimes(emulator)).toEqual([]);
    for (const secret of await secretsOf(store, backend, emulator)) expect(run.stdout).not.toContain(secret);
  });

  it('refuses the upkeep flags without --refresh', async () => {
    const backend = await using(localBackend);
    const run = await runCli(['login', '--all-targets', '--dry-run'], { cwd: backend.dir, env: {} });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--all-targets, --dry-run are for `erpsync login --refresh`');
  });

  it('targets --check --json gives each OAuth target its login: age, expiry, scopes, no token', async () => {
    const backend = await using(localBackend);
    const emulator = await startEmulator({ oauthClients: [app] });
    const store = await fleetConfig(backend, emulator);
    const run = await runCli(['targets', '--check', '--json'], { cwd: backend.dir, env: envOf(backend) });
    const { include } = JSON.parse(run.stdout) as { include: { target: string; login?: Record<string, unknown> }[] };
    const login = (name: string) => include.find((job) => job.target === name)?.login;
    // The service's scopes are numbers, space-separated in the token answer.
    expect(login('lojas/loja-02')).toMatchObject({ status: 'stored', ageMs: expect.any(Number), expiresAt: expect.any(String), expiresInMs: expect.any(Number), scopes: expect.arrayContaining([expect.stringMatching(/^\d+$/)]) });
    expect(login('lojas/loja-04')).toEqual({ status: 'missing', hint: 'run `erpsync login --target lojas/loja-04`' });
    expect(login('lojas/loja-05')).toBeUndefined();
    for (const secret of await secretsOf(store, backend, emulator)) expect(run.stdout).not.toContain(secret);
  });

  it('with the postgres backend, `erpsync login --target` stores the login there (no file) and --refresh keeps it', async () => {
    const backend = await using(postgresBackend);
    const redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
    const emulator = await startEmulator({ oauthClients: [{ ...app, redirectUri }] });
    await writeFile(join(backend.dir, 'erpsync.config.yaml'), ['version: 1', 'targets:', '  lojas/loja-01:', `    baseUrl: ${emulator.baseUrl}`, '    credentials: { clientIdEnv: UPKEEP_APP_ID, clientSecretEnv: UPKEEP_APP_SECRET }', ''].join('\n'));
    const io = captureIO(envOf(backend), backend.dir);
    const running = main(['login', '--target', 'lojas/loja-01', '--redirect-uri', redirectUri], io);
    const [authorizeUrl] = await waitForOutput(io.out, /https?:\/\/\S+\/oauth\/authorize\?\S+/);
    expect((await fetch(authorizeUrl)).status).toBe(200);
    expect(await running, io.err()).toBe(0);
    expect(io.out()).toMatch(/login stored in the postgres backend at .* \(schema t_[0-9a-f]+\), encrypted with the key in ERPSYNC_STATE_KEY/);
    expect(existsSync(join(backend.dir, '.erpsync'))).toBe(false);
    const stored = await (await backend.open()).slot(backend.ref('lojas/loja-01', emulator.baseUrl)).read();
    expect(stored.baseUrl).toBe(emulator.baseUrl);

    emulator.clearLog();
    const fresh = await runCli(['login', '--refresh', '--target', 'lojas/loja-01', '--json'], { cwd: backend.dir, env: envOf(backend) });
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(JSON.parse(fresh.stdout)).toMatchObject({ tokenCalls: 0, targets: [{ target: 'lojas/loja-01', outcome: 'fresh' }] });
    const refreshed = await runCli(['login', '--refresh', '--target', 'lojas/loja-01', '--within', '7h', '--json'], { cwd: backend.dir, env: envOf(backend) });
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(JSON.parse(refreshed.stdout)).toMatchObject({ tokenCalls: 1, targets: [{ target: 'lojas/loja-01', outcome: 'refreshed' }] });
    const after = await (await backend.open()).slot(backend.ref('lojas/loja-01', emulator.baseUrl)).read();
    expect(after.refreshToken).not.toBe(stored.refreshToken);
    expect(await answersWith(emulator, after.accessToken)).toBe(200);
    expect(tokenCallTimes(emulator)).toHaveLength(1);
  });
});
