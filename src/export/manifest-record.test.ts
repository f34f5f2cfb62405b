// Live records → manifest entries, on hand-made records: labels for codes, read-only codes left
// out with a note, secrets as placeholders, references by name (by path when the name is not
// unique, without the scope when scoped), keys in schema order, nested units inside their record.
import { describe, expect, it } from 'vitest';
import { registry } from '../kinds/registry.js';
import { compareIdentities, secretVariableOf, toManifestEntry } from './manifest-record.js';
import { renderKindFile, renderSnippet } from './render-yaml.js';
import type { KindAdapter } from '../kinds/kind.js';
import type { LiveRecord } from '../model/live.js';
import type { UnitKind } from '../model/kinds.js';

const adapter = (kind: UnitKind): KindAdapter => registry.units.find((a) => a.kind === kind) as KindAdapter;

function record(kind: UnitKind, id: number, identity: string, fields: Record<string, unknown>, extra: Partial<LiveRecord> = {}): LiveRecord {
  return { kind, id, identity, name: identity.split(' > ').at(-1) ?? identity, fields, raw: {}, detailLoaded: true, ...extra };
}

function contextOf(...records: LiveRecord[]) {
  const byKind = new Map<UnitKind, LiveRecord[]>();
  for (const r of records) byKind.set(r.kind, [...(byKind.get(r.kind) ?? []), r]);
  return { adapters: registry.units, live: { records: byKind, reads: 0 } };
}

