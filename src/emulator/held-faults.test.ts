// The two faults of a slow, busy service: a write the server commits after its client gave up
// (late-commit), and one committed at once whose answer comes too late (slow-response). Real HTTP.
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../test/support/eventually.js';
import { parseFaultSpec, pickFault, createFaultPlan } from './faults.js';
import { createEmulator } from './index.js';
import type { Emulator } from './index.js';

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

/** POSTs a group; the status, or `gave up` once `giveUp` is aborted. */
async function postGroup(e: Emulator, nome: string, giveUp?: AbortSignal): Promise<number | 'gave up'> {
  try {
    const res = await request(`${e.baseUrl}/grupos-produtos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ nome }),
      ...(giveUp ? { signal: giveUp } : {}),
    });
    await res.body.text();
    return res.statusCode;
  } catch {
    return 'gave up';
  }
}

const groups = (e: Emulator) => e.snapshot().gruposProdutos.map((g) => g.nome);
/** The request has reached the emulator (it logs each request on arrival). */
const arrived = (e: Emulator) => eventually(() => expect(e.requestLog()).toHaveLength(1));

// The hold is a timer that starts once the request is in; the checks below run on timers due
// before it ends, so they see the moment they name however busy the machine is.
describe('held faults', () => {
  it('late-commit: the client gives up, and the write still lands after the hold', async () => {
    const held = (emulator = await createEmulator({ seed: 'fresh', rateLimit: 0, faults: 'hold=300,POST/grupos-produtos#1=late-commit' }));
    const giveUp = new AbortController();
    const posting = postGroup(held, 'Maquiagem', giveUp.signal);
    await arrived(held);
    expect(groups(held)).toEqual([]);
    giveUp.abort();
    expect(await posting).toBe('gave up');
    await eventually(() => expect(groups(held)).toEqual(['Maquiagem']));
  });

  it('slow-response: the write lands at once, and the answer comes after the hold', async () => {
    const held = (emulator = await createEmulator({ seed: 'fresh', rateLimit: 0, faults: 'hold=300,POST/grupos-produtos#1=slow-response' }));
    let answeredYet = false;
    const answered = postGroup(held, 'Maquiagem').finally(() => (answeredYet = true));
    await eventually(() => expect(groups(held)).toEqual(['Maquiagem']));
    expect(answeredYet).toBe(false);
    expect(await answered).toBe(201);
  });

  it('reads hold and methods from --faults, and draws only for those methods', () => {
    expect(parseFaultSpec('p=1,kinds=late-commit+slow-response,hold=1500,methods=post')).toEqual({ probability: 1, kinds: ['late-commit', 'slow-response'], holdMs: 1500, methods: ['POST'] });
    const plan = createFaultPlan({ probability: 1, kinds: ['late-commit'], methods: ['POST'] });
    expect(pickFault(plan, 'GET', '/grupos-produtos')).toBeUndefined();
    expect(pickFault(plan, 'POST', '/grupos-produtos')).toBe('late-commit');
  });
});
