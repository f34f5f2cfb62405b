// The kinds' export hooks: which records are the account's untouched defaults (the chart of
// categories, read from a fresh account over HTTP), and what each kind leaves out of an export.
import { describe, expect, it } from 'vitest';
import { createApiClient, createStaticTokenProvider } from '../../src/api/index.js';
import { registry } from '../../src/kinds/registry.js';
import { accountDefaultOf } from '../../src/kinds/categorias-receitas-despesas.js';
import { openTestAccount } from './support.js';
import type { KindAdapter } from '../../src/kinds/kind.js';
import type { LiveRecord } from '../../src/model/live.js';
import type { UnitKind } from '../../src/model/kinds.js';

const adapter = (kind: UnitKind): KindAdapter => registry.units.find((a) => a.kind === kind) as KindAdapter;

function record(kind: UnitKind, identity: string, fields: Record<string, unknown>): LiveRecord {
  return { kind, id: 1, identity, name: identity.split(' > ').at(-1) ?? identity, fields, raw: {}, detailLoaded: true };
}

describe('the default chart of income and expense categories', () => {
  it('knows the untouched chart, and a category of it that someone changed is still the account\'s own, but modified', () => {
    expect(accountDefaultOf('Despesas comerciais', { tipo: 1, grupoDRE: 7 })).toBe('pristine');
    expect(accountDefaultOf('Despesas comerciais > Brindes', { tipo: 1, grupoDRE: 7, categoriaPai: 'Despesas comerciais' })).toBe('pristine');
    expect(accountDefaultOf('Despesas comerciais', { tipo: 1, grupoDRE: 9 })).toBe('modified');
    expect(accountDefaultOf('Despesas comerciais', { tipo: 3, grupoDRE: 7 })).toBe('modified');
    expect(accountDefaultOf('Despesas comerciais', { tipo: 1, grupoDRE: 7, situacao: 0 })).toBe('modified');
    expect(accountDefaultOf('Despesas administrativas > Brindes', { tipo: 1 })).toBeUndefined();
    expect(accountDefaultOf('Despesas comerciais > Brindes > Canetas', { tipo: 1 })).toBeUndefined();
    expect(accountDefaultOf('Brindes', { tipo: 1, grupoDRE: 7 })).toBeUndefined();
  });

  it('covers every category of a fresh account but the system transfers', async () => {
    const account = await openTestAccount();
    const client = createApiClient({ baseUrl: account.emulator.baseUrl, credentials: createStaticTokenProvider(account.emulator.token), rate: Infinity });
    try {
      const categories = adapter('categoriasReceitasDespesas');
      const records = await categories.readLive(client, { desired: [], all: true, earlier: new Map(), everyField: true });
      expect(records).toHaveLength(62);
      expect(records.filter((r) => !r.system && r.accountDefault !== 'pristine')).toEqual([]);
    } finally {
      await client.close();
      await account.close();
    }
  });
});

describe('exportFields', () => {
  it('payment methods: no create defaults, card data only on card types', () => {
    const exportFields = adapter('formasPagamentos').exportFields;
    const card = { bandeira: 1, tipo: 2, cnpjCredenciadora: '', autoLiquidacao: 0 };
    const common = { descricao: 'X', finalidade: 2, destino: 1, situacao: 1, padrao: 0, juros: 0, multa: 0, condicao: '', utilizaDiasUteis: false, taxas: { aliquota: 0, valor: 0, prazo: 0 } };
    expect(exportFields?.(record('formasPagamentos', 'X', { ...common, tipoPagamento: 3, dadosCartao: card }))).toEqual({
      descricao: 'X',
      tipoPagamento: 3,
      finalidade: 2,
      destino: 1,
      dadosCartao: { bandeira: 1, tipo: 2 },
    });
    expect(exportFields?.(record('formasPagamentos', 'X', { ...common, tipoPagamento: 17, situacao: 0, dadosCartao: card, taxas: { aliquota: 0, valor: 1, prazo: 0 } }))).toEqual({
      descricao: 'X',
      tipoPagamento: 17,
      finalidade: 2,
      destino: 1,
      situacao: 0,
      taxas: { valor: 1 },
    });
  });

  it('income and expense categories: the DRE group only on roots and when not the default, never situacao (no manifest can hold it)', () => {
    const exportFields = adapter('categoriasReceitasDespesas').exportFields;
    expect(exportFields?.(record('categoriasReceitasDespesas', 'A', { descricao: 'A', tipo: 1, grupoDRE: 1, situacao: 1 }))).toEqual({ descricao: 'A', tipo: 1 });
    expect(exportFields?.(record('categoriasReceitasDespesas', 'A', { descricao: 'A', tipo: 1, grupoDRE: 9, situacao: 0 }))).toEqual({ descricao: 'A', tipo: 1, grupoDRE: 9 });
    expect(exportFields?.(record('categoriasReceitasDespesas', 'A > B', { descricao: 'B', tipo: 1, grupoDRE: 9, categoriaPai: 'A' }))).toEqual({ descricao: 'B', tipo: 1, categoriaPai: 'A' });
  });

  it('logistics services: no empty alias list, ativo only when false', () => {
    const exportFields = adapter('logisticasServicos').exportFields;
    expect(exportFields?.(record('logisticasServicos', 'L > A', { codigo: 'A', aliases: [], ativo: true, freteItem: 0 }))).toEqual({ codigo: 'A', freteItem: 0 });
    expect(exportFields?.(record('logisticasServicos', 'L > A', { codigo: 'A', aliases: ['a'], ativo: false }))).toEqual({ codigo: 'A', aliases: ['a'], ativo: false });
  });

  it('NFS-e settings: no counters, nothing blank, tax entries keep what identifies them', () => {
    const exportFields = adapter('configuracoesNfse').exportFields;
    const settings = {
      basicas: { emissorPadrao: 0, naturezaOperacao: 0 },
      ISS: {
        zerar: false,
        reter: true,
        descontar: false,
        tributos: [{ CNAE: '82.99', descricaoServico: '', codigo: { listaServico: '0107', tributacao: '' }, percentualISS: 0, padrao: false, indicadorOperacao: '' }],
      },
      controle: { numeracaoRPS: { cnpjEmitente: '', numero: 42, serie: 1 } },
      adicionais: { proximoNumeroLote: 7, tipoEmissao: 'T', cadastroPrefeitura: { login: '', senha: '' } },
    };
    expect(exportFields?.(record('configuracoesNfse', 'configuracoesNfse', settings))).toEqual({
      ISS: { reter: true, tributos: [{ CNAE: '82.99', descricaoServico: '', codigo: { listaServico: '0107' } }] },
      controle: { numeracaoRPS: { serie: 1 } },
      adicionais: { tipoEmissao: 'T' },
    });
    const issWithoutEntries = { ISS: { zerar: true, tributos: [] } };
    expect(exportFields?.(record('configuracoesNfse', 'configuracoesNfse', issWithoutEntries))).toEqual({ ISS: { zerar: true, tributos: [] } });
  });
});
