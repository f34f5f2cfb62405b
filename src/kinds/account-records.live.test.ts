// The records every account holds of its own, known without reading it (accountRecords): a fresh
// account holds each one, and each is recognised as the account's own when read, so the offline
// hints name records that are there and the planner treats them as it treats the default chart.
import { describe, expect, it } from 'vitest';
import { openAccount, readByIdentity } from '../../test/kinds/adapter-support.js';
import { categoriasReceitasDespesas } from './categorias-receitas-despesas.js';
import { modulosSituacoes } from './modulos-situacoes.js';
import { situacoes } from './situacoes.js';

describe('records every account holds', () => {
  it('the default chart: every identity is in a fresh account, untouched', async () => {
    const { client } = await openAccount();
    const records = await readByIdentity(categoriasReceitasDespesas, client);
    const known = categoriasReceitasDespesas.accountRecords ?? [];
    expect(known).toContain('Despesas administrativas > Água');
    expect(known.map((identity) => [identity, records.get(identity)?.accountDefault])).toEqual(known.map((identity) => [identity, 'pristine']));
  });

  it('the Vendas module and its built-in situations are in a fresh account', async () => {
    const { client, emulator } = await openAccount();
    const modules = await readByIdentity(modulosSituacoes, client);
    expect(modulosSituacoes.readOnly?.accountRecords?.filter((name) => !modules.has(name))).toEqual([]);
    const state = emulator.snapshot();
    const vendas = state.modulos.find((m) => m.nome === 'Vendas');
    const builtIns = state.situacoes.filter((s) => s.idModuloSistema === vendas?.id && s.idHerdado === 0).map((s) => `Vendas > ${s.nome}`);
    expect([...(situacoes.accountRecords ?? [])].sort()).toEqual(builtIns.sort());
  });
});
