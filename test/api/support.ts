// Test support for the API layer: emulators that close themselves after each test, a free
// loopback port, temp folders, and the OAuth dance against the emulator. Real HTTP on 127.0.0.1.
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach } from 'vitest';
import { createApiClient, createStaticTokenProvider, requestToken } from '../../src/api/index.js';
import type { TokenSet } from '../../src/api/index.js';
import type { RunIO } from '../../src/workflows/run-io.js';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator, EmulatorOptions, OAuthClient } from '../../src/emulator/index.js';

const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  const pending = cleanups.splice(0).reverse();
  for (const cleanup of pending) await cleanup();
});

/** Runs `cleanup` after the current test, last registered first. */
export function onCleanup(cleanup: () => Promise<unknown>): void {
  cleanups.push(cleanup);
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const emulator = await createEmulator({ seed: 'fresh', rateLimit: 0, ...options });
  onCleanup(() => emulator.close());
  return emulator;
}

export async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'erpsync-api-'));
}

/** A temp folder of its own, removed after the current test. */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onCleanup(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The status the emulator answers a read made with `accessToken`: 200 while the login works. */
export async function answersWith(emulator: Emulator, accessToken: string | undefined): Promise<number> {
  const client = createApiClient({ baseUrl: emulator.baseUrl, credentials: createStaticTokenProvider(accessToken ?? ''), rate: Number.POSITIVE_INFINITY });
  try {
    return (await client.request({ method: 'GET', path: '/formas-pagamentos' })).status;
  } finally {
    await client.close();
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Authorizes `client` on the emulator the way a browser would (without following the redirect) and exchanges the code. */
export async function authorizeOnEmulator(emulator: Emulator, client: OAuthClient): Promise<TokenSet> {
  const url = new URL(`${emulator.baseUrl}/oauth/authorize`);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', client.clientId);
  url.searchParams.set('state', 'test-state');
  const response = await fetch(url, { redirect: 'manual' });
  const location = response.headers.get('location');
  const code = location ? new URL(location).searchParams.get('code') : null;
  if (!code) throw new Error(`the emulator did not redirect with a code (${response.status})`);
  return requestToken({ tokenUrl: `${emulator.baseUrl}/oauth/token`, clientId: client.clientId, clientSecret: client.clientSecret, grant: { type: 'authorization_code', code } });
}

export interface CapturedIO extends RunIO {
  out(): string;
  err(): string;
}

export function captureIO(env: NodeJS.ProcessEnv, cwd: string, signal: AbortSignal = new AbortController().signal): CapturedIO {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  return { stdout, stderr, stdin: new PassThrough(), env, cwd, signal, out: () => out, err: () => err };
}

/** A deterministic [0, 1) sequence for jitter. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
    return a / 4294967296;
  };
}
