import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { call, dataOf } from '../../test/emulator/http-client.js';
import { eventually } from '../../test/support/eventually.js';
import type { Emulator } from './index.js';
import { createEmulator } from './index.js';

const open: Emulator[] = [];
async function start(options: Parameters<typeof createEmulator>[0] = {}): Promise<Emulator> {
  const emulator = await createEmulator({ rateLimit: 0, ...options });
  open.push(emulator);
  return emulator;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

const pix = { descricao: 'Pix loja', tipoPagamento: 17, finalidade: 2, destino: 3 };

describe('server skeleton', () => {
  it('listens on loopback and answers with the data envelope', async () => {
    const emulator = await start();
    expect(emulator.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/Api\/v3$/);
    const res = await call(emulator, 'GET', '/formas-pagamentos');
    expect(res.status).toBe(200);
    expect(Array.isArray(dataOf(res))).toBe(true);
  });

  it('requires a bearer token (401 invalid_token) and a scope (403 insufficient_scope)', async () => {
    const emulator = await start();
    const missing = await call(emulator, 'GET', '/formas-pagamentos', { token: null });
    expect(missing.status).toBe(401);
    expect(missing.json).toMatchObject({ error: { type: 'invalid_token' } });
    const wrong = await call(emulator, 'GET', '/formas-pagamentos', { token: 'nope' });
    expect(wrong.status).toBe(401);
    const scopeless = await call(emulator, 'GET', '/formas-pagamentos', { token: emulator.issueToken({ scopes: [] }) });
    expect(scopeless.status).toBe(403);
    expect(scopeless.json).toMatchObject({ error: { type: 'insufficient_scope' } });
    expect((await call(emulator, 'GET', '/formas-pagamentos', { token: emulator.issueToken() })).status).toBe(200);
  });

  it('expires minted tokens after six hours on the injected clock', async () => {
    let clock = Date.UTC(2026, 0, 5, 12);
    const emulator = await start({ now: () => clock });
    const token = emulator.issueToken();
    expect((await call(emulator, 'GET', '/formas-pagamentos', { token })).status).toBe(200);
    clock += 6 * 3_600_000;
    const expired = await call(emulator, 'GET', '/formas-pagamentos', { token });
    expect(expired.status).toBe(401);
    expect(expired.json).toMatchObject({ error: { type: 'invalid_token', description: expect.stringMatching(/expired/) } });
  });

  it('fails with SANDBOX_LISTEN when the port is taken', async () => {
    const emulator = await start();
    const port = Number(new URL(emulator.baseUrl).port);
    await expect(createEmulator({ port })).rejects.toMatchObject({ code: 'SANDBOX_LISTEN' });
  });

  it('answers 404 RESOURCE_NOT_FOUND for unknown routes and non-numeric ids', async () => {
    const emulator = await start();
    for (const path of ['/nao-existe', '/formas-pagamentos/abc', '/situacoes']) {
      const res = await call(emulator, 'GET', path);
      expect(res.status, path).toBe(404);
      expect(res.json).toMatchObject({ error: { type: 'RESOURCE_NOT_FOUND' } });
    }
  });

  it('answers 400 for malformed JSON and for an empty body', async () => {
    const emulator = await start();
    const malformed = await call(emulator, 'POST', '/formas-pagamentos', {
      rawBody: '{"descricao":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.json).toMatchObject({ error: { type: 'INVALID_REQUEST_BODY' } });
    const empty = await call(emulator, 'POST', '/formas-pagamentos');
    expect(empty.status).toBe(400);
    expect(empty.json).toMatchObject({ error: { type: 'MISSING_REQUIRED_FIELD_ERROR' } });
  });

  it('logs requests and counts them per method and path', async () => {
    const emulator = await start();
    await call(emulator, 'GET', '/formas-pagamentos?pagina=1');
    await call(emulator, 'GET', '/formas-pagamentos');
    await call(emulator, 'POST', '/formas-pagamentos', { body: pix });
    expect(emulator.counters()).toEqual({ 'GET /formas-pagamentos': 2, 'POST /formas-pagamentos': 1 });
    const [first] = emulator.requestLog();
    expect(first).toMatchObject({ method: 'GET', path: '/formas-pagamentos', query: 'pagina=1', status: 200 });
    expect(first?.route).toBe('GET /formas-pagamentos');
    const viaHttp = await fetch(`${emulator.baseUrl.replace('/Api/v3', '')}/__sandbox/counters`);
    expect(await viaHttp.json()).toEqual({ data: { 'GET /formas-pagamentos': 2, 'POST /formas-pagamentos': 1 } });
    emulator.clearLog();
    expect(emulator.requestLog()).toEqual([]);
  });
});

describe('rate and daily limits', () => {
  it('answers 429 TOO_MANY_REQUESTS past the bucket in a burst of 30', async () => {
    const emulator = await start({ rateLimit: 3 });
    const results = await Promise.all(Array.from({ length: 30 }, () => call(emulator, 'GET', '/formas-pagamentos')));
    const limited = results.filter((r) => r.status === 429);
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(3);
    expect(limited.length).toBeGreaterThanOrEqual(25);
    expect(limited[0]?.json).toMatchObject({ error: { type: 'TOO_MANY_REQUESTS', limit: 3, period: 'second' } });
  });

  it('lets requests paced at the limit through', async () => {
    const emulator = await start({ rateLimit: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      statuses.push((await call(emulator, 'GET', '/formas-pagamentos')).status);
      await new Promise((resolve) => setTimeout(resolve, 340));
    }
    expect(statuses.every((s) => s === 200)).toBe(true);
  });

  it('enforces the daily limit on the injected clock and resets it the next day', async () => {
    let clock = Date.UTC(2026, 0, 5, 15);
    const emulator = await start({ dailyLimit: 2, now: () => clock });
    expect((await call(emulator, 'GET', '/formas-pagamentos')).status).toBe(200);
    expect((await call(emulator, 'GET', '/formas-pagamentos')).status).toBe(200);
    const third = await call(emulator, 'GET', '/formas-pagamentos');
    expect(third.status).toBe(429);
    expect(third.json).toMatchObject({ error: { type: 'TOO_MANY_REQUESTS', limit: 2, period: 'day' } });
    expect(third.headers.get('retry-after')).toBeNull();
    // The refused request spent nothing; raised, the limit lets the day go on from its count.
    expect(emulator.requestsToday()).toBe(2);
    emulator.setDailyLimit(3);
    expect((await call(emulator, 'GET', '/formas-pagamentos')).status).toBe(200);
    expect((await call(emulator, 'GET', '/formas-pagamentos')).status).toBe(429);
    clock += 86_400_000;
    expect(emulator.requestsToday()).toBe(0);
    expect((await call(emulator, 'GET', '/formas-pagamentos')).status).toBe(200);
  });
});

describe('faults', () => {
  it('injects scheduled faults: JSON 500, HTML 429 and 502', async () => {
    const emulator = await start({ faults: 'GET/formas-pagamentos#1=http500,#2=http429-html,#3=http502' });
    const first = await call(emulator, 'GET', '/formas-pagamentos');
    expect(first.status).toBe(500);
    expect(first.json).toMatchObject({ error: { type: 'SERVER_ERROR' } });
    const second = await call(emulator, 'GET', '/formas-pagamentos');
    expect(second.status).toBe(429);
    expect(second.headers.get('content-type')).toMatch(/text\/html/);
    expect(second.text).toContain('1015');
    expect((await call(emulator, 'GET', '/formas-pagamentos')).status).toBe(502);
    expect((await call(emulator, 'GET', '/formas-pagamentos')).status).toBe(200);
    expect(emulator.requestLog().map((e) => e.fault)).toEqual(['http500', 'http429-html', 'http502', undefined]);
  });

  it('gives injected 429s the Retry-After the spec names, and none otherwise', async () => {
    const emulator = await start({ faults: 'retryAfter=0,#1=http429,#2=http429-html' });
    for (let i = 0; i < 2; i += 1) expect((await call(emulator, 'GET', '/formas-pagamentos')).headers.get('retry-after')).toBe('0');
    emulator.setFaults('#1=http429');
    expect((await call(emulator, 'GET', '/formas-pagamentos')).headers.get('retry-after')).toBeNull();
  });

  it('reset-before loses the request; reset-after commits the write and loses the answer', async () => {
    const emulator = await start();
    emulator.setFaults({ schedule: [{ method: 'POST', path: '/formas-pagamentos', nth: 1, fault: 'reset-before' }] });
    await expect(call(emulator, 'POST', '/formas-pagamentos', { body: pix })).rejects.toThrow();
    expect(emulator.snapshot().formasPagamentos.some((r) => r.descricao === 'Pix loja')).toBe(false);

    emulator.setFaults({ schedule: [{ method: 'POST', path: '/formas-pagamentos', nth: 1, fault: 'reset-after' }] });
    await expect(call(emulator, 'POST', '/formas-pagamentos', { body: pix })).rejects.toThrow();
    expect(emulator.snapshot().formasPagamentos.filter((r) => r.descricao === 'Pix loja')).toHaveLength(1);
    expect(emulator.requestLog().at(-1)).toMatchObject({ status: 201, fault: 'reset-after' });
  });

  it('draws probabilistic faults reproducibly from the seed', async () => {
    const run = async () => {
      const emulator = await start({ faults: { probability: 0.5, seed: 42, kinds: ['http500', 'http503'] } });
      const statuses: number[] = [];
      for (let i = 0; i < 12; i += 1) statuses.push((await call(emulator, 'GET', '/formas-pagamentos')).status);
      return statuses;
    };
    const first = await run();
    expect(first.some((s) => s !== 200)).toBe(true);
    expect(first.some((s) => s === 200)).toBe(true);
    expect(await run()).toEqual(first);
  });
});

describe('persistence', () => {
  it('keeps the state across a restart and writes it atomically', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'erpsync-emulator-'));
    try {
      const stateFile = join(dir, 'nested', 'sandbox.json');
      const first = await start({ stateFile });
      const created = await call(first, 'POST', '/formas-pagamentos', { body: pix });
      const { id } = dataOf<{ id: number }>(created);
      const onDisk = JSON.parse(await readFile(stateFile, 'utf8')) as { state: { formasPagamentos: { id: number }[] } };
      expect(onDisk.state.formasPagamentos.some((r) => r.id === id)).toBe(true);
      await first.close();

      const second = await start({ stateFile, seed: 'empty' });
      const detail = await call(second, 'GET', `/formas-pagamentos/${id}`);
      expect(detail.status).toBe(200);
      expect(dataOf(detail)).toMatchObject({ id, descricao: 'Pix loja' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('inspection routes under /__sandbox/', () => {
  it('read the log and counters, reset the log, set faults and the rate limit, without auth or logging', async () => {
    const emulator = await start();
    const root = emulator.baseUrl.replace('/Api/v3', '');
    await call(emulator, 'GET', '/situacoes/modulos');
    const log = (await (await fetch(`${root}/__sandbox/log`)).json()) as { data: { path: string }[] };
    expect(log.data.map((e) => e.path)).toEqual(['/situacoes/modulos']);

    expect((await fetch(`${root}/__sandbox/faults`, { method: 'PUT', body: '#1=http503' })).status).toBe(204);
    const faulted = await call(emulator, 'GET', '/situacoes/modulos');
    expect(faulted.status).toBe(503);
    expect(faulted.headers.get('content-type')).toMatch(/text\/html/);
    expect((await fetch(`${root}/__sandbox/faults`, { method: 'PUT', body: '' })).status).toBe(204);
    expect((await fetch(`${root}/__sandbox/faults`, { method: 'PUT', body: 'kinds=nope' })).status).toBe(400);

    expect((await fetch(`${emulator.baseUrl}/__sandbox/reset-log`, { method: 'POST' })).status).toBe(204);
    expect(emulator.requestLog()).toEqual([]);

    const limit = await fetch(`${root}/__sandbox/rate-limit`, { method: 'PUT', body: JSON.stringify({ perSecond: 1 }) });
    expect(limit.status).toBe(204);
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await call(emulator, 'GET', '/situacoes/modulos')).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);

    const state = (await (await fetch(`${root}/__sandbox/state`)).json()) as { data: { formatVersion: number } };
    expect(state.data.formatVersion).toBe(1);
    expect((await fetch(`${root}/__sandbox/nothing`)).status).toBe(404);
    expect(emulator.requestLog().every((e) => !e.path.includes('__sandbox'))).toBe(true);
  });

  it('latency faults delay the answer but still serve it', async () => {
    const emulator = await start({ faults: { latencyMs: 20, schedule: [{ nth: 1, fault: 'latency' }] } });
    expect((await call(emulator, 'GET', '/situacoes/modulos')).status).toBe(200);
    expect(emulator.requestLog()[0]).toMatchObject({ status: 200, fault: 'latency' });
  });
});

describe('clients that give up', () => {
  it('a request abandoned during a latency fault is logged on arrival and the server keeps serving', async () => {
    const emulator = await start({ faults: { latencyMs: 300, schedule: [{ method: 'PATCH', nth: 1, fault: 'latency' }] } });
    const id = emulator.snapshot().formasPagamentos[0]?.id ?? 0;
    const giveUp = new AbortController();
    const abandoned = fetch(`${emulator.baseUrl}/formas-pagamentos/${id}/situacao`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ situacao: 1 }),
      signal: giveUp.signal,
    });
    // The client gives up once the request is in (the latency fault holds it there).
    await eventually(() => expect(emulator.requestLog()).toEqual([expect.objectContaining({ method: 'PATCH', status: 0, fault: 'latency' })]));
    giveUp.abort();
    await expect(abandoned).rejects.toThrow();
    // Longer than the latency, which started before this wait: the server has finished with the request.
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect((await call(emulator, 'GET', '/situacoes/modulos')).status).toBe(200);
  });
});

describe('persistence of OAuth grants', () => {
  it('a refresh token issued before a restart still works after it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'erpsync-emulator-oauth-'));
    try {
      const stateFile = join(dir, 'sandbox.json');
      const first = await start({ stateFile });
      const authorize = await fetch(`${first.baseUrl}/oauth/authorize?response_type=code&client_id=sandbox-client&state=s`, { redirect: 'manual' });
      const code = new URL(authorize.headers.get('location') ?? '').searchParams.get('code') ?? '';
      const basic = `Basic ${Buffer.from('sandbox-client:sandbox-secret').toString('base64')}`;
      const form = { 'content-type': 'application/x-www-form-urlencoded', authorization: basic };
      const issued = (await (
        await fetch(`${first.baseUrl}/oauth/token`, { method: 'POST', headers: form, body: `grant_type=authorization_code&code=${code}` })
      ).json()) as { refresh_token: string; access_token: string };
      await first.close();

      const second = await start({ stateFile });
      expect((await call(second, 'GET', '/situacoes/modulos', { token: issued.access_token })).status).toBe(200);
      const refreshed = await fetch(`${second.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: form,
        body: `grant_type=refresh_token&refresh_token=${issued.refresh_token}`,
      });
      expect(refreshed.status).toBe(200);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a state file that is not an emulator state', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'erpsync-emulator-bad-'));
    try {
      const stateFile = join(dir, 'sandbox.json');
      await writeFile(stateFile, '{"hello":1}');
      await expect(createEmulator({ stateFile })).rejects.toMatchObject({ code: 'STATE_FILE' });
      await writeFile(stateFile, 'not json');
      await expect(createEmulator({ stateFile })).rejects.toMatchObject({ code: 'STATE_FILE' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

