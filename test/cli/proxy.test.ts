// Runs behind a proxy: HTTP_PROXY and NO_PROXY (and their lower-case twins) honoured for the
// service and its token host, seen at a loopback logging proxy (plain http, absolute form: each
// request is seen). --debug and doctor say which proxy the run uses, never its credentials.
// The https case, a CONNECT tunnel per connection, is proxy-https.test.ts.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storedFromTokenSet, writeCredentialsFile } from '../../src/api/index.js';
import { defaultOAuthClient } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { authorizeOnEmulator } from '../api/support.js';
import { closeTestAccount, groupsManifest, openTestAccount } from '../support/account.js';
import { startLoggingProxy } from '../support/logging-proxy.js';
import type { LoggingProxy, ProxyLogEntry } from '../support/logging-proxy.js';
import { runCli } from '../support/run-cli.js';

let emulator: Emulator;
let dir: string;
let env: NodeJS.ProcessEnv;
let proxy: LoggingProxy;
const password = 'pr0xy-s3cret-word';

beforeEach(async () => {
  ({ emulator, dir, env } = await openTestAccount('erpsync-proxy-'));
  proxy = await startLoggingProxy({ credentials: { user: 'agency', password } });
  writeFileSync(path.join(dir, 'm.yaml'), groupsManifest(['Maquiagem', 'Perfumaria']));
});
afterEach(async () => {
  await proxy.close();
  await closeTestAccount({ emulator, dir });
});

const proxyUrl = (): string => `http://agency:${password}@127.0.0.1:${proxy.port}`;

/** The requests the emulator answered, as `METHOD /path?query`. */
const answered = (): string[] => emulator.requestLog().map((e) => `${e.method} ${e.path}${e.query ? `?${e.query}` : ''}`);

/** The requests the proxy passed on, in the same form (the base URL's path taken off). */
function proxied(): string[] {
  return proxy.log().map((entry: ProxyLogEntry) => {
    if (!('url' in entry) || !entry.authorized) throw new Error(`the proxy saw ${JSON.stringify(entry)}`);
    const url = new URL(entry.url);
    return `${entry.method} ${url.pathname.replace(/^\/Api\/v3/, '')}${url.search}`;
  });
}

describe('HTTP_PROXY and NO_PROXY', () => {
  it('sends every request of a plan through the proxy', async () => {
    const run = await runCli(['plan', 'm.yaml'], { cwd: dir, env: { ...env, HTTP_PROXY: proxyUrl() } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('+ gruposProdutos "Maquiagem"');
    expect(answered().length).toBeGreaterThan(1);
    expect(proxied()).toEqual(answered());
  });

  it('sends none through it when NO_PROXY names the host, or the lower-case no_proxy does', async () => {
    for (const exempt of [{ NO_PROXY: '127.0.0.1' }, { no_proxy: 'localhost,127.0.0.1' }]) {
      emulator.clearLog();
      const run = await runCli(['plan', 'm.yaml'], { cwd: dir, env: { ...env, http_proxy: proxyUrl(), ...exempt } });
      expect(run.code).toBe(0);
      expect(answered().length).toBeGreaterThan(1);
    }
    expect(proxy.log()).toEqual([]);
  });

  it('refreshes an expired login at the token host through the proxy, as every request after it, and so does the token upkeep', async () => {
    const tokens = await authorizeOnEmulator(emulator, defaultOAuthClient);
    const sevenHoursAgo = Date.now() - 7 * 3_600_000;
    await writeCredentialsFile(path.join(dir, '.erpsync', 'credentials.json'), storedFromTokenSet(tokens, { clientId: defaultOAuthClient.clientId, tokenUrl: `${emulator.baseUrl}/oauth/token`, now: sevenHoursAgo }));
    emulator.clearLog();
    const oauthEnv = { ERPSYNC_BASE_URL: emulator.baseUrl, ERPSYNC_RATE: '1000', ERPSYNC_LOCK_DIR: env.ERPSYNC_LOCK_DIR, BLING_CLIENT_SECRET: defaultOAuthClient.clientSecret, HTTP_PROXY: proxyUrl() };
    const run = await runCli(['plan', 'm.yaml'], { cwd: dir, env: oauthEnv });
    expect(run.code).toBe(0);
    expect(answered()[0]).toBe('POST /oauth/token');
    expect(proxied()).toEqual(answered());

    emulator.clearLog();
    proxy.clearLog();
    const upkeep = await runCli(['login', '--refresh', '--within', '24h'], { cwd: dir, env: oauthEnv });
    expect(upkeep.code).toBe(0);
    expect(answered()).toEqual(['POST /oauth/token']);
    expect(proxied()).toEqual(answered());
  });

  it('says under --debug and in doctor which proxy the run uses, never its credentials', async () => {
    const target = new URL(emulator.baseUrl).origin;
    const via = `${target} through http://[redacted]@127.0.0.1:${proxy.port} (HTTP_PROXY)`;
    const debug = await runCli(['plan', '--debug', 'm.yaml'], { cwd: dir, env: { ...env, HTTP_PROXY: proxyUrl() } });
    expect(debug.code).toBe(0);
    expect(debug.stderr).toContain(`debug: proxy: ${via}\n`);
    const doctor = await runCli(['doctor', '--json'], { cwd: dir, env: { ...env, HTTP_PROXY: proxyUrl() } });
    const checks = (JSON.parse(doctor.stdout) as { checks: { subject: string; found: string }[] }).checks;
    expect(checks.find((c) => c.subject === 'proxy')?.found).toBe(via);
    const direct = await runCli(['doctor'], { cwd: dir, env: { ...env, HTTP_PROXY: proxyUrl(), NO_PROXY: '127.0.0.1' } });
    expect(direct.stdout).toContain(`proxy: ${target} direct (NO_PROXY names 127.0.0.1)`);
    for (const run of [debug, doctor, direct]) expect(`${run.stdout}${run.stderr}`).not.toMatch(new RegExp(`${password}|agency`));
  });

  it('refuses a proxy variable it cannot use before any request, without a word of its value', async () => {
    const run = await runCli(['plan', 'm.yaml'], { cwd: dir, env: { ...env, HTTPS_PROXY: `agency:${password}@127.0.0.1:${proxy.port}` } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('HTTPS_PROXY must start with http:// or https://');
    expect(`${run.stdout}${run.stderr}`).not.toMatch(new RegExp(`${password}|agency`));
    expect(answered()).toEqual([]);
  });
});
