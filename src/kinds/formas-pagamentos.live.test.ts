import { describe, expect, it } from 'vitest';
import { desiredUnit, openAccount, openEditedAccount, planned, readByIdentity, readScope, requireRecord, writeContext } from '../../test/kinds/adapter-support.js';
import type { EmulatorState } from '../emulator/index.js';
import { diffRecord } from './compare-records.js';
import { formasPagamentos, formasPagamentos as adapter } from './formas-pagamentos.js';

const kind = 'formasPagamentos';
/** Every record: a read with nothing to find reads nothing (live-helpers readListOrSearch). */
const everything = readScope([], true);

function methodNamed(snapshot: EmulatorState, descricao: string) {
  return snapshot.formasPagamentos.find((m) => m.descricao === descricao);
}

describe('formasPagamentos adapter: reading', () => {
  it('is wired to its definition', () => {
    expect(adapter.kind).toBe(kind);
    expect(adapter.definition).toBe(formasPagamentos);
  });

  it('reads a fresh account with one list request, fixa methods marked as system', async () => {
    const { emulator, client } = await openAccount();
    const records = await readByIdentity(adapter, client, everything);
    expect([...records.keys()]).toEqual(['Dinheiro', 'Sem pagamento', 'Cartão de crédito', 'Cartão de débito', 'Boleto bancário', 'Pix']);
    expect([...records.values()].filter((r) => r.system).map((r) => [r.identity, r.system])).toEqual([
      ['Dinheiro', 'fixa'],
      ['Sem pagamento', 'fixa'],
    ]);
    const cash = requireRecord(records, 'Dinheiro');
    expect(cash.fields).toEqual({ descricao: 'Dinheiro', tipoPagamento: 1, finalidade: 3, situacao: 1, padrao: 1, juros: 0, multa: 0 });
    expect(cash.detailLoaded).toBe(false);
    expect(emulator.counters()).toEqual({ 'GET /formas-pagamentos': 1 });
  });

  it('reads a detail only for records whose manifest sets a detail-only field', async () => {
    const { emulator, client } = await openAccount();
    const desired = [
      desiredUnit(kind, 'Pix', { descricao: 'Pix', tipoPagamento: 20, finalidade: 3, juros: 1 }),
      desiredUnit(kind, 'Boleto', { descricao: 'Boleto', destino: 1 }, { tool: { previousNames: ['Boleto bancário'] } }),
      desiredUnit(kind, 'Cartão de crédito', { descricao: 'Cartão de crédito', destino: 1 }, { tool: { ensure: 'absent' } }),
      desiredUnit(kind, 'Vale', { descricao: 'Vale', destino: 1 }),
    ];
    const records = await readByIdentity(adapter, client, readScope(desired));
    const boleto = requireRecord(records, 'Boleto bancário');
    expect(boleto.detailLoaded).toBe(true);
    expect(boleto.fields).toMatchObject({ destino: 1, condicao: '30', utilizaDiasUteis: false, taxas: { aliquota: 0, valor: 0, prazo: 0 } });
    expect(requireRecord(records, 'Pix').detailLoaded).toBe(false);
    expect(emulator.counters()).toEqual({ 'GET /formas-pagamentos': 1, [`GET /formas-pagamentos/${boleto.id}`]: 1 });
  });

  it('reads numbers and booleans the API sends as strings as numbers and booleans', async () => {
    const { client } = await openEditedAccount((state) => {
      const pix = state.formasPagamentos.find((m) => m.descricao === 'Pix');
      if (pix) Object.assign(pix, { tipoPagamento: '20', juros: '1.5', situacao: '1', fixa: 'true', utilizaDiasUteis: 'true', taxas: { aliquota: '0', valor: 0, prazo: '2' } });
    });
    const desired = [desiredUnit(kind, 'Pix', { descricao: 'Pix', destino: 3 })];
    const pix = requireRecord(await readByIdentity(adapter, client, readScope(desired)), 'Pix');
    expect(pix.fields).toMatchObject({ tipoPagamento: 20, juros: 1.5, situacao: 1, utilizaDiasUteis: true, taxas: { aliquota: 0, valor: 0, prazo: 2 } });
    expect(pix.system).toBe('fixa');
    expect(pix.raw.tipoPagamento).toBe('20');
  });

  it('reads no detail at all when no desired unit needs one, even when every record is needed', async () => {
    const { emulator, client } = await openAccount();
    await adapter.readLive(client, readScope([desiredUnit(kind, 'Pix', { descricao: 'Pix', juros: 2 })], true));
    expect(emulator.counters()).toEqual({ 'GET /formas-pagamentos': 1 });
  });
});