describe('toManifestEntry', () => {
  it('writes labels, leaves out create defaults, and orders keys as the schema does', () => {
    const pix = record('formasPagamentos', 1, 'Pix', { padrao: 0, destino: 3, tipoPagamento: 17, finalidade: 2, situacao: 1, descricao: 'Pix', juros: 0, taxas: { aliquota: 0, valor: 0, prazo: 0 } });
    const entry = toManifestEntry(adapter('formasPagamentos'), pix, contextOf(pix));
    expect(entry).toEqual({ value: { descricao: 'Pix', tipoPagamento: 'pix-dinamico', finalidade: 'recebimentos', destino: 'caixa-e-bancos' }, notes: [] });
    expect(Object.keys(entry.value)).toEqual(['descricao', 'tipoPagamento', 'finalidade', 'destino']);
  });

  it('leaves out a code the API never accepts, with a note', () => {
    const cost = record('categoriasReceitasDespesas', 1, 'Custo de frete', { descricao: 'Custo de frete', tipo: 1, grupoDRE: 5 });
    const entry = toManifestEntry(adapter('categoriasReceitasDespesas'), cost, contextOf(cost));
    expect(entry.value).toEqual({ descricao: 'Custo de frete', tipo: 'despesa' });
    expect(entry.notes).toEqual(['grupoDRE is custo-vendas (5), which the account sets itself and the API does not accept: left out']);
    expect(renderSnippet(entry, { kind: 'categoriasReceitasDespesas' })).toContain('# grupoDRE is custo-vendas (5)');
  });

  it('names a parent by its name, or by its path when another record has the same name', () => {
    const records = [
      record('categoriasProdutos', 1, 'Maquiagem', { descricao: 'Maquiagem' }),
      record('categoriasProdutos', 2, 'Maquiagem > Kits', { descricao: 'Kits', categoriaPai: 'Maquiagem' }, { parent: 'Maquiagem' }),
      record('categoriasProdutos', 3, 'Skincare', { descricao: 'Skincare' }),
      record('categoriasProdutos', 4, 'Skincare > Kits', { descricao: 'Kits', categoriaPai: 'Skincare' }, { parent: 'Skincare' }),
      record('categoriasProdutos', 5, 'Skincare > Kits > Viagem', { descricao: 'Viagem', categoriaPai: 'Skincare > Kits' }, { parent: 'Skincare > Kits' }),
    ];
    const context = contextOf(...records);
    const values = records.map((r) => toManifestEntry(adapter('categoriasProdutos'), r, context).value);
    expect(values.map((v) => v.categoriaPai)).toEqual([undefined, 'Maquiagem', undefined, 'Skincare', 'Skincare > Kits']);
  });

  it('writes a scoped reference without its scope', () => {
    const custom = record('situacoes', 9, 'Vendas > Separando', { modulo: 'Vendas', nome: 'Separando', herdado: 'Vendas > Em andamento', cor: '#4a90e2' });
    expect(toManifestEntry(adapter('situacoes'), custom, contextOf(custom)).value).toEqual({ modulo: 'Vendas', nome: 'Separando', herdado: 'Em andamento', cor: '#4a90e2' });
  });

  it('writes a secret as its variable, never its value, and drops an empty one', () => {
    const fields = { adicionais: { cadastroPrefeitura: { login: 'loja', senha: 'segredo' } } };
    const settings = record('configuracoesNfse', 0, 'configuracoesNfse', fields);
    const entry = toManifestEntry(adapter('configuracoesNfse'), settings, contextOf(settings));
    expect(entry.value).toEqual({ adicionais: { cadastroPrefeitura: { login: 'loja', senha: '${NFSE_SENHA_PREFEITURA}' } } });
    expect(JSON.stringify(entry)).not.toContain('segredo');
    const empty = record('configuracoesNfse', 0, 'configuracoesNfse', { adicionais: { cadastroPrefeitura: { login: 'loja', senha: '' } } });
    expect(toManifestEntry(adapter('configuracoesNfse'), empty, contextOf(empty)).value).toEqual({ adicionais: { cadastroPrefeitura: { login: 'loja' } } });
  });

  it('makes a variable name from the path when the kind names none', () => {
    expect(secretVariableOf({ ...adapter('formasPagamentos'), secretVariables: {} }, ['dadosCartao', 'chaveSecreta'])).toBe('FORMAS_PAGAMENTOS_DADOS_CARTAO_CHAVE_SECRETA');
  });

  it('puts nested units inside their record, in code order', () => {
    const logistics = record('logisticas', 1, 'Entrega', { descricao: 'Entrega', situacao: 'H' });
    const service = (id: number, codigo: string, ativo: boolean) =>
      record('logisticasServicos', id, `Entrega > ${codigo}`, { codigo, descricao: codigo, freteItem: 1, estimativaEntrega: 2, aliases: [], ativo }, { parent: 'Entrega' });
    const entry = toManifestEntry(adapter('logisticas'), logistics, contextOf(logistics, service(3, 'Z', false), service(2, 'A', true)));
    expect(entry.value).toEqual({
      descricao: 'Entrega',
      situacao: 'habilitada',
      servicos: [
        { codigo: 'A', descricao: 'A', freteItem: 1, estimativaEntrega: 2 },
        { codigo: 'Z', descricao: 'Z', freteItem: 1, estimativaEntrega: 2, ativo: false },
      ],
    });
  });
});

describe('compareIdentities', () => {
  it('keeps children right after their parent and sorts names as Portuguese readers do', () => {
    const sorted = ['Vendas', 'Água', 'A B', 'A > Z', 'A', 'A > B'].sort(compareIdentities);
    expect(sorted).toEqual(['A', 'A > B', 'A > Z', 'A B', 'Água', 'Vendas']);
  });
});

describe('renderKindFile', () => {
  it('puts the schema line first, then the header, version and the records with air between them', () => {
    const text = renderKindFile({
      kind: 'gruposProdutos',
      shape: 'list',
      entries: [
        { value: { nome: 'A' }, notes: [] },
        { value: { nome: 'B', grupoProdutoPai: 'A' }, notes: ['a note'] },
      ],
      schemaRef: 'schema.json',
      header: ['Exported.'],
    });
    expect(text).toBe(
      '# yaml-language-server: $schema=schema.json\n#\n# Exported.\nversion: 1\n\ngruposProdutos:\n  - nome: A\n\n  # a note\n  - nome: B\n    grupoProdutoPai: A\n',
    );
  });
});
