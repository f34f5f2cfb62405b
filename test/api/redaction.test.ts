// The failure paths of the client, the credentials and login, run with a known token, client
// secret and refresh token: none of them may appear in anything printed (stdout, stderr, the
// --debug trace, the top-level error report) or thrown (message, details, properties, causes).
import { inspect } from 'node:util';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApiClient, createOAuthProvider, fileCredentialSlot, createStaticTokenProvider, writeCredentialsFile } from '../../src/api/index.js';
import type { ApiClient, ApiClientOptions, ApiEvent, ApiRequest } from '../../src/api/index.js';
import { main, reportFailure } from '../../src/cli/main.js';
import { openTarget } from '../../src/target/open-target.js';
import { waitForOutput } from '../support/eventually.js';
import { captureIO, freePort, onCleanup, startEmulator, tempDir } from './support.js';

const KNOWN_TOKEN = 'tok-KNOWN-5f1c9e2a7b3d';
const KNOWN_SECRET = 'sec-KNOWN-8d3e4f1a0c6b';
const KNOWN_REFRESH = 'ref-KNOWN-2b7a9c4e6d1f';
const secrets = [KNOWN_TOKEN, KNOWN_SECRET, KNOWN_REFRESH, Buffer.from(`app:${KNOWN_SECRET}`).toString('base64')];

/** Everything a person or a log could see of a failure. */
function exposeFailure(error: unknown): string[] {
  const io = captureIO({}, '/');
  reportFailure(error, io, true);
  return [inspect(error, { depth: 20, showHidden: true }), io.err(), io.out()];
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the failure path did fail').toBeInstanceOf(Error);
  return error;
}

function expectNoSecret(texts: readonly string[]): void {
  const all = texts.join('\n');
  for (const secret of secrets) expect(all).not.toContain(secret);
}

