import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createOAuthProvider, fileCredentialSlot, createStaticTokenProvider, parseStoredCredentials, readCredentialsFile, storedFromTokenSet, writeCredentialsFile } from './credentials.js';

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'erpsync-cred-'));
}

describe('the credentials file', () => {
  it('is written atomically with mode 0600 and read back', async () => {
    const dir = await tempDir();
    const file = join(dir, 'nested', 'credentials.json');
    const stored = storedFromTokenSet({ accessToken: 'acc-1', refreshToken: 'ref-1', expiresIn: 21600, scope: '1 2' }, { clientId: 'cid', tokenUrl: 'https://x/oauth/token', now: Date.UTC(2026, 0, 1) });
    expect(stored.expiresAt).toBe('2026-01-01T06:00:00.000Z');
    await writeFile(join(dir, 'placeholder'), '');
    await writeCredentialsFile(file, stored);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readCredentialsFile(file)).toEqual(stored);
    // A second write replaces the file and leaves no temp file behind.
    await writeCredentialsFile(file, { ...stored, refreshToken: 'ref-2' });
    expect((await readCredentialsFile(file)).refreshToken).toBe('ref-2');
    expect(await readdir(join(dir, 'nested'))).toEqual(['credentials.json']);
  });

  it('explains a missing or broken file', async () => {
    const dir = await tempDir();
    await expect(readCredentialsFile(join(dir, 'none.json'))).rejects.toMatchObject({ code: 'AUTH_MISSING' });
    expect(() => parseStoredCredentials('{', 'f.json')).toThrow(expect.objectContaining({ code: 'CONFIG' }));
    expect(() => parseStoredCredentials('{"version":1}', 'f.json')).toThrow(/no refresh token/);
    const file = join(dir, 'bad.json');
    await writeFile(file, JSON.stringify({ version: 1, refreshToken: 'only-this' }));
    expect(await readCredentialsFile(file)).toMatchObject({ refreshToken: 'only-this', accessToken: undefined });
  });

  it('reports write failures as FILE_UNWRITABLE, naming the file, without leaving a temp file', async () => {
    const dir = await tempDir();
    const blocker = join(dir, 'file');
    await writeFile(blocker, 'x');
    const stored = storedFromTokenSet({ accessToken: 'a', refreshToken: 'r', expiresIn: 0 }, { now: 0 });
    await expect(writeCredentialsFile(join(blocker, 'credentials.json'), stored)).rejects.toMatchObject({ code: 'FILE_UNWRITABLE', message: expect.stringContaining(blocker) });
    expect(await readFile(blocker, 'utf8')).toBe('x');
  });
});

describe('credential providers', () => {
  it('a static token is used as is and never renewed', async () => {
    const provider = createStaticTokenProvider('static-token');
    expect(await provider.accessToken()).toBe('static-token');
    expect(await provider.renewAfterRejection('static-token')).toBeUndefined();
    expect(provider.secrets()).toEqual(['static-token']);
    expect(() => createStaticTokenProvider(' ')).toThrow(expect.objectContaining({ code: 'AUTH_MISSING' }));
  });

  it('an OAuth provider uses a stored token that is still valid without any request', async () => {
    const dir = await tempDir();
    const file = join(dir, 'c.json');
    const now = Date.UTC(2026, 0, 1);
    await writeCredentialsFile(file, storedFromTokenSet({ accessToken: 'acc-valid', refreshToken: 'ref', expiresIn: 3600 }, { clientId: 'c', tokenUrl: 'http://127.0.0.1:1/oauth/token', now }));
    const provider = createOAuthProvider({ slot: fileCredentialSlot(file), clientSecret: 'secret-x', now: () => now + 1000 });
    expect(await provider.accessToken()).toBe('acc-valid');
    expect(await provider.renewAfterRejection('an-older-token')).toBe('acc-valid');
    expect(provider.secrets()).toEqual(expect.arrayContaining(['secret-x', 'ref', 'acc-valid']));
  });

  it('an OAuth provider needs the client secret once a refresh is due', async () => {
    const dir = await tempDir();
    const file = join(dir, 'c.json');
    await writeCredentialsFile(file, storedFromTokenSet({ accessToken: 'old', refreshToken: 'ref', expiresIn: 60 }, { clientId: 'c', tokenUrl: 'http://127.0.0.1:1/oauth/token', now: 0 }));
    const provider = createOAuthProvider({ slot: fileCredentialSlot(file), now: () => 10_000_000 });
    await expect(provider.accessToken()).rejects.toMatchObject({ code: 'AUTH_MISSING' });
  });
});
