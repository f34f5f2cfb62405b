// The API client and the token call through a loopback logging proxy (plain http, absolute form):
// the hold-back that fences a lock at the socket still holds through the proxy's dispatcher, and a
// proxy that refuses the run is named in the error, its credentials masked.
import { describe, expect, it } from 'vitest';
import { createApiClient, createStaticTokenProvider, readProxySettings, requestToken } from '../../src/api/index.js';
import type { ApiEvent } from '../../src/api/index.js';
import { defaultOAuthClient } from '../../src/emulator/index.js';
import { startLoggingProxy } from '../support/logging-proxy.js';
import type { LoggingProxy } from '../support/logging-proxy.js';
import { onCleanup, startEmulator } from './support.js';

const password = 'pr0xy-s3cret-word';

async function proxy(options: Parameters<typeof startLoggingProxy>[0] = {}): Promise<LoggingProxy> {
  const started = await startLoggingProxy(options);
  onCleanup(() => started.close());
  return started;
}

describe('the client through a proxy', () => {
  it('holds back unsent an attempt whose lock confirmation lapsed before its socket, then sends it once', async () => {
    const emulator = await startEmulator();
    const logging = await proxy();
    let confirmations = 0;
    const events: ApiEvent[] = [];
    const client = createApiClient({
      baseUrl: emulator.baseUrl,
      credentials: createStaticTokenProvider(emulator.token),
      rate: Number.POSITIVE_INFINITY,
      proxy: readProxySettings({ HTTP_PROXY: logging.url }),
      // The first confirmation has lapsed by the time the request reaches its socket; the second holds.
      beforeSend: async () => (confirmations++ === 0 ? -1 : 60_000),
      onEvent: (event) => events.push(event),
    });
    onCleanup(() => client.close());
    await client.request({ method: 'POST', path: '/grupos-produtos', body: { nome: 'Maquiagem' } });
    expect(confirmations).toBe(2);
    expect(events.filter((e) => e.type === 'request-end').map((e) => ('error' in e ? e.error : e.status))).toEqual(['held back unsent: the lock confirmation lapsed', 201]);
    expect(logging.log().map((e) => e.method)).toEqual(['POST']);
    expect(emulator.requestLog().map((e) => `${e.method} ${e.path}`)).toEqual(['POST /grupos-produtos']);
  });

  it('names the proxy that refused it, its credentials masked', async () => {
    const emulator = await startEmulator();
    const logging = await proxy({ credentials: { user: 'agency', password } });
    const settings = readProxySettings({ HTTP_PROXY: `http://agency:wrong-${password}@127.0.0.1:${logging.port}` });
    const client = createApiClient({ baseUrl: emulator.baseUrl, credentials: createStaticTokenProvider(emulator.token), rate: Number.POSITIVE_INFINITY, proxy: settings, retry: { maxAttempts: 1 } });
    onCleanup(() => client.close());
    const error = await client.request({ method: 'GET', path: '/formas-pagamentos' }).then(
      () => undefined,
      (caught: unknown) => caught as Error & { details?: string[] },
    );
    const said = `${error?.message} ${error?.details?.join(' ')}`;
    expect(said).toContain(`go through http://[redacted]@127.0.0.1:${logging.port} (HTTP_PROXY)`);
    expect(said).not.toContain(password);
    expect(logging.log()).toEqual([expect.objectContaining({ method: 'GET', authorized: false })]);
    expect(emulator.requestLog()).toEqual([]);

    const token = await requestToken({ tokenUrl: `${emulator.baseUrl}/oauth/token`, clientId: defaultOAuthClient.clientId, clientSecret: defaultOAuthClient.clientSecret, grant: { type: 'refresh_token', refreshToken: 'r'.repeat(40) }, proxy: settings }).catch((caught: unknown) => caught as Error);
    expect((token as Error).message).toMatch(new RegExp(`^could not reach the token endpoint http://127\\.0\\.0\\.1:\\d+/Api/v3/oauth/token through http://\\[redacted\\]@127\\.0\\.0\\.1:${logging.port} \\(HTTP_PROXY\\): `));
    expect((token as Error).message).not.toContain(password);
  });
});
