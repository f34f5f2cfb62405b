// What a plan predicts it will send against what apply sends, over real HTTP: the services of a
// new logistics ride in its create, services added to an existing logistics go in one request,
// every write but deletes is read back, and the cost line counts every request.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import type { DesiredState } from '../../src/model/desired.js';
import { needsReadBack } from '../../src/model/plan.js';
import { applyAndCount as applyCounted, loadDesiredOrThrow } from '../reliability/support/pipeline.js';

let emulator: Emulator;
beforeEach(async () => {
  emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
});
afterEach(async () => {
  await emulator.close();
});

const applyAndCount = (desired: DesiredState) => applyCounted(emulator, desired);

describe('the requests a plan predicts', () => {
  it('bootstraps the example store with the count the cost line predicts, services inside their logistics', async () => {
    const desired = await loadDesiredOrThrow(['examples/loja-nova'], process.cwd(), { NFSE_SENHA_PREFEITURA: 'demo' });
    const { plan, result, notConverged, log } = await applyAndCount(desired);
    expect(result.failed).toBe(0);
    expect(notConverged).toEqual([]);
    const { reads, writes, verifyReads = 0 } = plan.cost;
    // The read-back of the NFS-e settings takes the operation natures it names from the plan's read.
    expect(log.length).toBe(reads + writes + verifyReads);
    expect(log.filter((e) => e.method === 'POST' && e.path === '/logisticas/servicos')).toHaveLength(0);
    // No page is read twice: several kinds need the situation modules, and one GET serves them all,
    // and the writes resolve the module ids from that read instead of asking again.
    const gets = log.filter((e) => e.method === 'GET').map((e) => `${e.path}?${e.query}`);
    const readBack = plan.cost.verifyReads ?? 0;
    expect(new Set(gets.slice(0, gets.length - readBack)).size).toBe(gets.length - readBack);
    expect(gets.filter((g) => g.startsWith('/situacoes/modulos?'))).toHaveLength(1);
    const codes = emulator.snapshot().servicosLogisticas.map((s) => s.codigo);
    expect(codes).toEqual(expect.arrayContaining(['MOTO-EXPRESSA', 'MOTO-AGENDADA', 'RETIRADA']));
    // Every write is read back; deletes (none here) are proven by their answer.
    expect(plan.changes.filter((c) => c.action !== 'blocked').every(needsReadBack)).toBe(true);
  });

  it('sends the services added to an existing logistics in one request and maps the ids back', async () => {
    const logistics = (codes: string[]) =>
      `version: 1\nlogisticas:\n  - descricao: Entrega\n    situacao: habilitada\n    servicos:\n${codes.map((c) => `      - { codigo: ${c}, descricao: Serviço ${c}, freteItem: 1, estimativaEntrega: 2 }\n`).join('')}`;
    const dir = mkdtempSync(`${tmpdir()}/erpsync-cost-`);
    writeFileSync(`${dir}/m.yaml`, logistics(['A']));
    await applyAndCount(await loadDesiredOrThrow(['m.yaml'], dir, {}));
    writeFileSync(`${dir}/m.yaml`, logistics(['A', 'B', 'C', 'D']));
    const { plan, result, log } = await applyAndCount(await loadDesiredOrThrow(['m.yaml'], dir, {}));
    expect(log.filter((e) => e.method !== 'GET').map((e) => `${e.method} ${e.path}`)).toEqual(['POST /logisticas/servicos']);
    const ids = result.outcomes.map((o) => (o.outcome.status === 'applied' ? o.outcome.id : undefined));
    expect(new Set(ids).size).toBe(3);
    expect(emulator.snapshot().servicosLogisticas.map((s) => s.id).sort()).toEqual(expect.arrayContaining(ids as number[]));
    expect(log.length).toBe(plan.cost.reads + plan.cost.writes + (plan.cost.verifyReads ?? 0));
  });
});
