import { describe, expect, it, onTestFinished } from 'vitest';
import { desiredUnit, openAccount, openEditedAccount, planned, readScope, writeContext } from '../../test/kinds/adapter-support.js';
import { createApiClient, createStaticTokenProvider } from '../api/index.js';
import type { ApiClient } from '../api/index.js';
import { diffRecord } from './compare-records.js';
import { configuracoesNfse } from './configuracoes-nfse.js';
import type { FieldChange } from '../model/plan.js';
import type { LiveRecord } from '../model/live.js';

const adapter = configuracoesNfse;
const secretPaths = new Set(['adicionais.cadastroPrefeitura.senha']);

const maquiagem = { CNAE: '9602-5/01', descricaoServico: 'Maquiagem', codigo: { listaServico: '0601' }, percentualISS: 2, padrao: true };
const limpeza = { CNAE: '9602-5/02', descricaoServico: 'Limpeza de pele', codigo: { listaServico: '0602' }, percentualISS: 2 };

const settings = {
  ISS: { reter: true, tributos: [maquiagem, limpeza] },
  envioEmail: { remetente: 'Loja Nova', padrao: { copia: 'fiscal@loja.example' } },
  adicionais: { tipoEmissao: 'N', cadastroPrefeitura: { login: '11222333000181', senha: 's3gredo' } },
};

async function readSettings(client: ApiClient): Promise<LiveRecord> {
  const [record] = await adapter.readLive(client, readScope([desiredUnit('configuracoesNfse', 'configuracoesNfse', {})]));
  if (!record) throw new Error('no settings read');
  return record;
}

/** Writes `desired` over the settings as read, the way apply runs an update. */
async function applySettings(client: ApiClient, desired: Record<string, unknown>): Promise<void> {
  const live = await readSettings(client);
  await adapter.execute(planned('configuracoesNfse', 'update', 'configuracoesNfse', { liveId: live.id, desired }), writeContext(client, [live], live));
}

function remaining(desired: Record<string, unknown>, live: LiveRecord): FieldChange[] {
  return diffRecord(adapter, desired, live.fields, secretPaths);
}

describe('configuracoesNfse.readLive', () => {
  it('reads the singleton with one GET, in the manifest shape without server ids', async () => {
    const { emulator, client } = await openAccount();
    const record = await readSettings(client);
    expect(emulator.counters()).toEqual({ 'GET /nfse/configuracoes': 1 });
    expect(record).toMatchObject({ kind: 'configuracoesNfse', identity: 'configuracoesNfse', name: '', detailLoaded: true });
    expect(record.system).toBeUndefined();
    expect(record.fields).toMatchObject({ ISS: { tributos: [], zerar: false }, adicionais: { tipoEmissao: 'T' } });
    expect(record.fields.controle).toEqual({ numeracaoRPS: { cnpjEmitente: '', numero: 1, serie: 1 } });
    expect(record.raw).toEqual(emulator.snapshot().nfseConfiguracoes);
  });

  it('reads loosely typed values with the types the manifest gives them', async () => {
    const { client } = await openEditedAccount((state) => {
      const loose = state.nfseConfiguracoes as unknown as Record<string, Record<string, unknown>>;
      loose.basicas = { emissorPadrao: '2', naturezaOperacao: 3 };
      loose.ISS = { ...loose.ISS, zerar: 'true', tributos: [{ ...limpeza, id: '77', percentualISS: '2.5', padrao: 'false' }] };
    });
    const record = await readSettings(client);
    expect(record.fields.basicas).toEqual({ emissorPadrao: 2, naturezaOperacao: 3 });
    expect(record.fields.ISS).toMatchObject({ zerar: true, tributos: [{ ...limpeza, percentualISS: 2.5, padrao: false }] });
  });

  it('keeps the city-hall password out of error texts once read', async () => {
    const { emulator, client } = await openAccount();
    await applySettings(client, settings);
    const reader = createApiClient({ baseUrl: emulator.baseUrl, credentials: createStaticTokenProvider(emulator.token), rate: Infinity });
    onTestFinished(() => reader.close());
    expect(reader.redact('the password s3gredo was refused')).toContain('s3gredo');
    await readSettings(reader);
    expect(reader.redact('the password s3gredo was refused')).not.toContain('s3gredo');
  });
});

