// A plan over https through a loopback logging proxy set in HTTPS_PROXY, as a runner behind a
// corporate proxy makes one: the built CLI in a process of its own, the emulator served over TLS
// with a certificate made for the test and trusted through NODE_EXTRA_CA_CERTS. The proxy sees a
// CONNECT tunnel per connection; every connection the service accepted came through one of them,
// the token call of the expired login included. (Plain http, request by request: proxy.test.ts.)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { storedFromTokenSet, writeCredentialsFile } from '../../src/api/index.js';
import { createEmulator, defaultOAuthClient } from '../../src/emulator/index.js';
import { authorizeOnEmulator } from '../api/support.js';
import { ensureBuiltCli, startCli } from '../reliability/support/built-cli.js';
import { groupsManifest } from '../support/account.js';
import { startLoggingProxy } from '../support/logging-proxy.js';
import type { TunnelEntry } from '../support/logging-proxy.js';
import { startTlsFront } from '../support/tls-front.js';

beforeAll(ensureBuiltCli, 240_000);

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('HTTPS_PROXY', () => {
  it('carries every request of a plan, and the token call before it, through CONNECT tunnels the proxy logs', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-https-proxy-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
    cleanups.push(() => emulator.close());
    const front = await startTlsFront(emulator.baseUrl, dir);
    cleanups.push(() => front.close());
    const proxy = await startLoggingProxy();
    cleanups.push(() => proxy.close());

    // An expired login: the run refreshes it at the token host first.
    const tokens = await authorizeOnEmulator(emulator, defaultOAuthClient);
    await writeCredentialsFile(path.join(dir, '.erpsync', 'credentials.json'), storedFromTokenSet(tokens, { clientId: defaultOAuthClient.clientId, tokenUrl: `${front.baseUrl}/oauth/token`, now: Date.now() - 7 * 3_600_000 }));
    writeFileSync(path.join(dir, 'm.yaml'), groupsManifest(['Maquiagem']));
    emulator.clearLog();

    const env = { ERPSYNC_BASE_URL: front.baseUrl, BLING_CLIENT_SECRET: defaultOAuthClient.clientSecret, ERPSYNC_RATE: '1000', ERPSYNC_LOCK_DIR: path.join(dir, '.locks'), HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: front.certFile };
    const run = await startCli(['plan', '--debug', 'm.yaml'], { cwd: dir, env }).exit;
    expect(run.stderr).not.toContain('error');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('+ gruposProdutos "Maquiagem"');
    expect(run.stderr).toContain(`debug: proxy: ${new URL(front.baseUrl).origin} through ${proxy.url} (HTTPS_PROXY)\n`);

    const tunnels = proxy.log() as TunnelEntry[];
    expect(tunnels.map((t) => `${t.method} ${t.authority}`)).toEqual(tunnels.map(() => `CONNECT ${new URL(front.baseUrl).host}`));
    expect(tunnels.length).toBeGreaterThan(0);
    const tunnelled = new Set(tunnels.map((t) => t.upstreamPort));
    expect(front.peerPorts().length).toBeGreaterThan(0);
    expect(front.peerPorts().filter((port) => !tunnelled.has(port))).toEqual([]);
    const requests = emulator.requestLog().map((e) => `${e.method} ${e.path}`);
    expect(requests[0]).toBe('POST /oauth/token');
    expect(requests).toContain('GET /grupos-produtos');
  });
});