describe('formasPagamentos adapter: planning hooks', () => {
  it('sends situacao and padrao to their own PATCH calls and blocks taking the default away', () => {
    const juros = { path: 'juros', before: 0, after: 2 };
    const situacao = { path: 'situacao', before: 1, after: 0 };
    expect(adapter.splitUpdate?.([juros, situacao, { path: 'padrao', before: 0, after: 2 }])).toEqual([
      { action: 'update', fields: [juros] },
      { action: 'set-status', fields: [situacao] },
      { action: 'set-default', fields: [{ path: 'padrao', before: 0, after: 2 }] },
    ]);
    expect(adapter.splitUpdate?.([{ path: 'padrao', before: 1, after: 0 }])).toEqual([{ action: 'blocked', fields: [{ path: 'padrao', before: 1, after: 0 }] }]);
  });

  it('compares the acquirer CNPJ by its digits, and money at cents', () => {
    const desired = { juros: 1.5, taxas: { valor: 2.49 }, dadosCartao: { bandeira: 1, cnpjCredenciadora: '12.345.678/0001-95' } };
    const stored = { juros: 1.5000000001, taxas: { valor: 2.4900000095367432 }, dadosCartao: { bandeira: 1, cnpjCredenciadora: '12345678000195' } };
    expect(diffRecord(adapter, desired, stored)).toEqual([]);
    expect(diffRecord(adapter, desired, { ...stored, juros: 1.51 })).toEqual([{ path: 'juros', before: 1.51, after: 1.5 }]);
  });
});