describe('configuracoesNfse.execute', () => {
  it('puts the whole merged object: sections the manifest leaves out keep their values', async () => {
    const { emulator, client } = await openAccount();
    await applySettings(client, { impostos: { IR: { percentual: 1.5 } }, adicionais: { CFOP: '5933' } });
    emulator.clearLog();
    await applySettings(client, settings);
    expect(emulator.counters()).toEqual({ 'GET /nfse/configuracoes': 1, 'PUT /nfse/configuracoes': 1 });

    const stored = emulator.snapshot().nfseConfiguracoes;
    expect(stored.impostos.IR.percentual).toBe(1.5);
    expect(stored.adicionais).toMatchObject({ CFOP: '5933', tipoEmissao: 'N', cadastroPrefeitura: { login: '11222333000181', senha: 's3gredo' } });
    expect(stored.envioEmail).toMatchObject({ remetente: 'Loja Nova', padrao: { copia: 'fiscal@loja.example', resposta: '' } });
    expect(stored.ISS.tributos.map((t) => [t.CNAE, t.padrao])).toEqual([
      ['9602-5/01', true],
      ['9602-5/02', false],
    ]);
    expect(remaining(settings, await readSettings(client))).toEqual([]);
  });

  it('updates a tax entry in place by CNAE + listaServico, keeping its id', async () => {
    const { emulator, client } = await openAccount();
    await applySettings(client, settings);
    const before = emulator.snapshot().nfseConfiguracoes.ISS.tributos;

    const desired = { ISS: { tributos: [{ ...limpeza, percentualISS: 3 }, { CNAE: maquiagem.CNAE, descricaoServico: 'Maquiagem social', codigo: { listaServico: '0601' } }] } };
    const live = await readSettings(client);
    expect(remaining(desired, live)).toEqual([
      { path: 'ISS.tributos.9602501 + 0601.descricaoServico', before: 'Maquiagem', after: 'Maquiagem social' },
      { path: 'ISS.tributos.9602502 + 0602.percentualISS', before: 2, after: 3 },
    ]);
    await applySettings(client, desired);

    const after = emulator.snapshot().nfseConfiguracoes.ISS.tributos;
    const idOf = (list: typeof after, cnae: string) => list.find((t) => t.CNAE === cnae)?.id;
    expect(idOf(after, maquiagem.CNAE)).toBe(idOf(before, maquiagem.CNAE));
    expect(idOf(after, limpeza.CNAE)).toBe(idOf(before, limpeza.CNAE));
    expect(after.find((t) => t.CNAE === maquiagem.CNAE)).toMatchObject({ descricaoServico: 'Maquiagem social', percentualISS: 2, padrao: true });
    expect(remaining(desired, await readSettings(client))).toEqual([]);
  });

  it('moves the default to the declared entry and drops entries the manifest no longer lists', async () => {
    const { emulator, client } = await openAccount();
    await applySettings(client, settings);
    const desired = { ISS: { tributos: [{ ...limpeza, padrao: true }] } };
    const live = await readSettings(client);
    expect(remaining(desired, live)).toEqual([
      { path: 'ISS.tributos.9602502 + 0602.padrao', before: false, after: true },
      { path: 'ISS.tributos (CNAE + listaServico)', before: ['9602501 + 0601', '9602502 + 0602'], after: ['9602502 + 0602'] },
    ]);
    await applySettings(client, desired);
    expect(emulator.snapshot().nfseConfiguracoes.ISS.tributos.map((t) => [t.CNAE, t.padrao])).toEqual([['9602-5/02', true]]);
    expect(remaining(desired, await readSettings(client))).toEqual([]);
  });

  it('treats the settings as never deleted', () => {
    expect(adapter.canDelete).toBe(false);
    expect(adapter.retire).toBe('none');
  });
});

describe('configuracoesNfse comparison', () => {
  it('ignores tax entry ids and order', () => {
    const live = { ISS: { tributos: [{ ...limpeza, id: 2 }, { ...maquiagem, id: 1 }] } };
    const desired = { ISS: { tributos: [maquiagem, limpeza] } };
    expect(diffRecord(adapter, desired, live)).toEqual([]);
  });

  it('compares the password but marks it sensitive', async () => {
    const { client } = await openAccount();
    await applySettings(client, settings);
    const desired = { adicionais: { cadastroPrefeitura: { senha: 'outra' } } };
    expect(remaining(desired, await readSettings(client))).toEqual([
      { path: 'adicionais.cadastroPrefeitura.senha', before: undefined, after: undefined, sensitive: true },
    ]);
    expect(remaining({ adicionais: { cadastroPrefeitura: { senha: 's3gredo' } } }, await readSettings(client))).toEqual([]);
  });

  it('writes loosely typed values read from the account with the types the API declares', async () => {
    const { emulator, client } = await openAccount();
    await applySettings(client, { ISS: { tributos: [limpeza] } });
    const id = emulator.snapshot().nfseConfiguracoes.ISS.tributos[0]?.id;
    const record = await readSettings(client);
    // A record as an account answering "true" and "2" for booleans and numbers would give it.
    const looseEntry = { ...limpeza, id: String(id), percentualISS: '2.5', padrao: 'false' };
    const raw = { ...record.raw, basicas: { emissorPadrao: '2', naturezaOperacao: 3 }, ISS: { zerar: 'true', tributos: [looseEntry] } };
    const loose: LiveRecord = { ...record, raw };
    await adapter.execute(planned('configuracoesNfse', 'update', 'configuracoesNfse', { liveId: 0, desired: { adicionais: { AEDF: '1' } } }), writeContext(client, [loose], loose));
    const stored = emulator.snapshot().nfseConfiguracoes;
    expect(stored.basicas).toEqual({ emissorPadrao: 2, naturezaOperacao: 3 });
    expect(stored.ISS.zerar).toBe(true);
    expect(stored.ISS.tributos).toEqual([{ ...limpeza, id, percentualISS: 2.5, padrao: false, indicadorOperacao: '', codigo: { listaServico: '0602', tributacao: '' } }]);
    expect(stored.adicionais.AEDF).toBe('1');
  });
});
