import { describe, expect, it, onTestFinished } from 'vitest';
import { desiredUnit, openAccount, openEditedAccount, planned, readByIdentity, readScope, requireRecord, writeContext } from '../../test/kinds/adapter-support.js';
import { createApiClient, createStaticTokenProvider } from '../api/index.js';
import { diffRecord } from './compare-records.js';
import { modulosSituacoes } from './modulos-situacoes.js';
import { situacoes } from './situacoes.js';
import type { ApiClient } from '../api/index.js';
import type { DesiredUnit } from '../model/desired.js';
import type { LiveRecord } from '../model/live.js';

const vendas = 98310;
const adapter = situacoes;

function situation(identity: string, fields: Record<string, unknown>, tool: Partial<DesiredUnit['tool']> = {}): DesiredUnit {
  return desiredUnit('situacoes', identity, fields, { tool });
}

/** What a re-plan would still find different between a desired unit and the record read back. */
function remainingDiff(unit: DesiredUnit, record: LiveRecord | undefined): unknown[] {
  return diffRecord(adapter, unit.fields, record?.fields ?? {});
}

const retirada = situation('Vendas > Aguardando retirada', {
  modulo: 'Vendas',
  nome: 'Aguardando retirada',
  herdado: 'Vendas > Em andamento',
  cor: '#AABBCC',
});

/** The situations the units name, with the modules (a read-only kind the plan reads first and writes resolve ids from). */
async function readWithModules(client: ApiClient, units: readonly DesiredUnit[]): Promise<LiveRecord[]> {
  const modules = await modulosSituacoes.readLive(client, readScope());
  return [...modules, ...(await adapter.readLive(client, { ...readScope([...units]), earlier: new Map([['modulosSituacoes', modules]]) }))];
}

describe('situacoes.readLive', () => {
  it('reads only the modules the desired units name: the module list and one listing', async () => {
    const { emulator, client } = await openAccount();
    const records = await readByIdentity(adapter, client, readScope([retirada]));

    expect(emulator.counters()).toEqual({ 'GET /situacoes/modulos': 1, [`GET /situacoes/modulos/${vendas}`]: 1 });
    expect([...records.keys()]).toEqual([
      'Vendas > Em aberto',
      'Vendas > Atendido',
      'Vendas > Cancelado',
      'Vendas > Em andamento',
      'Vendas > Venda Agenciada',
      'Vendas > Em digitação',
      'Vendas > Verificado',
    ]);
    const emAberto = requireRecord(records, 'Vendas > Em aberto');
    expect(emAberto).toMatchObject({ id: 6, name: 'Em aberto', system: 'built-in', detailLoaded: true });
    expect(emAberto.fields).toEqual({ modulo: 'Vendas', nome: 'Em aberto', cor: '#E9DC40' });
    expect(emAberto.raw).toEqual({ id: 6, nome: 'Em aberto', idHerdado: 0, cor: '#E9DC40', idModuloSistema: vendas });
  });

  it('reads every module when all records are needed, and nothing when no unit names a module', async () => {
    const { emulator, client } = await openAccount();
    expect(await adapter.readLive(client, readScope())).toEqual([]);
    expect(emulator.counters()).toEqual({});

    const records = await readByIdentity(adapter, client, readScope([], true));
    expect(records.size).toBe(12);
    expect(requireRecord(records, 'Compras > Em aberto').id).toBe(28);
    expect(requireRecord(records, 'NotasFiscais > Autorizada').system).toBe('built-in');
    expect(emulator.counters()).toEqual({
      'GET /situacoes/modulos': 1,
      'GET /situacoes/modulos/98310': 1,
      'GET /situacoes/modulos/98311': 1,
      'GET /situacoes/modulos/98312': 1,
    });
  });

  it('finds the module of a unit without fields (a removal re-checked from a saved plan) in its identity', async () => {
    const { emulator, client } = await openAccount();
    const records = await adapter.readLive(client, readScope([situation('Compras > Conferido', {})]));
    expect(records.map((r) => r.identity)).toEqual(['Compras > Em aberto', 'Compras > Atendido', 'Compras > Cancelado']);
    expect(emulator.counters()).toEqual({ 'GET /situacoes/modulos': 1, 'GET /situacoes/modulos/98311': 1 });
  });

  it('reads a base situation id sent as a string', async () => {
    const { client } = await openEditedAccount((state) => {
      state.situacoes.push({ id: 500, idModuloSistema: vendas, nome: 'Conferido', idHerdado: '9' as unknown as number, cor: '#abcdef' });
    });
    const records = await readByIdentity(adapter, client, readScope([retirada]));
    expect(requireRecord(records, 'Vendas > Conferido').fields).toEqual({ modulo: 'Vendas', nome: 'Conferido', herdado: 'Vendas > Atendido', cor: '#abcdef' });
  });

  it('names the base situation of a custom one by its identity, and never asks for a detail', async () => {
    const { emulator, client } = await openAccount();
    const before = await readWithModules(client, [retirada]);
    await adapter.execute(planned('situacoes', 'create', retirada.identity, { desired: retirada.fields }), writeContext(client, before));

    const records = await readByIdentity(adapter, client, readScope([retirada]));
    const created = requireRecord(records, retirada.identity);
    expect(created.system).toBeUndefined();
    expect(created.fields).toEqual({ modulo: 'Vendas', nome: 'Aguardando retirada', herdado: 'Vendas > Em andamento', cor: '#aabbcc' });
    expect(remainingDiff(retirada, created)).toEqual([]);
    expect(Object.keys(emulator.counters()).filter((key) => /^GET \/situacoes\/\d+$/.test(key))).toEqual([]);
  });
});

