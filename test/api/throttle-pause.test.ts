// A 429 without Retry-After (the service documents none, api-facts §5) holds every request of the
// client until the next second's window: the retry and the requests started after it reach the
// server at least a second after the 429 did, never in a tight loop. Judged on the arrival times
// the emulator recorded, not on how long the test took. The chaos suites give their injected 429s
// `Retry-After: 0` to stay fast; this is the test of the pause they leave out.
import { describe, expect, it } from 'vitest';
import { createApiClient, createStaticTokenProvider } from '../../src/api/index.js';
import { onCleanup, startEmulator } from './support.js';

describe('a 429 without Retry-After', () => {
  it.each(['http429', 'http429-html'] as const)('(%s) holds the retry and every later request for at least a second', async (fault) => {
    const emulator = await startEmulator({ faults: { schedule: [{ nth: 3, fault }] } });
    // Unpaced (the sandbox's rate), so nothing but the 429 spaces the requests out.
    const later: Promise<unknown>[] = [];
    const client = createApiClient({
      baseUrl: emulator.baseUrl,
      credentials: createStaticTokenProvider(emulator.token),
      rate: Number.POSITIVE_INFINITY,
      random: () => 0,
      // Two more requests start the moment the 429 is known, as a fleet's other work would.
      onEvent: (event) => {
        if (event.type === 'throttled') for (let i = 0; i < 2; i += 1) later.push(client.request({ method: 'GET', path: '/categorias/receitas-despesas' }));
      },
    });
    onCleanup(() => client.close());
    for (let i = 0; i < 3; i += 1) await client.request({ method: 'GET', path: '/formas-pagamentos' });
    await Promise.all(later);

    const log = emulator.requestLog();
    const throttled = log.findIndex((e) => e.status === 429);
    expect(throttled, 'the scheduled 429 was sent').toBe(2);
    const after = log.slice(throttled + 1);
    // The retry and the two started after the 429 arrive after it, none within its second.
    expect(after.map((e) => e.status)).toEqual([200, 200, 200]);
    const at = (log[throttled] as { at: number }).at;
    for (const entry of after) expect(entry.at - at).toBeGreaterThanOrEqual(1_000);
    expect(client.stats()).toMatchObject({ throttled: 1, retries: 1 });
  });
});
