// `erpsync login` end to end against the emulator: the test plays the browser, opening the printed
// authorize URL with a plain HTTP GET that follows the emulator's redirect to the login listener.
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApiClient, createOAuthProvider, fileCredentialSlot, readCredentialsFile } from '../../src/api/index.js';
import { main } from '../../src/cli/main.js';
import type { Emulator } from '../../src/emulator/index.js';
import { waitForOutput } from '../support/eventually.js';
import type { CapturedIO } from './support.js';
import { captureIO, freePort, onCleanup, startEmulator, tempDir } from './support.js';

async function loginSetup(): Promise<{ emulator: Emulator; redirectUri: string; cwd: string; env: NodeJS.ProcessEnv }> {
  const redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
  const emulator = await startEmulator({ oauthClients: [{ clientId: 'loja-app', clientSecret: 'loja-app-secret', redirectUri }] });
  const cwd = await tempDir();
  return { emulator, redirectUri, cwd, env: { BLING_CLIENT_ID: 'loja-app', BLING_CLIENT_SECRET: 'loja-app-secret' } };
}

/** Waits until the command printed the authorize URL, and returns it. */
async function printedAuthorizeUrl(io: CapturedIO): Promise<string> {
  const [url] = await waitForOutput(io.out, /https?:\/\/\S+\/oauth\/authorize\?\S+/);
  return url;
}

describe('erpsync login', () => {
  it('stores working credentials with mode 0600', async () => {
    const { emulator, redirectUri, cwd, env } = await loginSetup();
    const io = captureIO(env, cwd);
    const running = main(['login', '--base-url', emulator.baseUrl, '--redirect-uri', redirectUri], io);
    const authorizeUrl = await printedAuthorizeUrl(io);
    expect(new URL(authorizeUrl).searchParams.get('client_id')).toBe('loja-app');

    const browser = await fetch(authorizeUrl); // follows the 302 to the login listener
    expect(browser.status).toBe(200);
    expect(await browser.text()).toContain('authorized');
    expect(await running).toBe(0);

    const file = join(cwd, '.erpsync', 'credentials.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(io.out()).toContain(`credentials stored in ${file} (mode 0600)`);
    const stored = await readCredentialsFile(file);
    expect(stored).toMatchObject({ version: 1, clientId: 'loja-app', tokenUrl: `${emulator.baseUrl}/oauth/token` });
    expect(io.out()).not.toContain(stored.refreshToken);
    expect(io.out()).not.toContain(stored.accessToken);

    // Working credentials: the stored access token works, and so does a refresh from the stored refresh token.
    for (const now of [Date.now, () => Date.now() + 7 * 3_600_000]) {
      const client = createApiClient({
        baseUrl: emulator.baseUrl,
        credentials: createOAuthProvider({ slot: fileCredentialSlot(file), clientSecret: 'loja-app-secret', now }),
        rate: Number.POSITIVE_INFINITY,
      });
      onCleanup(() => client.close());
      expect((await client.request({ method: 'GET', path: '/formas-pagamentos' })).status).toBe(200);
    }
    expect((await readCredentialsFile(file)).refreshToken).not.toBe(stored.refreshToken);
  });

  it('rejects a callback with the wrong state and stores nothing', async () => {
    const { emulator, redirectUri, cwd, env } = await loginSetup();
    const io = captureIO(env, cwd);
    const running = main(['login', '--base-url', emulator.baseUrl, '--redirect-uri', redirectUri], io);
    await printedAuthorizeUrl(io);
    const forged = await fetch(`${redirectUri}?code=stolen-code&state=not-the-state`);
    expect(forged.status).toBe(400);
    expect(await running).toBe(1);
    expect(io.err()).toContain('wrong state');
    await expect(stat(join(cwd, '.erpsync', 'credentials.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('reports a refused authorization', async () => {
    const { emulator, redirectUri, cwd, env } = await loginSetup();
    const io = captureIO(env, cwd);
    const running = main(['login', '--base-url', emulator.baseUrl, '--redirect-uri', redirectUri], io);
    const state = new URL(await printedAuthorizeUrl(io)).searchParams.get('state') ?? '';
    await fetch(`${redirectUri}?error=access_denied&error_description=denied&state=${state}`);
    expect(await running).toBe(1);
    expect(io.err()).toContain('the authorization was refused: access_denied (denied)');
  });

  it('needs the client id and secret, and a loopback redirect URI', async () => {
    const cwd = await tempDir();
    const noSecret = captureIO({ BLING_CLIENT_ID: 'x' }, cwd);
    expect(await main(['login'], noSecret)).toBe(1);
    expect(noSecret.err()).toContain('BLING_CLIENT_SECRET');
    const remote = captureIO({ BLING_CLIENT_ID: 'x', BLING_CLIENT_SECRET: 'y-secret' }, cwd);
    expect(await main(['login', '--redirect-uri', 'https://example.com/cb'], remote)).toBe(1);
    expect(remote.err()).toContain('redirect URI must be http://127.0.0.1:PORT');
  });

  it('binds the credentials to the base URL: a run against another one is refused and sends them nowhere', async () => {
    const { emulator, redirectUri, cwd, env } = await loginSetup();
    const io = captureIO(env, cwd);
    const running = main(['login', '--base-url', emulator.baseUrl, '--redirect-uri', redirectUri], io);
    await fetch(await printedAuthorizeUrl(io));
    expect(await running).toBe(0);
    expect(await readCredentialsFile(join(cwd, '.erpsync', 'credentials.json'))).toMatchObject({ baseUrl: emulator.baseUrl });
    await writeFile(join(cwd, 'm.yaml'), 'version: 1\ngruposProdutos:\n  - nome: Maquiagem\n');

    const other = await startEmulator();
    const elsewhere = captureIO({ ...env, ERPSYNC_BASE_URL: other.baseUrl }, cwd);
    expect(await main(['plan', 'm.yaml'], elsewhere)).toBe(3);
    expect(elsewhere.err()).toContain(`were issued for ${emulator.baseUrl}, not for ${other.baseUrl}; refusing to send them there`);
    expect(elsewhere.err()).toContain(`run \`erpsync login --base-url ${other.baseUrl}\` to log in to ${other.baseUrl}`);
    expect(other.requestLog()).toEqual([]);
    // A plain run in the same folder would go to the production API: refused before any request.
    const plain = captureIO(env, cwd);
    expect(await main(['plan', 'm.yaml'], plain)).toBe(3);
    expect(plain.err()).toContain('not for https://api.bling.com.br/Api/v3');

    const here = captureIO({ ...env, ERPSYNC_BASE_URL: emulator.baseUrl }, cwd);
    expect(await main(['plan', 'm.yaml'], here)).toBe(0);
    expect(here.out().split('\n')[0]).toContain('· OAuth credentials in .erpsync/credentials.json');
  });
});