describe('formasPagamentos adapter: writing', () => {
  it('creates a method, gives it the default through the PATCH, and reads back without drift', async () => {
    const { emulator, client } = await openAccount();
    const desired = {
      descricao: 'Cartão Elo',
      tipoPagamento: 3,
      finalidade: 2,
      destino: 1,
      padrao: 1,
      condicao: '1x',
      taxas: { aliquota: 2.5, prazo: 30 },
      dadosCartao: { bandeira: 6, tipo: 2, cnpjCredenciadora: '12.345.678/0001-95' },
    };
    const { id } = await adapter.execute(planned(kind, 'create', 'Cartão Elo', { desired }), writeContext(client, []));
    const snapshot = emulator.snapshot();
    expect(methodNamed(snapshot, 'Cartão Elo')).toMatchObject({ id, padrao: 1, dadosCartao: { bandeira: 6, cnpjCredenciadora: '12345678000195' } });
    expect(methodNamed(snapshot, 'Dinheiro')?.padrao).toBe(0);
    expect(emulator.counters()).toEqual({ 'POST /formas-pagamentos': 1, [`PATCH /formas-pagamentos/${id}/padrao`]: 1 });

    const unit = desiredUnit(kind, 'Cartão Elo', desired);
    const live = requireRecord(await readByIdentity(adapter, client, readScope([unit])), 'Cartão Elo');
    expect(diffRecord(adapter, unit.fields, live.fields)).toEqual([]);
  });

  it('updates with a PUT of the whole merged record, reading the detail first when the plan did not', async () => {
    const { emulator, client } = await openAccount();
    const records = await readByIdentity(adapter, client, everything);
    const boleto = requireRecord(records, 'Boleto bancário');
    const desired = { descricao: 'Boleto', tipoPagamento: 15, finalidade: 3, juros: 2 };
    await adapter.execute(planned(kind, 'update', 'Boleto', { liveId: boleto.id, desired }), writeContext(client, [...records.values()], boleto));
    expect(emulator.snapshot().formasPagamentos.find((m) => m.id === boleto.id)).toEqual({
      id: boleto.id,
      descricao: 'Boleto',
      tipoPagamento: 15,
      finalidade: 3,
      juros: 2,
      multa: 0,
      situacao: 1,
      fixa: false,
      padrao: 0,
      destino: 1,
      condicao: '30',
      utilizaDiasUteis: false,
      taxas: { aliquota: 0, valor: 0, prazo: 0 },
    });
    expect(emulator.counters()[`GET /formas-pagamentos/${boleto.id}`]).toBe(1);
    expect(emulator.counters()[`PUT /formas-pagamentos/${boleto.id}`]).toBe(1);
  });

  it('writes the values it read leniently back with their proper types', async () => {
    const { emulator, client } = await openEditedAccount((state) => {
      const pix = state.formasPagamentos.find((m) => m.descricao === 'Pix');
      if (pix) Object.assign(pix, { tipoPagamento: '20', destino: '3', utilizaDiasUteis: 'false', taxas: { aliquota: '0', valor: 0, prazo: '2' } });
    });
    const pix = requireRecord(await readByIdentity(adapter, client, everything), 'Pix');
    await adapter.execute(planned(kind, 'update', 'Pix', { liveId: pix.id, desired: { descricao: 'Pix', juros: 1 } }), writeContext(client, [], pix));
    expect(methodNamed(emulator.snapshot(), 'Pix')).toMatchObject({ tipoPagamento: 20, destino: 3, utilizaDiasUteis: false, juros: 1, taxas: { aliquota: 0, valor: 0, prazo: 2 } });
  });

  it('sets the status, the default and retires through the PATCH endpoints', async () => {
    const { emulator, client } = await openAccount();
    const records = await readByIdentity(adapter, client, everything);
    const pix = requireRecord(records, 'Pix');
    const boleto = requireRecord(records, 'Boleto bancário');
    const context = writeContext(client, [...records.values()]);
    await adapter.execute(
      planned(kind, 'set-default', 'Pix', { liveId: pix.id, fields: [{ path: 'padrao', before: 0, after: 2 }], desired: { descricao: 'Pix', padrao: 2 } }),
      { ...context, live: pix },
    );
    await adapter.execute(
      planned(kind, 'set-status', 'Boleto bancário', { liveId: boleto.id, fields: [{ path: 'situacao', before: 1, after: 0 }], desired: { situacao: 0 } }),
      { ...context, live: boleto },
    );
    const snapshot = emulator.snapshot();
    expect(methodNamed(snapshot, 'Pix')?.padrao).toBe(2);
    expect(methodNamed(snapshot, 'Boleto bancário')?.situacao).toBe(0);

    const card = requireRecord(records, 'Cartão de débito');
    expect(adapter.retirementFields?.(card)).toEqual([{ path: 'situacao', before: 1, after: 0 }]);
    await adapter.execute(planned(kind, 'retire', 'Cartão de débito', { liveId: card.id, reason: 'prune' }), { ...context, live: card });
    const reread = await readByIdentity(adapter, client, everything);
    expect(adapter.isRetired?.(requireRecord(reread, 'Cartão de débito'))).toBe(true);
    expect(adapter.isRetired?.(requireRecord(reread, 'Pix'))).toBe(false);
  });

  it('activates an inactive method before making it the default when the plan activates it too', async () => {
    const { emulator, client } = await openAccount();
    let records = await readByIdentity(adapter, client, everything);
    const pix = requireRecord(records, 'Pix');
    await adapter.execute(planned(kind, 'retire', 'Pix', { liveId: pix.id }), { ...writeContext(client, []), live: pix });
    records = await readByIdentity(adapter, client, everything);
    const inactive = requireRecord(records, 'Pix');
    await adapter.execute(
      planned(kind, 'set-default', 'Pix', { liveId: pix.id, fields: [{ path: 'padrao', before: 0, after: 1 }], desired: { situacao: 1, padrao: 1 } }),
      { ...writeContext(client, []), live: inactive },
    );
    expect(methodNamed(emulator.snapshot(), 'Pix')).toMatchObject({ situacao: 1, padrao: 1 });
  });

  it('deletes a method', async () => {
    const { emulator, client } = await openAccount();
    const records = await readByIdentity(adapter, client, everything);
    const boleto = requireRecord(records, 'Boleto bancário');
    await adapter.execute(planned(kind, 'delete', 'Boleto bancário', { liveId: boleto.id, reason: 'tombstone' }), { ...writeContext(client, []), live: boleto });
    expect(methodNamed(emulator.snapshot(), 'Boleto bancário')).toBeUndefined();
    expect(emulator.counters()[`DELETE /formas-pagamentos/${boleto.id}`]).toBe(1);
  });
});
