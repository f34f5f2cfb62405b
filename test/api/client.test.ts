import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ApiError, ApiOutcomeUnknownError, createApiClient, createStaticTokenProvider } from '../../src/api/index.js';
import type { ApiClient, ApiClientOptions, ApiEvent } from '../../src/api/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { eventually } from '../support/eventually.js';
import { freePort, onCleanup, seededRandom, startEmulator } from './support.js';

/**
 * A loopback server that reads requests and never answers: a timeout on every attempt, without
 * waiting for an injected delay to run out on the emulator's side.
 */
async function startSilentServer(): Promise<{ baseUrl: string; received(): number }> {
  let received = 0;
  const server = createServer((req) => {
    received += 1;
    req.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const { port } = server.address() as { port: number };
  return { baseUrl: `http://127.0.0.1:${port}/Api/v3`, received: () => received };
}

const fastRetry = { baseDelayMs: 5, maxDelayMs: 20, maxAttempts: 4, maxElapsedMs: 5_000 };

function clientFor(emulator: Emulator, options: Partial<ApiClientOptions> = {}): ApiClient {
  const client = createApiClient({
    baseUrl: emulator.baseUrl,
    credentials: createStaticTokenProvider(emulator.token),
    rate: Number.POSITIVE_INFINITY,
    retry: fastRetry,
    random: seededRandom(1),
    ...options,
  });
  onCleanup(() => client.close());
  return client;
}

const pix = { descricao: 'Pix loja', tipoPagamento: 17, finalidade: 2, destino: 3 };

interface IdData {
  id: number;
}

describe('requests and envelopes', () => {
  it('unwraps `data`, creates, replaces, patches and deletes', async () => {
    const emulator = await startEmulator();
    const client = clientFor(emulator);
    const created = await client.request<IdData>({ method: 'POST', path: '/formas-pagamentos', body: pix, kind: 'formasPagamentos' });
    expect(created.status).toBe(201);
    const id = created.data.id;
    expect(typeof id).toBe('number');
    const detail = await client.request<Record<string, unknown>>({ method: 'GET', path: `/formas-pagamentos/${id}` });
    expect(detail.data).toMatchObject({ id, descricao: 'Pix loja', destino: 3 });
    const put = await client.request<IdData>({ method: 'PUT', path: `/formas-pagamentos/${id}`, body: { ...pix, descricao: 'Pix' } });
    expect(put).toEqual({ status: 200, data: { id } });
    const patched = await client.request({ method: 'PATCH', path: `/formas-pagamentos/${id}/situacao`, body: { situacao: 0 } });
    expect(patched).toEqual({ status: 204, data: undefined });
    expect(await client.request({ method: 'DELETE', path: `/formas-pagamentos/${id}` })).toEqual({ status: 204, data: undefined });
    expect(emulator.snapshot().formasPagamentos.find((r) => r.id === id)).toBeUndefined();
    expect(client.stats()).toMatchObject({ total: 5, byMethod: { POST: 1, GET: 1, PUT: 1, PATCH: 1, DELETE: 1 }, byKind: { formasPagamentos: 1 }, retries: 0, errors: 0 });
  });

  it('returns a body without the envelope as it is (NFS-e settings)', async () => {
    const emulator = await startEmulator();
    const client = clientFor(emulator);
    const { data } = await client.request<Record<string, unknown>>({ method: 'GET', path: '/nfse/configuracoes' });
    expect(data).toBeTypeOf('object');
    expect(data).not.toHaveProperty('data');
  });

  it('walks pages until a short page and sends arrays as name[]', async () => {
    const emulator = await startEmulator();
    const client = clientFor(emulator);
    for (let i = 0; i < 5; i += 1) await client.request({ method: 'POST', path: '/formas-pagamentos', body: { ...pix, descricao: `Pix ${i}` } });
    const everything = await client.listAll<{ id: number }>('/formas-pagamentos');
    expect(everything.length).toBeGreaterThan(5);
    emulator.clearLog();
    const paged = await client.listAll<{ id: number }>('/formas-pagamentos', {}, { limit: 2, kind: 'formasPagamentos' });
    expect(paged.map((r) => r.id)).toEqual(everything.map((r) => r.id));
    expect(emulator.requestLog().length).toBe(Math.floor(everything.length / 2) + 1);
    const pixOnly = await client.listAll<{ tipoPagamento: number }>('/formas-pagamentos', { tiposPagamentos: [17, 20] });
    expect(pixOnly.length).toBeGreaterThanOrEqual(5);
    expect(pixOnly.every((r) => r.tipoPagamento === 17 || r.tipoPagamento === 20)).toBe(true);
    expect(emulator.requestLog().at(-1)?.query).toContain('tiposPagamentos[]=17&tiposPagamentos[]=20');
  });
});

describe('typed errors', () => {
  it('turns a validation error into an ApiError with the field messages as details', async () => {
    const emulator = await startEmulator();
    const client = clientFor(emulator);
    const error = await client.request({ method: 'POST', path: '/formas-pagamentos', body: { tipoPagamento: 17 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError).toMatchObject({ code: 'API_ERROR', status: 400, method: 'POST', path: '/formas-pagamentos', category: 'validation' });
    expect(apiError.message.split('\n')).toHaveLength(1);
    expect(apiError.fields.length).toBeGreaterThan(0);
    expect(apiError.details.join('\n')).toContain('descricao');
    expect(client.stats().retries).toBe(0);
  });

  it('classifies 404, 403 and 401 by status and never retries them', async () => {
    const emulator = await startEmulator();
    const client = clientFor(emulator);
    await expect(client.request({ method: 'GET', path: '/formas-pagamentos/999999999' })).rejects.toMatchObject({ status: 404, category: 'not-found' });
    const noScope = clientFor(emulator, { credentials: createStaticTokenProvider(emulator.issueToken({ scopes: [] })) });
    await expect(noScope.request({ method: 'GET', path: '/formas-pagamentos' })).rejects.toMatchObject({ status: 403, category: 'forbidden', type: 'insufficient_scope' });
    const badToken = clientFor(emulator, { credentials: createStaticTokenProvider('not-a-valid-token') });
    await expect(badToken.request({ method: 'GET', path: '/formas-pagamentos' })).rejects.toMatchObject({ status: 401, category: 'auth' });
    expect(emulator.requestLog()).toHaveLength(3);
  });

  it('does not follow redirects', async () => {
    const emulator = await startEmulator();
    const client = clientFor(emulator);
    const error = await client.request({ method: 'GET', path: '/oauth/authorize', query: { response_type: 'code', client_id: 'sandbox-client', state: 's' } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 302, category: 'redirect' });
  });

  it('refuses plain http to a non-loopback host before any request', () => {
    expect(() => createApiClient({ baseUrl: 'http://api.example.com/Api/v3', credentials: createStaticTokenProvider('x1234') })).toThrow(
      expect.objectContaining({ code: 'INSECURE_URL' }),
    );
  });
});

describe('retries', () => {
  it('retries GET, PUT, PATCH and DELETE through 429 (JSON and HTML), 502, 503 and resets', async () => {
    const emulator = await startEmulator();
    const client = clientFor(emulator);
    const { data } = await client.request<IdData>({ method: 'POST', path: '/formas-pagamentos', body: pix });
    emulator.setFaults({
      schedule: [
        { method: 'GET', nth: 1, fault: 'http429-html' },
        { method: 'GET', nth: 2, fault: 'http503' },
        { method: 'PUT', nth: 1, fault: 'http502' },
        { method: 'PATCH', nth: 1, fault: 'reset-before' },
        { method: 'PATCH', nth: 2, fault: 'http429' },
        { method: 'DELETE', nth: 1, fault: 'reset-before' },
      ],
    });
    const events: ApiEvent[] = [];
    const watched = clientFor(emulator, { onEvent: (e) => events.push(e) });
    await watched.request({ method: 'GET', path: `/formas-pagamentos/${data.id}` });
    await watched.request({ method: 'PUT', path: `/formas-pagamentos/${data.id}`, body: pix });
    await watched.request({ method: 'PATCH', path: `/formas-pagamentos/${data.id}/situacao`, body: { situacao: 0 } });
    await watched.request({ method: 'DELETE', path: `/formas-pagamentos/${data.id}` });
    expect(watched.stats()).toMatchObject({ total: 10, retries: 6, throttled: 2, errors: 6 });
    expect(events.filter((e) => e.type === 'retry').map((e) => (e as { reason: string }).reason)).toEqual([
      '429',
      '503',
      '502',
      'the connection broke',
      '429',
      'the connection broke',
    ]);
    expect(events.filter((e) => e.type === 'throttled')).toHaveLength(2);
    expect(emulator.snapshot().formasPagamentos.find((r) => r.id === data.id)).toBeUndefined();
  });

  it('gives up after the attempt bound with the last error', async () => {
    const emulator = await startEmulator({ faults: { probability: 1, kinds: ['http503'] } });
    const client = clientFor(emulator);
    const error = await client.request({ method: 'GET', path: '/formas-pagamentos' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 503, category: 'server' });
    expect((error as ApiError).message).toContain('after 4 attempts');
    expect(emulator.requestLog()).toHaveLength(4);
  });

  it('retries a 500 on a read, never on a write', async () => {
    const emulator = await startEmulator({ faults: { schedule: [{ nth: 1, fault: 'http500' }] } });
    const client = clientFor(emulator);
    await expect(client.request({ method: 'GET', path: '/formas-pagamentos' })).resolves.toMatchObject({ status: 200 });
    expect(emulator.requestLog()).toHaveLength(2);
    emulator.clearLog();
    emulator.setFaults({ schedule: [{ nth: 1, fault: 'http500' }] });
    await expect(client.request({ method: 'PUT', path: '/formas-pagamentos/1', body: {} })).rejects.toMatchObject({ status: 500 });
    expect(emulator.requestLog()).toHaveLength(1);
  });

  it('times out an answer that never comes: retries the GET, then reports API_TIMEOUT', async () => {
    const silent = await startSilentServer();
    const client = createApiClient({
      baseUrl: silent.baseUrl,
      credentials: createStaticTokenProvider('token-x'),
      rate: Number.POSITIVE_INFINITY,
      timeouts: { headersMs: 100 },
      retry: { ...fastRetry, maxAttempts: 2 },
    });
    onCleanup(() => client.close());
    const error = await client.request({ method: 'GET', path: '/formas-pagamentos' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'API_TIMEOUT' });
    expect((error as Error).message).toContain('timed out after 2 attempts');
    expect(silent.received()).toBe(2);
  });
});

describe('writes whose outcome is unknown', () => {
  it('does not retry a POST after a reset or a 5xx, and says the outcome is unknown', async () => {
    const emulator = await startEmulator();
    const client = clientFor(emulator);
    const before = emulator.snapshot().formasPagamentos.length;
    emulator.setFaults({ schedule: [{ method: 'POST', nth: 1, fault: 'reset-after' }] });
    const reset = await client.request({ method: 'POST', path: '/formas-pagamentos', body: pix }).catch((e: unknown) => e);
    expect(reset).toBeInstanceOf(ApiOutcomeUnknownError);
    expect(reset).toMatchObject({ code: 'API_OUTCOME_UNKNOWN', method: 'POST', path: '/formas-pagamentos' });
    // The write did commit: exactly the case where a blind retry would duplicate the record.
    expect(emulator.snapshot().formasPagamentos.length).toBe(before + 1);

    for (const fault of ['http503', 'http502', 'http500', 'reset-before'] as const) {
      emulator.setFaults({ schedule: [{ method: 'POST', nth: 1, fault }] });
      await expect(client.request({ method: 'POST', path: '/formas-pagamentos', body: pix })).rejects.toBeInstanceOf(ApiOutcomeUnknownError);
    }
    expect(client.stats()).toMatchObject({ byMethod: { POST: 5 }, retries: 0 });
  });

  it('does not retry a POST whose answer never comes', async () => {
    const silent = await startSilentServer();
    const client = createApiClient({
      baseUrl: silent.baseUrl,
      credentials: createStaticTokenProvider('token-x'),
      rate: Number.POSITIVE_INFINITY,
      timeouts: { headersMs: 100 },
    });
    onCleanup(() => client.close());
    const error = await client.request({ method: 'POST', path: '/formas-pagamentos', body: pix }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiOutcomeUnknownError);
    expect((error as Error).message).toContain('timed out');
    expect(client.stats()).toMatchObject({ total: 1, retries: 0 });
    expect(silent.received()).toBe(1);
  });

  it('does retry a POST refused by a 429, once, without duplicating', async () => {
    const emulator = await startEmulator({ faults: { schedule: [{ method: 'POST', nth: 1, fault: 'http429' }] } });
    const client = clientFor(emulator);
    const before = emulator.snapshot().formasPagamentos.length;
    const { status } = await client.request({ method: 'POST', path: '/formas-pagamentos', body: pix });
    expect(status).toBe(201);
    expect(emulator.snapshot().formasPagamentos.length).toBe(before + 1);
  });

  it('retries a POST when the connection could not even be opened', async () => {
    const port = await freePort();
    const client = createApiClient({
      baseUrl: `http://127.0.0.1:${port}/Api/v3`,
      credentials: createStaticTokenProvider('token-x'),
      retry: { ...fastRetry, maxAttempts: 3 },
      rate: Number.POSITIVE_INFINITY,
    });
    onCleanup(() => client.close());
    const error = await client.request({ method: 'POST', path: '/formas-pagamentos', body: pix }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'API_UNREACHABLE' });
    expect((error as Error).message).toContain('after 3 attempts');
    expect(client.stats()).toMatchObject({ total: 3, retries: 2, errors: 3 });
  });
});

describe('guards', () => {
  it('opens the circuit after a burst of errors and sends nothing more', async () => {
    const emulator = await startEmulator({ faults: { probability: 1, kinds: ['http500'] } });
    const client = clientFor(emulator, { circuit: { maxErrors: 5, windowMs: 10_000 } });
    // Writes are not retried on 500, so each request below is one error.
    const write = () => client.request({ method: 'PUT', path: '/formas-pagamentos/1', body: {} });
    for (let i = 0; i < 6; i += 1) await expect(write()).rejects.toMatchObject({ status: 500 });
    await expect(write()).rejects.toMatchObject({ code: 'CIRCUIT_OPEN' });
    expect(emulator.requestLog()).toHaveLength(6);
  });

  it('stops at the request budget of the run', async () => {
    const emulator = await startEmulator();
    const client = clientFor(emulator, { maxRequests: 3 });
    for (let i = 0; i < 3; i += 1) await client.request({ method: 'GET', path: '/formas-pagamentos' });
    await expect(client.request({ method: 'GET', path: '/formas-pagamentos' })).rejects.toMatchObject({ code: 'RATE_BUDGET_EXHAUSTED' });
    expect(emulator.requestLog()).toHaveLength(3);
  });

  it('does not retry when the daily quota is spent', async () => {
    const emulator = await startEmulator({ dailyLimit: 1 });
    const client = clientFor(emulator);
    await client.request({ method: 'GET', path: '/formas-pagamentos' });
    await expect(client.request({ method: 'GET', path: '/formas-pagamentos' })).rejects.toMatchObject({ code: 'DAILY_QUOTA' });
    // Nothing more leaves this client: a later request fails without reaching the service.
    await expect(client.request({ method: 'GET', path: '/formas-pagamentos' })).rejects.toMatchObject({ code: 'DAILY_QUOTA' });
    expect(emulator.requestLog()).toHaveLength(2);
    expect(client.stats()).toMatchObject({ total: 2, dailyQuotaMet: true });
  });

  it('stops when the run is interrupted', async () => {
    const emulator = await startEmulator({ faults: { probability: 1, kinds: ['latency'], latencyMs: 5_000 } });
    const controller = new AbortController();
    const client = clientFor(emulator, { signal: controller.signal });
    const pending = client.request({ method: 'GET', path: '/formas-pagamentos' });
    // Interrupted while the request is in flight: the emulator has it (logged on arrival) and holds it.
    await eventually(() => expect(emulator.requestLog()).toHaveLength(1));
    controller.abort(new Error('SIGINT'));
    await expect(pending).rejects.toMatchObject({ code: 'INTERRUPTED' });
  });

  it('refuses a success body that is not JSON and a list that is not a list', async () => {
    const server = createServer((req, res) => {
      if (req.url?.startsWith('/Api/v3/html')) {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>hello</html>');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data: { not: 'a list' } }));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onCleanup(() => new Promise((resolve) => server.close(resolve)));
    const address = server.address() as { port: number };
    const client = createApiClient({ baseUrl: `http://127.0.0.1:${address.port}/Api/v3`, credentials: createStaticTokenProvider('token-x'), rate: Number.POSITIVE_INFINITY });
    onCleanup(() => client.close());
    await expect(client.request({ method: 'GET', path: '/html' })).rejects.toMatchObject({ category: 'invalid-response', status: 200 });
    await expect(client.listAll('/list')).rejects.toMatchObject({ code: 'API_ERROR' });
  });
});
