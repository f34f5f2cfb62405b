// Reads a new store spares, and the ones it must not: a record that names a record the account
// lacks cannot be in the account, so transitions between new situations, services of new
// logistics and store links of new categories need no read (kinds/desired-units mayBeInAccount).
// Whatever may already be there is still read: a renamed situation's transitions, a removed
// logistics' services (its removal must know what sits inside), anything under prune.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/apply/apply-plan.js';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { registry } from '../../src/kinds/registry.js';
import { isActionable } from '../../src/model/plan.js';
import type { Plan } from '../../src/model/plan.js';
import { planFor, readForManifest } from '../reliability/support/pipeline.js';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function openSandbox(): Promise<{ emulator: Emulator; dir: string }> {
  const emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
  cleanups.push(() => emulator.close());
  const dir = mkdtempSync(join(tmpdir(), 'erpsync-new-records-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return { emulator, dir };
}

/** Reads and plans the manifest; the plan and the paths of the GETs the read sent. */
async function plan(emulator: Emulator, dir: string, yaml: string, apply = false): Promise<{ plan: Plan; gets: string[] }> {
  const { desired, client, live } = await readForManifest(emulator, dir, yaml, (close) => cleanups.push(close));
  const gets = emulator.requestLog().map((e) => e.path.replace(/\/\d+/g, '/{id}'));
  const result = planFor(desired, live, emulator);
  if (apply) expect((await applyPlan(result, { client, adapters: registry.units, live })).failed).toBe(0);
  return { plan: result, gets };
}

const actions = (p: Plan) => p.changes.filter(isActionable).map((c) => `${c.action} ${c.kind} ${c.key}`);

const situations = (names: string[], extra = '') =>
  `situacoes:\n${names.map((n) => `  - { modulo: Vendas, nome: "${n}", herdado: Em aberto${extra} }\n`).join('')}`;
const transitions = (pairs: [string, string][]) => `transicoes:\n${pairs.map(([de, para]) => `  - { modulo: Vendas, de: "${de}", para: "${para}" }\n`).join('')}`;
const logistics = (name: string, codes: string[], extra = '') =>
  `  - descricao: ${name}\n    situacao: habilitada${extra}\n    servicos:\n${codes.map((c) => `      - { codigo: ${c}, descricao: Serviço ${c}, freteItem: 1, estimativaEntrega: 2 }\n`).join('')}`;

describe('reads a new store spares', () => {
  it('reads no transitions, services or store links when each declared one names a record the account lacks', async () => {
    const { emulator, dir } = await openSandbox();
    const yaml = [
      situations(['Aguardando pagamento']),
      transitions([['Em aberto', 'Aguardando pagamento']]),
      `logisticas:\n${logistics('Entrega própria', ['MOTO'])}`,
      'categoriasProdutos:\n  - descricao: Perfumes\n',
      'categoriasLojas:\n  - { loja: Loja Virtual, categoriaProduto: Perfumes, descricao: Perfumaria, codigo: PERF }\n',
    ].join('');
    const first = await plan(emulator, dir, yaml, true);
    expect(first.gets).not.toContain('/situacoes/modulos/{id}/transicoes');
    expect(first.gets).not.toContain('/logisticas/servicos');
    expect(first.gets).not.toContain('/categorias/lojas');
    // Once they exist, they are read and found: nothing is created twice.
    const second = await plan(emulator, dir, yaml);
    expect(second.gets).toEqual(expect.arrayContaining(['/situacoes/modulos/{id}/transicoes', '/logisticas/servicos', '/categorias/lojas']));
    expect(actions(second.plan)).toEqual([]);
  });

  it('reads the transitions of a situation renamed from a previous name, and creates none twice', async () => {
    const { emulator, dir } = await openSandbox();
    await plan(emulator, dir, situations(['Aguardando pagamento']) + transitions([['Em aberto', 'Aguardando pagamento']]), true);
    const yaml = situations(['Aguardando Pix'], ', previousNames: ["Aguardando pagamento"]') + transitions([['Em aberto', 'Aguardando Pix']]);
    const renamed = await plan(emulator, dir, yaml, true);
    expect(renamed.gets).toContain('/situacoes/modulos/{id}/transicoes');
    // The transition follows its situation's rename: it is the same record, not a new one.
    expect(actions(renamed.plan)).toEqual(['update situacoes Vendas > Aguardando Pix']);
    expect(actions((await plan(emulator, dir, yaml)).plan)).toEqual([]);
    const renamedId = emulator.snapshot().situacoes.find((x) => x.nome === 'Aguardando Pix')?.id;
    expect(emulator.snapshot().transicoes.filter((t) => t.idSituacaoDestino === renamedId)).toHaveLength(1);
  });

  it('reads the services of a logistics it removes, so the removal knows what sits inside', async () => {
    const { emulator, dir } = await openSandbox();
    await plan(emulator, dir, `logisticas:\n${logistics('Entrega antiga', ['A', 'B'])}`, true);
    const yaml = `logisticas:\n${logistics('Entrega nova', ['C'])}  - { descricao: Entrega antiga, ensure: absent }\n`;
    const { plan: result, gets } = await plan(emulator, dir, yaml);
    expect(gets).toContain('/logisticas/servicos');
    const removal = result.changes.find((c) => c.key === 'Entrega antiga' && isActionable(c));
    const children = removal?.requires.find((p) => p.type === 'children');
    expect(children?.type === 'children' ? children.children : []).toHaveLength(2);
  });

  it('reads the services of a renamed logistics, and adds only the new one', async () => {
    const { emulator, dir } = await openSandbox();
    await plan(emulator, dir, `logisticas:\n${logistics('Entrega antiga', ['A'])}`, true);
    const { plan: result, gets } = await plan(emulator, dir, `logisticas:\n${logistics('Entrega nova', ['A', 'B'], '\n    previousNames: ["Entrega antiga"]')}`);
    expect(gets).toContain('/logisticas/servicos');
    expect(actions(result).filter((a) => a.startsWith('create'))).toEqual(['create logisticasServicos Entrega nova > B']);
  });
});
