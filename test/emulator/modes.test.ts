// The inferred rules of src/emulator/rules.ts, each driven over HTTP in both modes: strict mode
// refuses (or coerces) as the rule says, lenient mode takes the other plausible reading. The
// documented rules are covered by quirks.test.ts and the contract tests.
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator, EmulatorMode, RuleId } from '../../src/emulator/index.js';
import { createEmulator, emulatorRules } from '../../src/emulator/index.js';
import { call, dataOf } from './http-client.js';

const open: Emulator[] = [];
async function start(mode: EmulatorMode): Promise<Emulator> {
  const emulator = await createEmulator({ rateLimit: 0, mode });
  open.push(emulator);
  return emulator;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

type Row = Record<string, unknown> & { id: number };
const boleto = { descricao: 'Boleto', tipoPagamento: 15, finalidade: 2, destino: 1 };

async function create(emulator: Emulator, path: string, body: unknown): Promise<number> {
  const res = await call(emulator, 'POST', path, { body });
  expect(res.status, res.text).toBe(201);
  return dataOf<{ id: number }>(res).id;
}

/** One inferred rule: `probe` makes the request the rule is about and returns its status. */
interface Case {
  rule: RuleId;
  probe: (emulator: Emulator) => Promise<number>;
  strict: number;
  lenient: number;
}

const defaultMethod = (e: Emulator) => e.snapshot().formasPagamentos.find((m) => m.padrao === 1)?.id ?? 0;
const fixaMethod = (e: Emulator) => e.snapshot().formasPagamentos.find((m) => m.fixa && m.padrao === 0)?.id ?? 0;
const transfer = (e: Emulator) => e.snapshot().categoriasReceitasDespesas.find((c) => c.tipo === 5)?.id ?? 0;
const native = (e: Emulator) => e.snapshot().logisticas.find((l) => l.integracaoNativa);
const status = async (p: Promise<{ status: number }>) => (await p).status;

const cases: Case[] = [
  { rule: 'null-members', strict: 400, lenient: 201, probe: (e) => status(call(e, 'POST', '/formas-pagamentos', { body: { ...boleto, condicao: null } })) },
  { rule: 'non-negative-numbers', strict: 400, lenient: 201, probe: (e) => status(call(e, 'POST', '/formas-pagamentos', { body: { ...boleto, juros: -1 } })) },
  {
    rule: 'cnpj-digits',
    strict: 400,
    lenient: 201,
    probe: (e) => status(call(e, 'POST', '/formas-pagamentos', { body: { ...boleto, tipoPagamento: 3, dadosCartao: { bandeira: 1, tipo: 1, cnpjCredenciadora: '12.345.678/0001-95' } } })),
  },
  { rule: 'hex-colour', strict: 400, lenient: 201, probe: (e) => status(call(e, 'POST', '/situacoes', { body: { idModuloSistema: 98310, nome: 'X', idHerdado: 6, cor: 'red' } })) },
  {
    rule: 'json-content-type',
    strict: 400,
    lenient: 201,
    probe: (e) => status(call(e, 'POST', '/grupos-produtos', { rawBody: JSON.stringify({ nome: 'G' }), headers: { 'content-type': 'text/plain' } })),
  },
  { rule: 'trailing-slash', strict: 404, lenient: 200, probe: (e) => status(call(e, 'GET', '/formas-pagamentos/')) },
  { rule: 'method-not-allowed', strict: 404, lenient: 405, probe: async (e) => status(call(e, 'DELETE', `/logisticas/servicos/${e.snapshot().servicosLogisticas[0]?.id ?? 0}`)) },
  { rule: 'reference-exists', strict: 400, lenient: 201, probe: (e) => status(call(e, 'POST', '/grupos-produtos', { body: { nome: 'Órfão', grupoProdutoPai: { id: 123 } } })) },
  {
    rule: 'delete-with-children',
    strict: 400,
    lenient: 204,
    probe: async (e) => {
      const parent = await create(e, '/grupos-produtos', { nome: 'Pai' });
      await create(e, '/grupos-produtos', { nome: 'Filho', grupoProdutoPai: { id: parent } });
      return status(call(e, 'DELETE', `/grupos-produtos/${parent}`));
    },
  },
  { rule: 'fixa-not-deletable', strict: 400, lenient: 204, probe: (e) => status(call(e, 'DELETE', `/formas-pagamentos/${fixaMethod(e)}`)) },
  { rule: 'default-stays-active', strict: 400, lenient: 204, probe: (e) => status(call(e, 'PATCH', `/formas-pagamentos/${defaultMethod(e)}/situacao`, { body: { situacao: 0 } })) },
  {
    rule: 'inactive-not-default',
    strict: 400,
    lenient: 204,
    probe: async (e) => {
      const id = await create(e, '/formas-pagamentos', { ...boleto, situacao: 0 });
      return status(call(e, 'PATCH', `/formas-pagamentos/${id}/padrao`, { body: { padrao: 1 } }));
    },
  },
  {
    rule: 'child-tipo-matches-parent',
    strict: 400,
    lenient: 201,
    probe: async (e) => {
      const parent = await create(e, '/categorias/receitas-despesas', { descricao: 'Pai', tipo: 1 });
      return status(call(e, 'POST', '/categorias/receitas-despesas', { body: { descricao: 'Filho', tipo: 2, idCategoriaPai: parent } }));
    },
  },
  {
    rule: 'transfer-categories-read-only',
    strict: 400,
    lenient: 200,
    probe: (e) => status(call(e, 'PUT', `/categorias/receitas-despesas/${transfer(e)}`, { body: { descricao: 'Saídas', tipo: 1 } })),
  },
  { rule: 'situation-base-required', strict: 400, lenient: 201, probe: (e) => status(call(e, 'POST', '/situacoes', { body: { idModuloSistema: 98310, nome: 'Sem base' } })) },
  { rule: 'situation-base-builtin', strict: 400, lenient: 201, probe: (e) => status(call(e, 'POST', '/situacoes', { body: { idModuloSistema: 98310, nome: 'X', idHerdado: 28 } })) },
  { rule: 'builtin-situations-immutable', strict: 400, lenient: 200, probe: (e) => status(call(e, 'PUT', '/situacoes/12', { body: { nome: 'Cancelada', idHerdado: 12 } })) },
  {
    rule: 'situation-stays-in-module',
    strict: 400,
    lenient: 200,
    probe: async (e) => {
      const id = await create(e, '/situacoes', { idModuloSistema: 98310, nome: 'S', idHerdado: 6 });
      return status(call(e, 'PUT', `/situacoes/${id}`, { body: { idModuloSistema: 98311, nome: 'S', idHerdado: 6 } }));
    },
  },
  { rule: 'situation-in-transition', strict: 400, lenient: 204, probe: async (e) => {
      const id = await create(e, '/situacoes', { idModuloSistema: 98310, nome: 'T', idHerdado: 6 });
      await create(e, '/situacoes/transicoes', { situacaoOrigem: { id: 6 }, situacaoDestino: { id } });
      return status(call(e, 'DELETE', `/situacoes/${id}`));
    } },
  {
    rule: 'category-in-use',
    strict: 400,
    lenient: 204,
    probe: async (e) => {
      const category = await create(e, '/categorias/produtos', { descricao: 'Boca' });
      const state = e.snapshot();
      const store = state.canaisVenda[0]?.id ?? 0;
      const products = state.modulosCamposCustomizados.find((m) => m.modulo === 'Produtos')?.id ?? 0;
      const text = state.tiposCamposCustomizados[0]?.id ?? 0;
      await create(e, '/categorias/lojas', { loja: { id: store }, descricao: 'Boca', codigo: '12', categoriaProduto: { id: category } });
      const field = await create(e, '/campos-customizados', { nome: 'Acabamento', modulo: { id: products }, tipoCampo: { id: text }, agrupadores: [{ id: category }] });
      const answer = await status(call(e, 'DELETE', `/categorias/produtos/${category}`));
      // Lenient: the link went with the category; the field stays, grouping by a category that is gone.
      const after = e.snapshot();
      expect(after.categoriasLojas.some((l) => l.idCategoriaProduto === category)).toBe(answer === 400);
      expect(after.camposCustomizados.find((f) => f.id === field)?.agrupadores.map((a) => a.id)).toEqual([category]);
      return answer;
    },
  },
  {
    rule: 'service-stays-in-logistics',
    strict: 400,
    lenient: 200,
    probe: async (e) => {
      const a = await create(e, '/logisticas', { descricao: 'A', situacao: 'H', servicos: [{ descricao: 'S' }] });
      const b = await create(e, '/logisticas', { descricao: 'B', situacao: 'H' });
      const service = e.snapshot().servicosLogisticas.find((s) => s.idLogistica === a)?.id ?? 0;
      const body = { descricao: 'S', codigo: 'S', aliases: [], freteItem: 1, estimativaEntrega: 1, logistica: { id: b } };
      return status(call(e, 'PUT', `/logisticas/servicos/${service}`, { body }));
    },
  },
  { rule: 'native-logistics-read-only', strict: 400, lenient: 200, probe: (e) => status(call(e, 'DELETE', `/logisticas/${native(e)?.id ?? 0}`)) },
  {
    rule: 'services-non-empty',
    strict: 400,
    lenient: 201,
    probe: async (e) => status(call(e, 'POST', '/logisticas/servicos', { body: { logistica: { id: await create(e, '/logisticas', { descricao: 'L', situacao: 'H' }) }, servicos: [] } })),
  },
  {
    rule: 'nfse-one-default-tributo',
    strict: 400,
    lenient: 204,
    probe: (e) => {
      const tributo = { CNAE: '62.01', descricaoServico: 'Software', codigo: { listaServico: '0101' }, padrao: true };
      return status(call(e, 'PUT', '/nfse/configuracoes', { body: { ISS: { tributos: [tributo, { ...tributo, descricaoServico: 'Suporte' }] } } }));
    },
  },
  {
    rule: 'nfse-tributo-ids',
    strict: 400,
    lenient: 204,
    probe: (e) => status(call(e, 'PUT', '/nfse/configuracoes', { body: { ISS: { tributos: [{ id: 5, CNAE: '62.01', descricaoServico: 'S', codigo: { listaServico: '0101' } }] } } })),
  },
];

describe('inferred rules: strict refuses, lenient takes the other reading', () => {
  it('covers every strict-only rule that answers with a status', () => {
    const coercions: RuleId[] = ['card-data-card-types', 'text-filters'];
    const strictOnly = Object.entries(emulatorRules).filter(([, r]) => r.applies === 'strict').map(([id]) => id as RuleId);
    expect(strictOnly.filter((id) => !coercions.includes(id) && !cases.some((c) => c.rule === id))).toEqual([]);
  });

  it.each(cases)('$rule', async ({ probe, strict, lenient }) => {
    expect(await probe(await start('strict'))).toBe(strict);
    expect(await probe(await start('lenient'))).toBe(lenient);
  });

  it('card-data-card-types: strict drops card data of a non-card method, lenient keeps it', async () => {
    const body = { ...boleto, dadosCartao: { bandeira: 1, tipo: 1 } };
    for (const [mode, kept] of [['strict', false], ['lenient', true]] as const) {
      const emulator = await start(mode);
      const id = await create(emulator, '/formas-pagamentos', body);
      expect('dadosCartao' in dataOf<Row>(await call(emulator, 'GET', `/formas-pagamentos/${id}`)), mode).toBe(kept);
    }
  });

  it('text-filters: strict answers only the stored value exactly, lenient any case- and accent-insensitive part of it', async () => {
    const names = (rows: Row[], field: string) => rows.map((r) => r[field]).sort();
    for (const mode of ['strict', 'lenient'] as const) {
      const emulator = await start(mode);
      await create(emulator, '/formas-pagamentos', { ...boleto, descricao: 'Pix ' });
      await create(emulator, '/formas-pagamentos', { ...boleto, descricao: 'Cafe\u0301' });
      await create(emulator, '/depositos', { descricao: 'Depósito Central', situacao: 1, padrao: false, desconsiderarSaldo: false });
      const parent = await create(emulator, '/grupos-produtos', { nome: 'Bebidas' });
      await create(emulator, '/grupos-produtos', { nome: 'Sucos', grupoProdutoPai: { id: parent } });
      const list = async (path: string, field: string) => names(dataOf<Row[]>(await call(emulator, 'GET', path)), field);
      const loose = mode === 'lenient';
      expect(await list('/formas-pagamentos?descricao=Pix', 'descricao'), mode).toEqual(loose ? ['Pix', 'Pix '] : ['Pix']);
      expect(await list(`/formas-pagamentos?descricao=${encodeURIComponent('Café')}`, 'descricao'), mode).toEqual(loose ? ['Cafe\u0301'] : []);
      expect(await list('/depositos?descricao=deposito', 'descricao'), mode).toEqual(loose ? ['Depósito Central'] : []);
      expect(await list(`/depositos?descricao=${encodeURIComponent('Depósito Central')}`, 'descricao'), mode).toEqual(['Depósito Central']);
      expect(await list('/grupos-produtos?nome=suco&nomePai=bebidas', 'nome'), mode).toEqual(loose ? ['Sucos'] : []);
      expect(await list('/grupos-produtos?nome=Sucos&nomePai=Bebidas', 'nome'), mode).toEqual(['Sucos']);
      expect(await list('/naturezas-operacoes?descricao=venda', 'descricao'), mode).toHaveLength(loose ? emulator.snapshot().naturezasOperacoes.filter((n) => /venda/i.test(n.descricao)).length : 0);
    }
  });

  it('warehouse-list-default: without `situacao` the warehouse list holds the active ones only, in both modes', async () => {
    for (const mode of ['strict', 'lenient'] as const) {
      const emulator = await start(mode);
      const retired = await create(emulator, '/depositos', { descricao: 'Antigo', situacao: 0, padrao: false, desconsiderarSaldo: false });
      const names = async (path: string) => dataOf<Row[]>(await call(emulator, 'GET', path)).map((r) => r.descricao);
      expect(await names('/depositos'), mode).not.toContain('Antigo');
      expect(await names('/depositos?descricao=Antigo'), mode).toEqual([]);
      expect(await names('/depositos?situacao=0'), mode).toEqual(['Antigo']);
      expect(dataOf<Row>(await call(emulator, 'GET', `/depositos/${retired}`)).descricao, mode).toBe('Antigo');
    }
  });

  it('lenient: deleting a parent makes its children roots; deleting a situation takes its transitions', async () => {
    const emulator = await start('lenient');
    const parent = await create(emulator, '/categorias/receitas-despesas', { descricao: 'Pai', tipo: 1 });
    const child = await create(emulator, '/categorias/receitas-despesas', { descricao: 'Filho', tipo: 1, idCategoriaPai: parent });
    expect((await call(emulator, 'DELETE', `/categorias/receitas-despesas/${parent}`)).status).toBe(204);
    expect(dataOf(await call(emulator, 'GET', `/categorias/receitas-despesas/${child}`))).toMatchObject({ idCategoriaPai: 0 });
    expect((await call(emulator, 'DELETE', '/situacoes/9')).status).toBe(204);
    expect(emulator.snapshot().transicoes.some((t) => t.idSituacaoOrigem === 9 || t.idSituacaoDestino === 9)).toBe(false);
  });
});
