// OAuth refresh against the emulator's token endpoint: proactive refresh, rotation written to disk
// before use (and surviving a crash), one shared refresh for concurrent requests, one renewal on 401.
import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApiClient, createOAuthProvider, fileCredentialSlot, readCredentialsFile, requestToken, storedFromTokenSet, writeCredentialsFile } from '../../src/api/index.js';
import type { ApiClient, ApiEvent, StoredCredentials } from '../../src/api/index.js';
import type { Emulator, OAuthClient } from '../../src/emulator/index.js';
import { authorizeOnEmulator, onCleanup, startEmulator, tempDir } from './support.js';

const app: OAuthClient = { clientId: 'erpsync-test', clientSecret: 'app-secret-for-tests', redirectUri: 'http://127.0.0.1:1/callback' };

/** A credentials file from a real authorization, with the access token's expiry moved to `expiresAt`. */
async function credentialsFile(emulator: Emulator, expiresAt: number, accessToken?: string): Promise<{ file: string; initial: StoredCredentials }> {
  const tokens = await authorizeOnEmulator(emulator, app);
  const initial = {
    ...storedFromTokenSet(tokens, { clientId: app.clientId, tokenUrl: `${emulator.baseUrl}/oauth/token`, now: Date.now() }),
    expiresAt: new Date(expiresAt).toISOString(),
    ...(accessToken ? { accessToken } : {}),
  };
  const file = join(await tempDir(), '.erpsync', 'credentials.json');
  await writeCredentialsFile(file, initial);
  return { file, initial };
}

function oauthClient(emulator: Emulator, file: string, options: { signal?: AbortSignal; onEvent?: (e: ApiEvent) => void } = {}): ApiClient {
  const client = createApiClient({
    baseUrl: emulator.baseUrl,
    credentials: createOAuthProvider({ slot: fileCredentialSlot(file), clientSecret: app.clientSecret }),
    rate: Number.POSITIVE_INFINITY,
    ...options,
  });
  onCleanup(() => client.close());
  return client;
}

const tokenCalls = (emulator: Emulator): number => emulator.requestLog().filter((e) => e.path === '/oauth/token').length;

describe('OAuth refresh', () => {
  it('keeps the credentials bound to the base URL they were issued for when it rotates them', async () => {
    const emulator = await startEmulator({ oauthClients: [app] });
    const { file, initial } = await credentialsFile(emulator, Date.now() + 60_000);
    await writeCredentialsFile(file, { ...initial, baseUrl: emulator.baseUrl });
    expect((await oauthClient(emulator, file).request({ method: 'GET', path: '/formas-pagamentos' })).status).toBe(200);
    const rotated = await readCredentialsFile(file);
    expect(rotated.refreshToken).not.toBe(initial.refreshToken);
    expect(rotated.baseUrl).toBe(emulator.baseUrl);
  });

  it('refreshes shortly before expiry and the rotation survives a crash before the next request', async () => {
    const emulator = await startEmulator({ oauthClients: [app] });
    const { file, initial } = await credentialsFile(emulator, Date.now() + 60_000);
    emulator.clearLog();

    // "Crash" the run at the moment the first API request would go out: record what is on disk
    // then, and abort so nothing of the process's memory is used again.
    const controller = new AbortController();
    let onDiskAtFirstRequest: StoredCredentials | undefined;
    const crashing = oauthClient(emulator, file, {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type !== 'request-start' || onDiskAtFirstRequest) return;
        onDiskAtFirstRequest = JSON.parse(readFileSync(file, 'utf8')) as StoredCredentials;
        controller.abort(new Error('crash'));
      },
    });
    await expect(crashing.request({ method: 'GET', path: '/formas-pagamentos' })).rejects.toMatchObject({ code: 'INTERRUPTED' });
    expect(tokenCalls(emulator)).toBe(1);
    expect(onDiskAtFirstRequest?.refreshToken).toBeDefined();
    expect(onDiskAtFirstRequest?.refreshToken).not.toBe(initial.refreshToken);
    expect(onDiskAtFirstRequest?.accessToken).not.toBe(initial.accessToken);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    // The old refresh token is spent: only the one on disk is good now.
    await expect(
      requestToken({ tokenUrl: `${emulator.baseUrl}/oauth/token`, clientId: app.clientId, clientSecret: app.clientSecret, grant: { type: 'refresh_token', refreshToken: initial.refreshToken } }),
    ).rejects.toMatchObject({ code: 'AUTH_FAILED' });

    // A new process starts from the file alone and works without refreshing again.
    const restarted = oauthClient(emulator, file);
    expect((await restarted.request({ method: 'GET', path: '/formas-pagamentos' })).status).toBe(200);
    expect(tokenCalls(emulator)).toBe(2); // the spent-token probe above, nothing more
    expect(await readCredentialsFile(file)).toEqual(onDiskAtFirstRequest);
  });

  it('shares one refresh among concurrent requests', async () => {
    const emulator = await startEmulator({ oauthClients: [app] });
    const { file } = await credentialsFile(emulator, Date.now() - 1000);
    emulator.clearLog();
    const client = oauthClient(emulator, file);
    const results = await Promise.all(Array.from({ length: 6 }, () => client.request({ method: 'GET', path: '/formas-pagamentos' })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(tokenCalls(emulator)).toBe(1);
  });

  it('renews once after a 401 and repeats the request, even a POST', async () => {
    const emulator = await startEmulator({ oauthClients: [app] });
    const { file } = await credentialsFile(emulator, Date.now() + 3_600_000, 'revoked-access-token');
    emulator.clearLog();
    const events: ApiEvent[] = [];
    const client = oauthClient(emulator, file, { onEvent: (e) => events.push(e) });
    const before = emulator.snapshot().formasPagamentos.length;
    const created = await client.request({ method: 'POST', path: '/formas-pagamentos', body: { descricao: 'Pix', tipoPagamento: 17, finalidade: 2, destino: 3 } });
    expect(created.status).toBe(201);
    expect(emulator.snapshot().formasPagamentos.length).toBe(before + 1);
    expect(events.map((e) => e.type)).toEqual(['request-start', 'request-end', 'auth-renewed', 'request-start', 'request-end']);
    expect(tokenCalls(emulator)).toBe(1);
    expect(client.stats()).toMatchObject({ total: 2, retries: 0, errors: 1 });
  });

  it('ends in AUTH_FAILED, pointing at login, when the service refuses the refresh token', async () => {
    const emulator = await startEmulator({ oauthClients: [app] });
    const file = join(await tempDir(), 'credentials.json');
    await writeCredentialsFile(file, {
      version: 1,
      clientId: app.clientId,
      tokenUrl: `${emulator.baseUrl}/oauth/token`,
      refreshToken: 'refresh-token-nobody-issued',
      updatedAt: new Date().toISOString(),
    });
    const client = oauthClient(emulator, file);
    const error = await client.request({ method: 'GET', path: '/formas-pagamentos' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'AUTH_FAILED' });
    expect((error as { details: string[] }).details.join(' ')).toContain('erpsync login');
    expect(emulator.requestLog().filter((e) => e.path !== '/oauth/token')).toHaveLength(0);
  });
});