describe('situacoes.execute', () => {
  it('creates with the module id learned while reading and the base situation id', async () => {
    const { emulator, client } = await openAccount();
    const read = await readWithModules(client, [retirada]);
    const { id } = await adapter.execute(planned('situacoes', 'create', retirada.identity, { desired: retirada.fields }), writeContext(client, read));

    const stored = emulator.snapshot().situacoes.find((s) => s.id === id);
    expect(stored).toEqual({ id, idModuloSistema: vendas, nome: 'Aguardando retirada', idHerdado: 15, cor: '#aabbcc' });
    expect(emulator.counters()['GET /situacoes/modulos']).toBe(1);
  });

  it('creates through a client that has read nothing: the module id comes from the plan\'s read, not a request', async () => {
    const { emulator, client } = await openAccount();
    const read = await readWithModules(client, [retirada]);
    const freshClient = createApiClient({ baseUrl: emulator.baseUrl, credentials: createStaticTokenProvider(emulator.token), rate: Infinity });
    onTestFinished(() => freshClient.close());
    emulator.clearLog();
    await adapter.execute(planned('situacoes', 'create', retirada.identity, { desired: retirada.fields }), writeContext(freshClient, read));
    expect(emulator.counters()).toEqual({ 'POST /situacoes': 1 });
  });

  it('updates with the whole record: a rename keeps the colour and the base it does not mention', async () => {
    const { emulator, client } = await openAccount();
    const read = await readWithModules(client, [retirada]);
    const { id } = await adapter.execute(planned('situacoes', 'create', retirada.identity, { desired: retirada.fields }), writeContext(client, read));
    const records = await adapter.readLive(client, readScope([retirada]));
    const live = records.find((r) => r.id === id);

    const renamed = situation('Vendas > Pronto para retirada', { modulo: 'Vendas', nome: 'Pronto para retirada' }, { previousNames: ['Aguardando retirada'] });
    emulator.clearLog();
    await adapter.execute(planned('situacoes', 'update', renamed.identity, { liveId: id, desired: renamed.fields }), writeContext(client, records, live));

    expect(emulator.snapshot().situacoes.find((s) => s.id === id)).toEqual({ id, idModuloSistema: vendas, nome: 'Pronto para retirada', idHerdado: 15, cor: '#aabbcc' });
    expect(emulator.counters()).toEqual({ [`PUT /situacoes/${id}`]: 1 });

    const rebased = situation('Vendas > Pronto para retirada', { modulo: 'Vendas', nome: 'Pronto para retirada', herdado: 'Vendas > Atendido', cor: '#123ABC' });
    const again = await adapter.readLive(client, readScope([rebased]));
    await adapter.execute(planned('situacoes', 'update', rebased.identity, { liveId: id, desired: rebased.fields }), writeContext(client, again, again.find((r) => r.id === id)));
    const after = await readByIdentity(adapter, client, readScope([rebased]));
    expect(emulator.snapshot().situacoes.find((s) => s.id === id)?.idHerdado).toBe(9);
    expect(remainingDiff(rebased, after.get(rebased.identity))).toEqual([]);
  });

  it('deletes a custom situation', async () => {
    const { emulator, client } = await openAccount();
    const read = await readWithModules(client, [retirada]);
    const { id } = await adapter.execute(planned('situacoes', 'create', retirada.identity, { desired: retirada.fields }), writeContext(client, read));
    await adapter.execute(planned('situacoes', 'delete', retirada.identity, { liveId: id }), writeContext(client, read));
    expect(emulator.snapshot().situacoes.some((s) => s.id === id)).toBe(false);
  });

  it('refuses a module the account lacks and a base situation it cannot resolve, before writing', async () => {
    const { emulator, client } = await openAccount();
    const read = await readWithModules(client, [retirada]);
    const noModule = { ...retirada.fields, modulo: 'Estoque' };
    await expect(adapter.execute(planned('situacoes', 'create', 'Estoque > Aguardando retirada', { desired: noModule }), writeContext(client, read))).rejects.toMatchObject({
      code: 'UNRESOLVED_REFERENCE',
    });
    const noBase = { ...retirada.fields, herdado: 'Vendas > Inexistente' };
    await expect(adapter.execute(planned('situacoes', 'create', retirada.identity, { desired: noBase }), writeContext(client, read))).rejects.toMatchObject({
      code: 'UNRESOLVED_REFERENCE',
    });
    expect(emulator.counters()['POST /situacoes']).toBeUndefined();
  });
});

describe('situacoes comparison', () => {
  it('compares colours without regard to case and keeps a situation in its module', () => {
    expect(diffRecord(adapter, { nome: 'X', cor: '#AbCdEf' }, { nome: 'X', cor: '#abcdef' })).toEqual([]);
    expect(adapter.immutableFields).toEqual(['modulo']);
    expect(adapter.canDelete).toBe(true);
  });
});
