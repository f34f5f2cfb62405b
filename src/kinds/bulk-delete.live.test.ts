// Bulk deletes of product groups and income/expense categories (live-helpers bulkDeleteOperation),
// driven as apply drives them: a lead change with the changes the plan made it carry.
import { describe, expect, it } from 'vitest';
import { openEditedAccount, planned, writeContext } from '../../test/kinds/adapter-support.js';
import type { ApiClient } from '../api/client.js';
import type { EmulatorState } from '../emulator/index.js';
import type { Change } from '../model/plan.js';
import { categoriasReceitasDespesas } from './categorias-receitas-despesas.js';
import { gruposProdutos } from './grupos-produtos.js';
import type { KindAdapter, WriteContext } from './kind.js';

const groupIds = [14_693_500_001, 14_693_500_002, 14_693_500_003];
const categoryIds = [14_693_500_011, 14_693_500_012, 14_693_500_013];

/** Three root groups and three own root categories; `inUse` ids are used by documents (rule in-use). */
function withRecords(inUse: readonly number[] = []) {
  return (state: EmulatorState): void => {
    groupIds.forEach((id, i) => state.gruposProdutos.push({ id, nome: `Grupo ${i + 1}`, idGrupoPai: 0 }));
    categoryIds.forEach((id, i) => state.categoriasReceitasDespesas.push({ id, idCategoriaPai: 0, descricao: `Categoria ${i + 1}`, tipo: 1, idGrupoDre: 1, situacao: 1 }));
    state.emUso.push(...inUse);
  };
}

/** The deletes of `ids` as the plan batches them: the first leads, the others ride in its request. */
function batchOf(adapter: KindAdapter, ids: readonly number[]): { lead: Change; carried: Change[] } {
  const [lead, ...carried] = ids.map((id) => planned(adapter.kind, 'delete', `Record ${id}`, { liveId: id, reason: 'prune' }));
  if (!lead) throw new Error('a batch needs a lead');
  return { lead, carried };
}

function carryingContext(client: ApiClient, carried: readonly Change[]): WriteContext {
  return { ...writeContext(client, []), carried: carried.map((change) => ({ change })) };
}

describe('bulk deletes', () => {
  it('deletes a lead and the deletes it carries with one DELETE naming every id', async () => {
    const { emulator, client } = await openEditedAccount(withRecords());
    const { lead, carried } = batchOf(gruposProdutos, groupIds);
    expect(await gruposProdutos.execute(lead, carryingContext(client, carried))).toEqual({});
    expect(emulator.requestLog().map((e) => `${e.method} ${e.path}?${e.query}`)).toEqual([
      `DELETE /grupos-produtos?${groupIds.map((id) => `idsGruposProdutos[]=${id}`).join('&')}`,
    ]);
    expect(emulator.snapshot().gruposProdutos).toEqual([]);
  });

  it('reads the ids back when the answer has alerts, and fails exactly the records the service kept', async () => {
    const [first, second, third] = categoryIds;
    const { emulator, client } = await openEditedAccount(withRecords([first ?? 0, third ?? 0]));
    const { lead, carried } = batchOf(categoriasReceitasDespesas, categoryIds);
    const result = await categoriasReceitasDespesas.execute(lead, carryingContext(client, carried));
    expect(result.refused).toMatch(/^still in the account when read back after its bulk delete, which answered: .*em uso/);
    expect(Object.keys(result.carriedFailures ?? {})).toEqual([carried[1]?.id]);
    expect(emulator.snapshot().categoriasReceitasDespesas.filter((c) => categoryIds.includes(c.id)).map((c) => c.id)).toEqual([first, third]);
    // No alert is tied to an id by its text: every id of the request is read back.
    expect(emulator.requestLog().map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
      'DELETE /categorias/receitas-despesas 200',
      ...[first, second, third].map((id) => `GET /categorias/receitas-despesas/${id} ${id === second ? 404 : 200}`),
    ]);
  });

  it('deletes a change that carries nothing with its own DELETE', async () => {
    const { emulator, client } = await openEditedAccount(withRecords());
    const { lead } = batchOf(gruposProdutos, [groupIds[1] ?? 0]);
    expect(await gruposProdutos.execute(lead, writeContext(client, []))).toEqual({});
    expect(emulator.counters()).toEqual({ [`DELETE /grupos-produtos/${groupIds[1]}`]: 1 });
  });
});
