import { describe, expect, it } from 'vitest';
import { desiredUnit, openAccount, openEditedAccount, planned, readByIdentity, readScope, requireRecord, writeContext } from '../../test/kinds/adapter-support.js';
import type { EmulatorState } from '../emulator/index.js';
import { diffFields } from '../model/diff-fields.js';
import { categoriasReceitasDespesas, categoriasReceitasDespesas as adapter } from './categorias-receitas-despesas.js';

const kind = 'categoriasReceitasDespesas';
const listPath = 'GET /categorias/receitas-despesas';

function categoryNamed(snapshot: EmulatorState, descricao: string) {
  return snapshot.categoriasReceitasDespesas.find((c) => c.descricao === descricao);
}

describe('categoriasReceitasDespesas adapter: reading', () => {
  it('is wired to its definition', () => {
    expect(adapter.kind).toBe(kind);
    expect(adapter.definition).toBe(categoriasReceitasDespesas);
  });

  it('reads the default chart with one list request: path identities, parents, grupoDRE from idGrupoDre', async () => {
    const { emulator, client } = await openAccount();
    const records = await readByIdentity(adapter, client);
    expect(records.size).toBe(62);
    const rent = requireRecord(records, 'Despesas administrativas > Aluguel');
    expect(rent).toMatchObject({
      name: 'Aluguel',
      parent: 'Despesas administrativas',
      fields: { descricao: 'Aluguel', tipo: 1, categoriaPai: 'Despesas administrativas', grupoDRE: 7 },
      detailLoaded: false,
    });
    expect(rent.fields).not.toHaveProperty('situacao');
    expect(requireRecord(records, 'Custo dos produtos vendidos').fields).toEqual({ descricao: 'Custo dos produtos vendidos', tipo: 1, grupoDRE: 5 });
    expect([...records.values()].filter((r) => r.system).map((r) => [r.identity, r.fields.tipo, r.system])).toEqual([
      ['Transferências de entrada', 4, 'built-in'],
      ['Transferências de saída', 5, 'built-in'],
    ]);
    expect(emulator.counters()).toEqual({ [listPath]: 1 });
  });

  it('reads situacao (for drift and export) through a second walk of the list filtered on inactive, never through details', async () => {
    const { emulator, client } = await openEditedAccount((state) => {
      const water = state.categoriasReceitasDespesas.find((c) => c.descricao === 'Água');
      if (water) water.situacao = 0;
    });
    const desired = [desiredUnit(kind, 'Despesas administrativas > Aluguel', { descricao: 'Aluguel' })];
    const records = await readByIdentity(adapter, client, { ...readScope(desired), everyField: true });
    expect(requireRecord(records, 'Despesas administrativas > Água').fields.situacao).toBe(0);
    expect(requireRecord(records, 'Despesas administrativas > Aluguel').fields.situacao).toBe(1);
    expect(emulator.counters()).toEqual({ [listPath]: 2 });
    expect(emulator.requestLog().map((entry) => entry.query)).toEqual(['pagina=1&limite=100', 'situacao=2&pagina=1&limite=100']);
  });

  it('skips the situacao walk when not every field is wanted (a plan never compares it)', async () => {
    const { emulator, client } = await openAccount();
    const desired = [
      desiredUnit(kind, 'Despesas administrativas > Aluguel', { descricao: 'Aluguel', grupoDRE: 7 }),
      desiredUnit(kind, 'Despesas administrativas > Água', { descricao: 'Água', situacao: 0 }, { tool: { ensure: 'absent' } }),
    ];
    await adapter.readLive(client, readScope(desired, true));
    expect(emulator.counters()).toEqual({ [listPath]: 1 });
  });
});

describe('categoriasReceitasDespesas adapter: planning hooks', () => {
  it('does not accept situacao in manifests, since no endpoint writes it', () => {
    expect(Object.keys((adapter.definition?.recordSchema.properties ?? {}) as object)).not.toContain('situacao');
    expect(adapter.splitUpdate).toBeUndefined();
  });

  it('compares grupoDRE on roots only, since children take their parent group', () => {
    const canon = adapter.canonicalize ?? ((f: Record<string, unknown>) => f);
    expect(canon({ descricao: 'Aluguel', categoriaPai: 'Despesas administrativas', grupoDRE: 9 })).toEqual({ descricao: 'Aluguel', categoriaPai: 'Despesas administrativas' });
    expect(canon({ descricao: 'Marketing', grupoDRE: 7 })).toEqual({ descricao: 'Marketing', grupoDRE: 7 });
  });
});

