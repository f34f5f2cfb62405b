import { afterEach, describe, expect, it } from 'vitest';
import { call } from '../../test/emulator/http-client.js';
import type { Emulator } from './index.js';
import { createEmulator } from './index.js';

const client = { clientId: 'app-1', clientSecret: 's3cret', redirectUri: 'http://127.0.0.1:9999/cb' };
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

let clock = Date.UTC(2026, 2, 1, 12);
const open: Emulator[] = [];
async function start(): Promise<Emulator> {
  const emulator = await createEmulator({ rateLimit: 0, oauthClients: [client], now: () => clock });
  open.push(emulator);
  return emulator;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

async function authorize(emulator: Emulator, query = `response_type=code&client_id=${client.clientId}&state=xyz`): Promise<URL> {
  const res = await fetch(`${emulator.baseUrl}/oauth/authorize?${query}&redirect_uri=http://evil.example/cb`, { redirect: 'manual' });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location') ?? '');
}

async function token(emulator: Emulator, form: Record<string, string>, auth = basic(client.clientId, client.clientSecret)) {
  const res = await fetch(`${emulator.baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded', accept: '1.0' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('oauth', () => {
  it('auto-approves and redirects to the registered URI (ignoring redirect_uri) with code and state', async () => {
    const emulator = await start();
    const location = await authorize(emulator);
    expect(`${location.origin}${location.pathname}`).toBe(client.redirectUri);
    expect(location.searchParams.get('state')).toBe('xyz');
    expect(location.searchParams.get('code')).toMatch(/^\w{20,}$/);
  });

  it('exchanges a code for 6-hour access and rotating single-use refresh tokens', async () => {
    clock = Date.UTC(2026, 2, 1, 12);
    const emulator = await start();
    const code = (await authorize(emulator)).searchParams.get('code') ?? '';
    const first = await token(emulator, { grant_type: 'authorization_code', code });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ token_type: 'Bearer', expires_in: 21600, scope: expect.stringMatching(/^\d+( \d+)*$/) });
    const access = String(first.json.access_token);
    expect((await call(emulator, 'GET', '/situacoes/modulos', { token: access })).status).toBe(200);

    const refreshed = await token(emulator, { grant_type: 'refresh_token', refresh_token: String(first.json.refresh_token) });
    expect(refreshed.status).toBe(200);
    expect(refreshed.json.refresh_token).not.toBe(first.json.refresh_token);
    const replay = await token(emulator, { grant_type: 'refresh_token', refresh_token: String(first.json.refresh_token) });
    expect(replay.status).toBe(400);
    expect(replay.json).toMatchObject({ error: { type: 'invalid_grant' } });

    clock += 6 * 3_600_000;
    expect((await call(emulator, 'GET', '/situacoes/modulos', { token: access })).status).toBe(401);
  });

  it('codes are single-use (a replay revokes the grant) and expire after a minute', async () => {
    clock = Date.UTC(2026, 2, 1, 12);
    const emulator = await start();
    const code = (await authorize(emulator)).searchParams.get('code') ?? '';
    const first = await token(emulator, { grant_type: 'authorization_code', code });
    const replay = await token(emulator, { grant_type: 'authorization_code', code });
    expect(replay.status).toBe(400);
    expect(replay.json).toMatchObject({ error: { type: 'VALIDATION_ERROR' } });
    expect((await call(emulator, 'GET', '/situacoes/modulos', { token: String(first.json.access_token) })).status).toBe(401);

    const late = (await authorize(emulator)).searchParams.get('code') ?? '';
    clock += 60_000;
    const expired = await token(emulator, { grant_type: 'authorization_code', code: late });
    expect(expired.status).toBe(400);
    expect(expired.json).toMatchObject({ error: { type: 'invalid_grant', description: expect.stringMatching(/expired/) } });
  });

  it('refresh tokens lapse after 30 days', async () => {
    clock = Date.UTC(2026, 2, 1, 12);
    const emulator = await start();
    const code = (await authorize(emulator)).searchParams.get('code') ?? '';
    const first = await token(emulator, { grant_type: 'authorization_code', code });
    clock += 30 * 86_400_000;
    const lapsed = await token(emulator, { grant_type: 'refresh_token', refresh_token: String(first.json.refresh_token) });
    expect(lapsed.status).toBe(400);
  });

  it('requires Basic client credentials and refuses them in the body', async () => {
    const emulator = await start();
    const code = (await authorize(emulator)).searchParams.get('code') ?? '';
    const wrong = await token(emulator, { grant_type: 'authorization_code', code }, basic(client.clientId, 'nope'));
    expect(wrong.status).toBe(401);
    expect(wrong.json).toMatchObject({ error: { type: 'invalid_client' } });
    const inBody = await token(emulator, { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret });
    expect(inBody.status).toBe(400);
    const grant = await token(emulator, { grant_type: 'client_credentials' });
    expect(grant.json).toMatchObject({ error: { type: 'unsupported_grant_type' } });
  });

  it('redirects errors to the client and refuses unknown clients', async () => {
    const emulator = await start();
    const location = await authorize(emulator, `response_type=token&client_id=${client.clientId}&state=s1`);
    expect(location.searchParams.get('error')).toBe('unsupported_response_type');
    expect(location.searchParams.get('state')).toBe('s1');
    const unknown = await fetch(`${emulator.baseUrl}/oauth/authorize?response_type=code&client_id=other&state=s`, { redirect: 'manual' });
    expect(unknown.status).toBe(400);
  });
});
