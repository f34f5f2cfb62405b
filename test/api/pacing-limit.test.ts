// The client's pace against the emulator's real per-second limit (a token bucket, as the service
// counts), scaled up tenfold so the runs stay short: alone on the account the default pace meets
// no 429; with a second integration using a third of the limit, the client slows down on 429s,
// comes back gradually, and no request fails. How close to the floor it runs is the bench's
// measure (`npm run bench`), not a timed test's.
import { describe, expect, it } from 'vitest';
import { createApiClient, createStaticTokenProvider, DEFAULT_RATE } from '../../src/api/index.js';
import type { ApiClient } from '../../src/api/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { onCleanup, startEmulator } from './support.js';

/** The account's limit in this test, and the scale against the real 3 req/s. */
const limit = 30;
const scale = limit / 3;

function pacedClient(emulator: Emulator, rate: number): ApiClient {
  const client = createApiClient({ baseUrl: emulator.baseUrl, credentials: createStaticTokenProvider(emulator.token), rate, retry: { maxAttempts: 8 } });
  onCleanup(() => client.close());
  return client;
}

async function sendReads(client: ApiClient, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) await client.request({ method: 'GET', path: '/formas-pagamentos', query: { limite: 1 } });
}

describe('pacing against the account limit', () => {
  it('runs alone at the default pace without meeting a 429', async () => {
    const emulator = await startEmulator({ rateLimit: limit });
    // A limit switched on starts with a full bucket; the default pace never needs the burst.
    const client = pacedClient(emulator, DEFAULT_RATE * scale);
    await sendReads(client, 60);
    expect(client.stats().throttled).toBe(0);
    expect(client.stats().total).toBe(60);
  });

  it('shares the account with another integration: no failed request, few 429s', async () => {
    const emulator = await startEmulator({ rateLimit: limit });
    const ours = pacedClient(emulator, DEFAULT_RATE * scale);
    const other = pacedClient(emulator, 1 * scale);
    let stop = false;
    const otherRun = (async () => {
      while (!stop) await sendReads(other, 1);
    })();
    await sendReads(ours, 150);
    stop = true;
    await otherRun;
    expect(ours.stats().total - ours.stats().throttled).toBe(150);
    expect(ours.stats().throttled / ours.stats().total).toBeLessThan(0.05);
  }, 60_000);
});
