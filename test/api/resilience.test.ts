// The client against a misbehaving and a rate-limited emulator: the "must show" cases.
import { describe, expect, it } from 'vitest';
import { createApiClient, createStaticTokenProvider } from '../../src/api/index.js';
import type { ApiClient, ApiRequest } from '../../src/api/index.js';
import { ErpsyncError } from '../../src/model/errors.js';
import { onCleanup, seededRandom, startEmulator } from './support.js';

/** Runs `count` calls with `concurrency` workers; returns each call's outcome. */
async function runCalls(client: ApiClient, count: number, concurrency: number, requestFor: (i: number) => ApiRequest): Promise<{ ok: boolean; error?: unknown }[]> {
  const results: { ok: boolean; error?: unknown }[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) {
      try {
        await client.request(requestFor(i));
        results.push({ ok: true });
      } catch (error) {
        results.push({ ok: false, error });
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

describe('resilience', () => {
  it('with 20% mixed faults, every idempotent call ends in success or a typed error, retrying only within its budget', async () => {
    const emulator = await startEmulator();
    const setup = createApiClient({ baseUrl: emulator.baseUrl, credentials: createStaticTokenProvider(emulator.token), rate: Number.POSITIVE_INFINITY });
    onCleanup(() => setup.close());
    const body = { descricao: 'Cartão loja', tipoPagamento: 3, finalidade: 2, destino: 1, dadosCartao: { bandeira: 1, tipo: 2 } };
    const { data } = await setup.request<{ id: number }>({ method: 'POST', path: '/formas-pagamentos', body });
    const id = data.id;

    // Every fault kind at 20%; the injected latency outlasts the headers timeout (plus undici's
    // coarse timer), so those attempts time out and are retried.
    emulator.setFaults({ probability: 0.2, seed: 20, latencyMs: 1_600, holdMs: 1_600 });
    const retry = { maxAttempts: 5, maxElapsedMs: 3_000, baseDelayMs: 10, maxDelayMs: 100 };
    const headersMs = 200;
    const retryReasons: string[] = [];
    // Each call's first attempt, on the client's clock (performance.now), and the retries decided
    // too late to start within maxElapsedMs of it (the client counts from the call, a little earlier).
    const firstStarts = new Map<number, number>();
    const lateRetries: string[] = [];
    const client = createApiClient({
      baseUrl: emulator.baseUrl,
      credentials: createStaticTokenProvider(emulator.token),
      rate: 200,
      retry,
      timeouts: { headersMs },
      // This test is about retries; with this many injected faults the breaker would rightly stop the run.
      circuit: { maxErrors: 10_000 },
      random: seededRandom(7),
      onEvent: (event) => {
        if (event.type === 'request-start' && !firstStarts.has(event.requestId)) firstStarts.set(event.requestId, performance.now());
        if (event.type !== 'retry') return;
        retryReasons.push(event.reason);
        const elapsedMs = performance.now() - (firstStarts.get(event.requestId) ?? Number.NaN);
        if (!(elapsedMs + event.delayMs <= retry.maxElapsedMs)) lateRetries.push(`#${event.requestId} ${event.method} ${event.path}: ${Math.round(elapsedMs)} ms + ${event.delayMs} ms`);
      },
    });
    onCleanup(() => client.close());
    const calls: ApiRequest[] = [
      { method: 'GET', path: '/formas-pagamentos', query: { tiposPagamentos: [3] } },
      { method: 'GET', path: `/formas-pagamentos/${id}` },
      { method: 'PUT', path: `/formas-pagamentos/${id}`, body },
      { method: 'PATCH', path: `/formas-pagamentos/${id}/situacao`, body: { situacao: 1 } },
      { method: 'GET', path: '/nfse/configuracoes' },
    ];
    const results = await runCalls(client, 100, 4, (i) => calls[i % calls.length]!);

    const typedCodes = new Set(['API_ERROR', 'API_TIMEOUT', 'API_UNREACHABLE']);
    // Every kind was met; latency shows as timeouts (the emulator logs it only once its delay has run out).
    expect(new Set(emulator.requestLog().map((e) => e.fault).filter((f) => f !== undefined && f !== 'latency'))).toEqual(
      new Set(['http500', 'http502', 'http503', 'http429', 'http429-html', 'reset-before', 'reset-after', 'late-commit', 'slow-response']),
    );
    expect(retryReasons).toContain('timed out');
    const failures = results.filter((r) => !r.ok);
    for (const failure of failures) {
      expect(failure.error).toBeInstanceOf(ErpsyncError);
      expect(typedCodes).toContain((failure.error as ErpsyncError).code);
    }
    // A 500 on a write is not retried (it fails the call); everything else retries through.
    expect(results.filter((r) => r.ok).length).toBeGreaterThanOrEqual(90);
    // The bound: no retry is decided that would start after maxElapsedMs (however long each attempt took).
    expect(lateRetries).toEqual([]);
    expect(client.stats().retries).toBeGreaterThan(0);
    expect(client.stats().total).toBeGreaterThan(100);
  });

  it('with the emulator limit equal to the client rate, 200 requests meet zero 429s', async () => {
    const emulator = await startEmulator({ rateLimit: 50 });
    const client = createApiClient({ baseUrl: emulator.baseUrl, credentials: createStaticTokenProvider(emulator.token), rate: 50 });
    onCleanup(() => client.close());
    const results = await runCalls(client, 200, 4, () => ({ method: 'GET', path: '/formas-pagamentos' }));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(emulator.requestLog().filter((e) => e.status === 429)).toHaveLength(0);
    expect(client.stats()).toMatchObject({ total: 200, throttled: 0, retries: 0 });
  });

  it('a client set faster than the limit meets 429s, slows down and still completes', async () => {
    const emulator = await startEmulator({ rateLimit: 20 });
    const client = createApiClient({
      baseUrl: emulator.baseUrl,
      credentials: createStaticTokenProvider(emulator.token),
      rate: 80,
      retry: { baseDelayMs: 20, maxDelayMs: 200 },
      random: seededRandom(3),
    });
    onCleanup(() => client.close());
    const results = await runCalls(client, 50, 4, () => ({ method: 'GET', path: '/formas-pagamentos' }));
    expect(results.every((r) => r.ok)).toBe(true);
    const throttled = emulator.requestLog().filter((e) => e.status === 429).length;
    expect(throttled).toBeGreaterThan(0);
    expect(client.stats().throttled).toBe(throttled);
    // Far fewer refusals than requests: after the first 429s the client paces itself under the limit.
    expect(throttled).toBeLessThan(25);
  });
});
