// Rule ip-blocks over HTTP: emulators sharing one ledger are one machine to the service. A bare
// loop (no pacing, no governor) across two sandbox accounts trips the per-IP request rule, and
// every later request from the IP, to either account, gets the block's 403. The ledgers' clocks
// stand still, so however slowly the machine sends, every request falls in one window.
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator, createIpLedger } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';

const open: Emulator[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

async function account(ledger: ReturnType<typeof createIpLedger>): Promise<Emulator> {
  const emulator = await createEmulator({ rateLimit: 0, ipRules: ledger });
  open.push(emulator);
  return emulator;
}

const get = (e: Emulator) => fetch(`${e.baseUrl}/formas-pagamentos`, { headers: { authorization: `Bearer ${e.token}` } });

describe('the per-IP rules across the accounts of one process', () => {
  it('a bare loop over two accounts trips the 600-requests rule, and the IP is then blocked for both', async () => {
    const ledger = createIpLedger({ now: () => 0 });
    const [a, b] = [await account(ledger), await account(ledger)] as [Emulator, Emulator];
    const statuses: number[] = [];
    // 16 in flight at a time, as a naive fleet would.
    for (let sent = 0; sent < 640; sent += 16) {
      const batch = await Promise.all(Array.from({ length: 16 }, (_, i) => get(i % 2 === 0 ? a : b)));
      statuses.push(...batch.map((r) => r.status));
      await Promise.all(batch.map((r) => r.text()));
    }
    expect(statuses.slice(0, 600).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(600).every((s) => s === 403)).toBe(true);
    const blocked = await get(b);
    expect(blocked.status).toBe(403);
    expect(((await blocked.json()) as { error: { type: string } }).error.type).toBe('IP_BLOCKED');
    expect(a.ipViolations()).toEqual([expect.objectContaining({ rule: 'requests', count: 601, ip: expect.stringContaining('127.0.0.1') as unknown })]);
    expect(b.ipViolations()).toEqual(a.ipViolations());
    const inspected = (await (await fetch(`${a.baseUrl}/__sandbox/ip-violations`)).json()) as { data: { violations: unknown[]; refused: number } };
    expect(inspected.data.violations).toHaveLength(1);
    expect(inspected.data.refused).toBe(41);
  });

  it('21 token calls in a minute block the IP for an hour', async () => {
    const ledger = createIpLedger({ now: () => 0 });
    const e = await account(ledger);
    const statuses: number[] = [];
    for (let i = 0; i < 21; i += 1) {
      const res = await fetch(`${e.baseUrl}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token&refresh_token=x' });
      statuses.push(res.status);
      await res.text();
    }
    expect(statuses.slice(0, 20).every((s) => s !== 403)).toBe(true);
    expect(statuses[20]).toBe(403);
    expect(e.ipViolations()).toEqual([expect.objectContaining({ rule: 'token-calls', count: 21 })]);
    expect((e.ipViolations()[0]?.blockedUntil ?? 0) - (e.ipViolations()[0]?.at ?? 0)).toBe(3_600_000);
  });

  it("a ledger that does not enforce (an emulator's default) records the violation and blocks nobody", async () => {
    const e = await account(createIpLedger({ enforce: false, now: () => 0 }));
    const statuses = new Set<number>();
    for (let sent = 0; sent < 620; sent += 20) {
      const batch = await Promise.all(Array.from({ length: 20 }, () => get(e)));
      for (const r of batch) statuses.add(r.status);
      await Promise.all(batch.map((r) => r.text()));
    }
    expect([...statuses]).toEqual([200]);
    expect(e.ipViolations()).toHaveLength(1);
  });
});