describe('secrets never leak from failure paths', () => {
  it('API failures with a known token, in errors, events and the debug trace', async () => {
    const emulator = await startEmulator({ token: KNOWN_TOKEN });
    const seen: string[] = [];
    const events: ApiEvent[] = [];
    const make = (options: Partial<ApiClientOptions> = {}): ApiClient => {
      const client = createApiClient({
        baseUrl: emulator.baseUrl,
        credentials: createStaticTokenProvider(KNOWN_TOKEN),
        rate: Number.POSITIVE_INFINITY,
        retry: { baseDelayMs: 1, maxDelayMs: 2, maxAttempts: 2 },
        secrets: [KNOWN_SECRET],
        onEvent: (e) => events.push(e),
        ...options,
      });
      onCleanup(() => client.close());
      return client;
    };
    const client = make();
    const attempt = async (c: ApiClient, req: ApiRequest, faults?: Parameters<typeof emulator.setFaults>[0]): Promise<void> => {
      emulator.setFaults(faults);
      seen.push(...exposeFailure(await failureOf(c.request(req))));
    };
    // The token and the secret in the path, the query and the body of failing requests.
    await attempt(client, { method: 'GET', path: `/formas-pagamentos/${KNOWN_TOKEN}` });
    await attempt(client, { method: 'GET', path: '/formas-pagamentos/1', query: { descricao: KNOWN_SECRET } });
    await attempt(client, { method: 'POST', path: '/formas-pagamentos', body: { descricao: KNOWN_SECRET, tipoPagamento: 999 } });
    await attempt(client, { method: 'GET', path: '/formas-pagamentos' }, { probability: 1, kinds: ['http503'] });
    await attempt(client, { method: 'GET', path: '/formas-pagamentos' }, { probability: 1, kinds: ['http429-html'] });
    await attempt(client, { method: 'POST', path: '/formas-pagamentos', body: { descricao: KNOWN_SECRET } }, { probability: 1, kinds: ['reset-before'] });
    await attempt(client, { method: 'PUT', path: `/formas-pagamentos/${KNOWN_TOKEN}`, body: {} }, { probability: 1, kinds: ['reset-after'] });
    await attempt(make({ maxRequests: 1 }), { method: 'GET', path: '/formas-pagamentos' }, { probability: 1, kinds: ['http500'] });
    await attempt(make({ circuit: { maxErrors: 0 } }), { method: 'GET', path: `/x/${KNOWN_TOKEN}` });
    // A rejected token.
    await attempt(make({ credentials: createStaticTokenProvider(`${KNOWN_TOKEN}-revoked`) }), { method: 'GET', path: '/formas-pagamentos' });
    // Nothing listening.
    const closed = createApiClient({
      baseUrl: `http://127.0.0.1:${await freePort()}/Api/v3`,
      credentials: createStaticTokenProvider(KNOWN_TOKEN),
      retry: { baseDelayMs: 1, maxAttempts: 2 },
      onEvent: (e) => events.push(e),
    });
    onCleanup(() => closed.close());
    seen.push(...exposeFailure(await failureOf(closed.request({ method: 'GET', path: `/formas-pagamentos?t=${KNOWN_TOKEN}` }))));

    // The CLI path with --debug: every request traced on stderr, then the error report.
    emulator.setFaults(undefined);
    const io = captureIO({ BLING_ACCESS_TOKEN: KNOWN_TOKEN, ERPSYNC_DEBUG: '1' }, await tempDir());
    const opened = await openTarget({ baseUrl: emulator.baseUrl, debug: true }, io, { client: { secrets: [KNOWN_SECRET] } });
    onCleanup(() => opened.close());
    await opened.client.request({ method: 'GET', path: '/formas-pagamentos', query: { descricao: KNOWN_SECRET } });
    seen.push(...exposeFailure(await failureOf(opened.client.request({ method: 'DELETE', path: `/formas-pagamentos/${KNOWN_TOKEN}` }))));
    seen.push(io.err(), io.out());

    expect(events.length).toBeGreaterThan(20);
    expect(io.err()).toContain('[redacted]');
    expectNoSecret([...seen, JSON.stringify(events)]);
  });

  it('OAuth failures with a known client secret and refresh token', async () => {
    const emulator = await startEmulator({ oauthClients: [{ clientId: 'app', clientSecret: KNOWN_SECRET, redirectUri: 'http://127.0.0.1:1/cb' }] });
    const dir = await tempDir();
    const seen: string[] = [];
    const file = join(dir, 'credentials.json');
    await writeCredentialsFile(file, { version: 1, clientId: 'app', tokenUrl: `${emulator.baseUrl}/oauth/token`, refreshToken: KNOWN_REFRESH, updatedAt: new Date().toISOString() });
    for (const clientSecret of [KNOWN_SECRET, `${KNOWN_SECRET}-wrong`, undefined]) {
      const client = createApiClient({ baseUrl: emulator.baseUrl, credentials: createOAuthProvider({ slot: fileCredentialSlot(file), clientSecret }), rate: Number.POSITIVE_INFINITY });
      onCleanup(() => client.close());
      seen.push(...exposeFailure(await failureOf(client.request({ method: 'GET', path: '/formas-pagamentos' }))));
    }
    // The token endpoint unreachable.
    const offline = createApiClient({
      baseUrl: emulator.baseUrl,
      credentials: createOAuthProvider({ slot: fileCredentialSlot(file), clientSecret: KNOWN_SECRET, tokenUrl: `http://127.0.0.1:${await freePort()}/oauth/token` }),
    });
    onCleanup(() => offline.close());
    seen.push(...exposeFailure(await failureOf(offline.request({ method: 'GET', path: '/formas-pagamentos' }))));
    expect(seen.join('\n')).toContain('the token endpoint refused the refresh token');
    expectNoSecret(seen);
  });

  it('login failures with a known client secret', async () => {
    const redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
    const emulator = await startEmulator({ oauthClients: [{ clientId: 'app', clientSecret: 'the-registered-one', redirectUri }] });
    const io = captureIO({ BLING_CLIENT_ID: 'app', BLING_CLIENT_SECRET: KNOWN_SECRET, ERPSYNC_DEBUG: '1' }, await tempDir());
    const running = main(['login', '--base-url', emulator.baseUrl, '--redirect-uri', redirectUri], io);
    const [url] = await waitForOutput(io.out, /https?:\/\/\S+\/oauth\/authorize\?\S+/);
    const browser = await fetch(url);
    expect(browser.status).toBe(500);
    expect(await running).toBe(1);
    expect(io.err()).toContain('the token endpoint refused the authorization code');
    expectNoSecret([io.out(), io.err(), await browser.text()]);
  });
});