describe('categoriasReceitasDespesas adapter: writing', () => {
  it('creates a root, then a child under it and one under a default category, resolving parents to ids', async () => {
    const { emulator, client } = await openAccount();
    const live = [...(await readByIdentity(adapter, client)).values()];
    const root = { descricao: 'Marketing digital', tipo: 1, grupoDRE: 7 };
    const { id: rootId } = await adapter.execute(planned(kind, 'create', 'Marketing digital', { desired: root }), writeContext(client, live));
    expect(rootId).toBeGreaterThan(0);
    const context = writeContext(client, live, undefined, { [`${kind}:Marketing digital`]: rootId ?? 0 });
    const ads = { descricao: 'Anúncios', tipo: 1, categoriaPai: 'Marketing digital' };
    const fees = { descricao: 'Taxas de cartório', tipo: 1, categoriaPai: 'Despesas administrativas' };
    await adapter.execute(planned(kind, 'create', 'Marketing digital > Anúncios', { desired: ads }), context);
    await adapter.execute(planned(kind, 'create', 'Despesas administrativas > Taxas de cartório', { desired: fees }), context);

    const snapshot = emulator.snapshot();
    expect(categoryNamed(snapshot, 'Marketing digital')).toMatchObject({ id: rootId, idCategoriaPai: 0, idGrupoDre: 7, situacao: 1 });
    expect(categoryNamed(snapshot, 'Anúncios')).toMatchObject({ idCategoriaPai: rootId, idGrupoDre: 7 });
    expect(categoryNamed(snapshot, 'Taxas de cartório')?.idCategoriaPai).toBe(categoryNamed(snapshot, 'Despesas administrativas')?.id);

    const reread = await readByIdentity(adapter, client);
    expect(diffFields(root, requireRecord(reread, 'Marketing digital').fields)).toEqual([]);
    expect(diffFields(ads, requireRecord(reread, 'Marketing digital > Anúncios').fields)).toEqual([]);
  });

  it('fails a create whose parent has no id with UNRESOLVED_REFERENCE, before sending anything', async () => {
    const { emulator, client } = await openAccount();
    const desired = { descricao: 'Filha', tipo: 1, categoriaPai: 'Inexistente' };
    await expect(adapter.execute(planned(kind, 'create', 'Inexistente > Filha', { desired }), writeContext(client, []))).rejects.toMatchObject({
      code: 'UNRESOLVED_REFERENCE',
    });
    expect(emulator.counters()).toEqual({});
  });

  it('renames and re-parents with a PUT of the whole record, keeping the fields the manifest omits', async () => {
    const { emulator, client } = await openAccount();
    const records = await readByIdentity(adapter, client);
    const rent = requireRecord(records, 'Despesas administrativas > Aluguel');
    const desired = { descricao: 'Aluguel da loja', categoriaPai: 'Despesas comerciais' };
    await adapter.execute(
      planned(kind, 'update', 'Despesas comerciais > Aluguel da loja', { liveId: rent.id, reason: 'rename', desired }),
      writeContext(client, [...records.values()], rent),
    );
    expect(emulator.snapshot().categoriasReceitasDespesas.find((c) => c.id === rent.id)).toEqual({
      id: rent.id,
      descricao: 'Aluguel da loja',
      tipo: 1,
      idCategoriaPai: requireRecord(records, 'Despesas comerciais').id,
      idGrupoDre: 7,
      situacao: 1,
    });
    expect(emulator.counters()).toEqual({ [listPath]: 1, [`PUT /categorias/receitas-despesas/${rent.id}`]: 1 });
  });

  it('writes grupoDRE of a root under its write name', async () => {
    const { emulator, client } = await openAccount();
    const records = await readByIdentity(adapter, client);
    const fee = requireRecord(records, 'Tarifa bancária');
    await adapter.execute(planned(kind, 'update', 'Tarifa bancária', { liveId: fee.id, desired: { descricao: 'Tarifa bancária', grupoDRE: 11 } }), writeContext(client, [], fee));
    expect(categoryNamed(emulator.snapshot(), 'Tarifa bancária')).toMatchObject({ idGrupoDre: 11, tipo: 1, idCategoriaPai: 0 });
  });

  it('sends the read-only cost-of-sales group back as read, so the API refuses rather than resets it', async () => {
    const { emulator, client } = await openAccount();
    const records = await readByIdentity(adapter, client);
    const cost = requireRecord(records, 'Custo dos produtos vendidos');
    const change = planned(kind, 'update', 'Custo dos produtos', { liveId: cost.id, desired: { descricao: 'Custo dos produtos' } });
    await expect(adapter.execute(change, writeContext(client, [], cost))).rejects.toMatchObject({ code: 'API_ERROR' });
    expect(categoryNamed(emulator.snapshot(), 'Custo dos produtos vendidos')?.idGrupoDre).toBe(5);
  });

  it('deletes a category and has no status operations', async () => {
    const { emulator, client } = await openAccount();
    const records = await readByIdentity(adapter, client);
    const internet = requireRecord(records, 'Despesas administrativas > Internet');
    await adapter.execute(planned(kind, 'delete', internet.identity, { liveId: internet.id, reason: 'tombstone' }), writeContext(client, [], internet));
    expect(categoryNamed(emulator.snapshot(), 'Internet')).toBeUndefined();
    expect(adapter.retire).toBe('none');
    await expect(adapter.execute(planned(kind, 'retire', internet.identity, { liveId: internet.id }), writeContext(client, []))).rejects.toMatchObject({
      code: 'INTERNAL',
    });
  });
});
