import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunIO } from '../model/run-io.js';
import { main } from './main.js';
import { readSandboxOptions } from './sandbox-command.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'erpsync-sandbox-cli-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function makeIO(signal: AbortSignal, env: NodeJS.ProcessEnv = {}): { io: RunIO; out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return { io: { stdout, stderr, stdin: new PassThrough(), env, cwd: dir, signal }, out: () => out, err: () => err };
}

async function waitFor(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('erpsync sandbox', () => {
  it('prints its base URL and token, serves until the signal, then saves the state', async () => {
    const controller = new AbortController();
    const { io, out } = makeIO(controller.signal);
    const running = main(['sandbox', '--port', '0', '--state', 'state/sb.json', '--token', 'tok-1', '--rate-limit', '0'], io);
    await waitFor(() => out().includes('Press Ctrl-C'));
    const baseUrl = /listening on (\S+)/.exec(out())?.[1] ?? '';
    expect(out()).toContain('token:  tok-1');
    const created = await fetch(`${baseUrl}/grupos-produtos`, {
      method: 'POST',
      headers: { authorization: 'Bearer tok-1', 'content-type': 'application/json' },
      body: JSON.stringify({ nome: 'Bebidas' }),
    });
    expect(created.status).toBe(201);
    controller.abort();
    expect(await running).toBe(0);
    expect(out()).toContain('state saved');
    const saved = JSON.parse(await readFile(join(dir, 'state/sb.json'), 'utf8')) as { state: { gruposProdutos: { nome: string }[] } };
    expect(saved.state.gruposProdutos.map((g) => g.nome)).toEqual(['Bebidas']);
  });

  it('rejects bad flags with exit code 1', async () => {
    const { io, err } = makeIO(new AbortController().signal);
    expect(await main(['sandbox', '--rate-limit', 'fast'], io)).toBe(1);
    expect(err()).toContain('--rate-limit');
    expect(await main(['sandbox', '--faults', 'kinds=boom'], io)).toBe(1);
    expect(await main(['sandbox', '--bogus'], io)).toBe(1);
  });

  it('reads environment twins, flags winning', () => {
    const options = readSandboxOptions(['--port', '4100'], { ERPSYNC_SANDBOX_PORT: '4200', ERPSYNC_SANDBOX_RATE_LIMIT: '5', ERPSYNC_SANDBOX_FAULTS: '#1=http503' }, '/w');
    expect(options.emulator).toMatchObject({ port: 4100, rateLimit: 5, stateFile: '/w/.erpsync/sandbox.json', seed: 'fresh' });
    expect(options.emulator.faults).toEqual({ schedule: [{ nth: 1, fault: 'http503' }] });
    expect(options.emulator.dailyLimit).toBe(120_000);
    expect(readSandboxOptions(['--daily-limit', '50'], { ERPSYNC_SANDBOX_DAILY_LIMIT: '9' }, '/w').emulator.dailyLimit).toBe(50);
    expect(readSandboxOptions([], { ERPSYNC_SANDBOX_DAILY_LIMIT: '9' }, '/w').emulator.dailyLimit).toBe(9);
  });
});
