// A token endpoint that answers 200 with something erpsync cannot use — an empty, blank or
// missing refresh token, a token with spaces or control characters, an HTML page — is refused
// (AUTH_FAILED), and the stored credentials are kept byte for byte: the refresh token they hold
// may still work, and replacing it would lock the store out until someone logs in again. The
// endpoint is a loopback server of this test that answers as told.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOAuthProvider, fileCredentialSlot, storedFromTokenSet, writeCredentialsFile } from './credentials.js';
import { ErpsyncError } from '../model/errors.js';

let answer: { type: string; body: string } = { type: 'application/json', body: '{}' };
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': answer.type }).end(answer.body));
});
let tokenUrl = '';
let dir = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  tokenUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/token`;
  dir = await mkdtemp(join(tmpdir(), 'erpsync-oauth-answers-'));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

const json = (fields: Record<string, unknown>) => ({ type: 'application/json', body: JSON.stringify(fields) });
const unusable: [string, { type: string; body: string }][] = [
  ['an empty refresh token', json({ access_token: 'acc-new', refresh_token: '', expires_in: 3600 })],
  ['a blank refresh token', json({ access_token: 'acc-new', refresh_token: '   ', expires_in: 3600 })],
  ['a refresh token of a line break', json({ data: { access_token: 'acc-new', refresh_token: '\n', expires_in: 3600 } })],
  ['a refresh token with a space inside', json({ access_token: 'acc-new', refresh_token: 'ref new', expires_in: 3600 })],
  ['no refresh token', json({ access_token: 'acc-new', expires_in: 3600 })],
  ['a null refresh token', json({ access_token: 'acc-new', refresh_token: null })],
  ['an empty access token', json({ access_token: '', refresh_token: 'ref-new' })],
  ['an HTML page', { type: 'text/html', body: '<!doctype html><html><body><h1>Manutenção programada</h1></body></html>' }],
  ['an HTML page labelled JSON', { type: 'application/json', body: '<html><body>502 Bad Gateway</body></html>' }],
];

describe('a token answer without a usable refresh token', () => {
  it.each(unusable)('%s is refused and the stored credentials are kept', async (_label, given) => {
    const file = join(dir, 'credentials.json');
    // The access token expired: the next request needs a refresh.
    await writeCredentialsFile(file, storedFromTokenSet({ accessToken: 'acc-old', refreshToken: 'ref-still-good', expiresIn: 60 }, { clientId: 'loja', tokenUrl, now: 0 }));
    const before = await readFile(file, 'utf8');
    answer = given;
    const provider = createOAuthProvider({ slot: fileCredentialSlot(file), clientSecret: 'client-secret' });
    const error = await provider.accessToken().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ErpsyncError);
    expect((error as ErpsyncError).code).toBe('AUTH_FAILED');
    expect((error as ErpsyncError).message).toContain('the stored credentials are kept');
    expect(await readFile(file, 'utf8')).toBe(before);
    expect(await readdir(dir)).toEqual(['credentials.json']);
  });

  it('a usable answer is stored (the same path, answered well)', async () => {
    const file = join(dir, 'credentials.json');
    await writeCredentialsFile(file, storedFromTokenSet({ accessToken: 'acc-old', refreshToken: 'ref-still-good', expiresIn: 60 }, { clientId: 'loja', tokenUrl, now: 0 }));
    answer = json({ access_token: 'acc-new', refresh_token: 'ref-new', expires_in: 3600 });
    expect(await createOAuthProvider({ slot: fileCredentialSlot(file), clientSecret: 'client-secret' }).accessToken()).toBe('acc-new');
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ refreshToken: 'ref-new' });
  });
});
