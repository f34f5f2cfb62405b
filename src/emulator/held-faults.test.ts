// The two faults of a slow, busy service: a write the server commits after its client gave up
// (late-commit), and one committed at once whose answer comes too late (slow-response). Real HTTP.
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { parseFaultSpec, pickFault, createFaultPlan } from './faults.js';
import { createEmulator } from './index.js';
import type { Emulator } from './index.js';

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function postGroup(e: Emulator, nome: string, timeoutMs: number): Promise<number | 'timeout'> {
  try {
    const res = await request(`${e.baseUrl}/grupos-produtos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ nome }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body.text();
    return res.statusCode;
  } catch {
    return 'timeout';
  }
}

const groups = (e: Emulator) => e.snapshot().gruposProdutos.map((g) => g.nome);

describe('held faults', () => {
  it('late-commit: the client gives up, and the write still lands after the hold', async () => {
    emulator = await createEmulator({ seed: 'fresh', rateLimit: 0, faults: 'hold=300,POST/grupos-produtos#1=late-commit' });
    expect(await postGroup(emulator, 'Maquiagem', 100)).toBe('timeout');
    expect(groups(emulator)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(groups(emulator)).toEqual(['Maquiagem']);
  });

  it('slow-response: the write lands at once, and the answer comes after the hold', async () => {
    emulator = await createEmulator({ seed: 'fresh', rateLimit: 0, faults: 'hold=300,POST/grupos-produtos#1=slow-response' });
    const answered = postGroup(emulator, 'Maquiagem', 2_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(groups(emulator)).toEqual(['Maquiagem']);
    expect(await answered).toBe(201);
  });

  it('reads hold and methods from --faults, and draws only for those methods', () => {
    expect(parseFaultSpec('p=1,kinds=late-commit+slow-response,hold=1500,methods=post')).toEqual({ probability: 1, kinds: ['late-commit', 'slow-response'], holdMs: 1500, methods: ['POST'] });
    const plan = createFaultPlan({ probability: 1, kinds: ['late-commit'], methods: ['POST'] });
    expect(pickFault(plan, 'GET', '/grupos-produtos')).toBeUndefined();
    expect(pickFault(plan, 'POST', '/grupos-produtos')).toBe('late-commit');
  });
});
