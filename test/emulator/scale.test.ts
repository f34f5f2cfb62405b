// Writes cost what they change, not what the account holds: building a large account through the
// HTTP API grows linearly. The cost is this process's CPU time (the emulator and the requests both
// run here), which other busy processes on the machine do not stretch as they stretch the clock.
// ERPSYNC_SCALE_RECORDS raises the count for a measurement run (the closing figures of issue 14
// used 10,000); the default keeps the suite fast.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { createEmulator } from '../../src/emulator/index.js';

const total = Number(process.env.ERPSYNC_SCALE_RECORDS ?? 3000);
const batch = 500;
const concurrency = 8;

let emulator: Emulator;
beforeAll(async () => {
  emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
});
afterAll(async () => {
  await emulator.close();
});

async function post(path: string, body: unknown): Promise<void> {
  const res = await fetch(`${emulator.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  if (res.status !== 201) throw new Error(`${path} answered ${res.status}`);
}

/** Creates records `from`..`to`-1, a few requests in flight at a time; returns the CPU milliseconds spent. */
async function build(from: number, to: number): Promise<number> {
  const started = process.cpuUsage();
  let next = from;
  const worker = async () => {
    for (let i = next++; i < to; i = next++) {
      // Spread over two kinds, one of them a tree, so parent lookups are part of the cost.
      if (i % 2 === 0) await post('/grupos-produtos', { nome: `Grupo ${i}` });
      else await post('/categorias/receitas-despesas', { descricao: `Categoria ${i}`, tipo: 1 });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const spent = process.cpuUsage(started);
  return (spent.user + spent.system) / 1000;
}

describe('scale', () => {
  it(`builds ${total} records through HTTP in CPU time linear in the count`, async () => {
    const times: number[] = [];
    for (let from = 0; from < total; from += batch) times.push(await build(from, Math.min(total, from + batch)));
    const totalMs = times.reduce((a, b) => a + b, 0);
    console.log(`scale: ${total} records in ${(totalMs / 1000).toFixed(2)} s of CPU (batches of ${batch}: ${times.map((t) => t.toFixed(0)).join(', ')} ms)`);
    const state = emulator.snapshot();
    expect(state.gruposProdutos.length + state.categoriasReceitasDespesas.length - 62).toBe(total);
    // Quadratic growth would make the last batch cost many times the first; linear keeps them close.
    const first = Math.max(times[0] ?? 1, 50);
    expect(times.at(-1) ?? 0).toBeLessThan(first * 4);
  }, 600_000);
});
