// Every endpoint of the emulator, driven through its successes and its documented failures in
// both modes, must answer a status the official spec names (or the service interface's rules
// allow) with a body that validates against that status's schema. The last test checks that
// every operation/status pair of both OpenAPI cuts was exercised, and prints the figures.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator, EmulatorMode } from '../../src/emulator/index.js';
import { createEmulator } from '../../src/emulator/index.js';
import type { CallOptions, CallResult } from './http-client.js';
import { call, dataOf } from './http-client.js';
import { checkedResponses, exercised, expectContract, openApi } from './openapi-contract.js';
import { storeId, writeStoreSeed } from './seeds.js';

let emulator: Emulator;
const missingId = 99_999_999_999;

async function hit(method: string, template: string, path: string, options?: CallOptions): Promise<CallResult> {
  const res = await call(emulator, method, path, options);
  expectContract(method, template, res);
  return res;
}

describe.each(['strict', 'lenient'] as EmulatorMode[])('%s mode', (mode) => {
  const dir = mkdtempSync(join(tmpdir(), 'erpsync-contract-'));
  beforeAll(async () => {
    emulator = await createEmulator({ rateLimit: 0, mode, seed: writeStoreSeed(dir) });
  });
  afterAll(async () => {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('contract: /formas-pagamentos', () => {
    const t = '/formas-pagamentos';
    const d = '/formas-pagamentos/{idFormaPagamento}';
    const body = {
      descricao: 'Cartão loja',
      tipoPagamento: 3,
      finalidade: 2,
      destino: 1,
      condicao: '1x',
      taxas: { aliquota: 2.5, valor: 0.5, prazo: 30 },
      dadosCartao: { bandeira: 1, tipo: 1, cnpjCredenciadora: '12345678000199', autoLiquidacao: 1 },
    };

    it('answers every documented status', async () => {
      await hit('GET', t, `${t}?situacao=1&tiposPagamentos[]=1&tiposPagamentos[]=3&descricao=Dinheiro`);
      await hit('GET', t, `${t}?pagina=2&limite=3`);
      await hit('POST', t, t, { body: { descricao: 'x' } });
      const { id } = dataOf<{ id: number }>(await hit('POST', t, t, { body }));
      await hit('GET', d, `${t}/${id}`);
      await hit('GET', d, `${t}/${missingId}`);
      await hit('PUT', d, `${t}/${id}`, { body: { ...body, juros: 1.5 } });
      await hit('PUT', d, `${t}/${id}`, { body: { ...body, destino: 9 } });
      await hit('PUT', d, `${t}/${missingId}`, { body });
      await hit('PATCH', `${d}/padrao`, `${t}/${id}/padrao`, { body: { padrao: 2 } });
      await hit('PATCH', `${d}/padrao`, `${t}/${id}/padrao`, { body: { padrao: 0 } });
      await hit('PATCH', `${d}/padrao`, `${t}/${missingId}/padrao`, { body: { padrao: 1 } });
      await hit('PATCH', `${d}/situacao`, `${t}/${id}/situacao`, { body: { situacao: 1 } });
      await hit('PATCH', `${d}/situacao`, `${t}/${id}/situacao`, { body: { situacao: 'ativa' } });
      await hit('PATCH', `${d}/situacao`, `${t}/${missingId}/situacao`, { body: { situacao: 1 } });
      const fixa = emulator.snapshot().formasPagamentos.find((m) => m.fixa);
      await hit('DELETE', d, `${t}/${fixa?.id ?? 0}`);
      const other = dataOf<{ id: number }>(await hit('POST', t, t, { body: { descricao: 'Boleto 2', tipoPagamento: 15, finalidade: 3, destino: 1 } }));
      await hit('DELETE', d, `${t}/${other.id}`);
      await hit('DELETE', d, `${t}/${missingId}`);
    });
  });

  describe('contract: /categorias/receitas-despesas', () => {
    const t = '/categorias/receitas-despesas';
    const d = '/categorias/receitas-despesas/{idCategoria}';

    it('answers every documented status', async () => {
      await hit('GET', t, t);
      await hit('GET', t, `${t}?tipo=1&situacao=1&limite=5`);
      await hit('GET', t, `${t}?tipo=4`);
      const root = dataOf<{ id: number }>(await hit('POST', t, t, { body: { descricao: 'Marketing', tipo: 1, grupoDRE: 7 } }));
      const child = dataOf<{ id: number }>(await hit('POST', t, t, { body: { descricao: 'Anúncios', tipo: 1, idCategoriaPai: root.id } }));
      await hit('POST', t, t, { body: { descricao: 'Sem tipo' } });
      await hit('GET', d, `${t}/${child.id}`);
      await hit('GET', d, `${t}/${missingId}`);
      await hit('PUT', d, `${t}/${root.id}`, { body: { descricao: 'Marketing digital', tipo: 1, grupoDRE: 7 } });
      await hit('PUT', d, `${t}/${root.id}`, { body: { descricao: 'Marketing digital', tipo: 1, grupoDRE: 5 } });
      await hit('PUT', d, `${t}/${missingId}`, { body: { descricao: 'x', tipo: 1 } });
      await hit('DELETE', d, `${t}/${root.id}`);
      await hit('DELETE', d, `${t}/${missingId}`);
      await hit('DELETE', d, `${t}/${child.id}`);
      const a = dataOf<{ id: number }>(await hit('POST', t, t, { body: { descricao: 'A', tipo: 2 } }));
      const b = dataOf<{ id: number }>(await hit('POST', t, t, { body: { descricao: 'B', tipo: 2, idCategoriaPai: a.id } }));
      await hit('DELETE', t, `${t}?idsCategorias[]=${a.id}&idsCategorias[]=${b.id}`);
      await hit('DELETE', t, `${t}?idsCategorias[]=${a.id}`);
      await hit('DELETE', t, `${t}?idsCategorias[]=${root.id}`);
    });
  });

  describe('contract: /categorias/produtos', () => {
    const t = '/categorias/produtos';
    const d = '/categorias/produtos/{idCategoriaProduto}';

    it('answers every documented status', async () => {
      const parent = dataOf<{ id: number }>(await hit('POST', t, t, { body: { descricao: 'Roupas' } }));
      const child = dataOf<{ id: number }>(await hit('POST', t, t, { body: { descricao: 'Camisetas', categoriaPai: { id: parent.id } } }));
      await hit('POST', t, t, { body: { descricao: 'Órfã', categoriaPai: { id: missingId } } });
      await hit('GET', t, t);
      await hit('GET', d, `${t}/${child.id}`);
      await hit('GET', d, `${t}/${missingId}`);
      await hit('PUT', d, `${t}/${child.id}`, { body: { descricao: 'Camisetas básicas' } });
      await hit('PUT', d, `${t}/${child.id}`, { body: { descricao: '' } });
      await hit('PUT', d, `${t}/${missingId}`, { body: { descricao: 'x' } });
      await hit('DELETE', d, `${t}/${parent.id}`);
      await hit('DELETE', d, `${t}/${child.id}`);
      await hit('DELETE', d, `${t}/${missingId}`);
    });
  });

  describe('contract: /grupos-produtos', () => {
    const t = '/grupos-produtos';
    const d = '/grupos-produtos/{idGrupoProduto}';

    it('answers every documented status', async () => {
      const parent = dataOf<{ id: number }>(await hit('POST', t, t, { body: { nome: 'Bebidas' } }));
      const child = dataOf<{ id: number }>(await hit('POST', t, t, { body: { nome: 'Sucos', grupoProdutoPai: { id: parent.id } } }));
      await hit('POST', t, t, { body: { nome: 42 } });
      await hit('GET', t, t);
      await hit('GET', t, `${t}?nome=Sucos&nomePai=Bebidas`);
      await hit('GET', d, `${t}/${child.id}`);
      await hit('GET', d, `${t}/${parent.id}`);
      await hit('GET', d, `${t}/${missingId}`);
      await hit('PUT', d, `${t}/${child.id}`, { body: { nome: 'Sucos naturais', grupoProdutoPai: { id: parent.id } } });
      await hit('PUT', d, `${t}/${parent.id}`, { body: { nome: 'Bebidas', grupoProdutoPai: { id: child.id } } });
      await hit('PUT', d, `${t}/${missingId}`, { body: { nome: 'x' } });
      await hit('DELETE', d, `${t}/${parent.id}`);
      await hit('DELETE', d, `${t}/${missingId}`);
      await hit('DELETE', t, `${t}?idsGruposProdutos[]=${parent.id}&idsGruposProdutos[]=${child.id}`);
      await hit('DELETE', t, t);
      const a = dataOf<{ id: number }>(await hit('POST', t, t, { body: { nome: 'Limpeza' } }));
      const b = dataOf<{ id: number }>(await hit('POST', t, t, { body: { nome: 'Higiene' } }));
      await hit('DELETE', t, `${t}?idsGruposProdutos[]=${a.id}`);
      await hit('DELETE', d, `${t}/${b.id}`);
    });
  });

  describe('contract: /situacoes', () => {
    it('answers every documented status', async () => {
      const m = '/situacoes/modulos';
      const modules = dataOf<{ id: number; nome: string; criarSituacoes: boolean }[]>(await hit('GET', m, m));
      const vendas = modules.find((x) => x.nome === 'Vendas')?.id ?? 0;
      for (const suffix of ['', '/acoes', '/transicoes']) {
        await hit('GET', `${m}/{idModuloSistema}${suffix}`, `${m}/${vendas}${suffix}`);
        await hit('GET', `${m}/{idModuloSistema}${suffix}`, `${m}/${missingId}${suffix}`);
      }
      const s = '/situacoes';
      const d = '/situacoes/{idSituacao}';
      const created = dataOf<{ id: number }>(await hit('POST', s, s, { body: { idModuloSistema: vendas, nome: 'Aguardando', idHerdado: 6, cor: '#ED66FF' } }));
      await hit('POST', s, s, { body: { idModuloSistema: vendas, nome: 'Sem base' } });
      await hit('GET', d, `${s}/${created.id}`);
      await hit('GET', d, `${s}/6`);
      await hit('GET', d, `${s}/${missingId}`);
      await hit('PUT', d, `${s}/${created.id}`, { body: { idModuloSistema: vendas, nome: 'Aguardando envio', idHerdado: 15, cor: '#00AA00' } });
      await hit('PUT', d, `${s}/6`, { body: { nome: 'Aberto', idHerdado: 6, cor: '#000000' } });
      await hit('PUT', d, `${s}/${missingId}`, { body: { nome: 'x', idHerdado: 6 } });
      await hit('DELETE', d, `${s}/9`);
      await hit('DELETE', d, `${s}/${created.id}`);
      await hit('DELETE', d, `${s}/${missingId}`);
    });
  });

  describe('contract: /logisticas and /logisticas/servicos', () => {
    it('answers every documented status', async () => {
      const l = '/logisticas';
      const d = '/logisticas/{idLogistica}';
      await hit('GET', l, l);
      await hit('GET', l, `${l}?situacao=X`);
      const created = dataOf<{ id: number }>(
        await hit('POST', l, l, {
          body: { descricao: 'Motoboy', situacao: 'H', servicos: [{ descricao: 'Expresso', codigo: 'EXP', freteItem: 12.5, aliases: ['moto'] }] },
        }),
      );
      await hit('POST', l, l, { body: { descricao: 'Sem situação' } });
      await hit('GET', l, `${l}?tipoIntegracao=CustomLogistic&situacao=H`);
      await hit('GET', d, `${l}/${created.id}?listarServicosInativos=true`);
      await hit('GET', d, `${l}/${missingId}`);
      await hit('PUT', d, `${l}/${created.id}`, { body: { descricao: 'Motoboy SP', situacao: 'D' } });
      await hit('PUT', d, `${l}/${created.id}`, { body: { descricao: 'Motoboy SP', situacao: 'X' } });

      const s = '/logisticas/servicos';
      const sd = '/logisticas/servicos/{idLogisticaServico}';
      await hit('GET', s, s);
      await hit('GET', s, `${s}?tipoIntegracao=Nada`);
      const service = { descricao: 'Agendado', codigo: 'AGD', aliases: [], freteItem: 9.9, estimativaEntrega: 2, idCodigoServico: '7' };
      const ids = dataOf<{ id: number }[]>(await hit('POST', s, s, { body: { logistica: { id: created.id }, servicos: [service] } }));
      await hit('POST', s, s, { body: { logistica: { id: created.id }, servicos: [{ descricao: 'Incompleto' }] } });
      const serviceId = ids[0]?.id ?? 0;
      await hit('GET', sd, `${s}/${serviceId}`);
      await hit('GET', sd, `${s}/${missingId}`);
      await hit('PUT', sd, `${s}/${serviceId}`, { body: { ...service, freteItem: 11 } });
      await hit('PUT', sd, `${s}/${serviceId}`, { body: { ...service, freteItem: '11' } });
      await hit('PUT', sd, `${s}/${missingId}`, { body: service });
      const a = '/logisticas/{idLogisticaServico}/situacoes';
      await hit('PATCH', a, `${l}/${serviceId}/situacoes`, { body: { ativo: false } });
      await hit('PATCH', a, `${l}/${serviceId}/situacoes`, { body: {} });
      await hit('PATCH', a, `${l}/${missingId}/situacoes`, { body: { ativo: true } });

      const native = emulator.snapshot().logisticas.find((x) => x.integracaoNativa);
      await hit('DELETE', d, `${l}/${native?.id ?? 0}`);
      await hit('DELETE', d, `${l}/${created.id}`);
      await hit('DELETE', d, `${l}/${missingId}`);
    });
  });

  describe('contract: /nfse/configuracoes', () => {
    it('answers every documented status', async () => {
      const n = '/nfse/configuracoes';
      const current = await hit('GET', n, n);
      const settings = current.json as { ISS: { tributos: unknown[] } };
      const tributo = { CNAE: '62.01', descricaoServico: 'Desenvolvimento de software', codigo: { listaServico: '0101' }, percentualISS: 2 };
      await hit('PUT', n, n, { body: { ...settings, ISS: { ...settings.ISS, tributos: [tributo] } } });
      await hit('GET', n, n);
      await hit('PUT', n, n, { body: { ...settings, ISS: { tributos: [{ CNAE: '62.01' }] } } });
    });
  });

  defineNewRouteSuites();
});

/** The routes of the rest of the configuration API (more-config.md) and the transitions. */
function defineNewRouteSuites(): void {
  describe('contract: /situacoes/transicoes', () => {
    it('answers every documented status', async () => {
      const t = '/situacoes/transicoes';
      const d = '/situacoes/transicoes/{idTransicao}';
      const body = { ativo: true, acoes: [1, 3], modulo: { id: 98310 }, situacaoOrigem: { id: 6 }, situacaoDestino: { id: 24, nome: 'ignored' } };
      const { id } = dataOf<{ id: number }>(await hit('POST', t, t, { body }));
      await hit('POST', t, t, { body: { ativo: true } });
      await hit('POST', t, t, { body: { ...body, acoes: ['x'] } });
      await hit('GET', d, `${t}/${id}`);
      await hit('GET', d, `${t}/${missingId}`);
      await hit('GET', '/situacoes/modulos/{idModuloSistema}/transicoes', '/situacoes/modulos/98310/transicoes');
      await hit('PUT', d, `${t}/${id}`, { body: { ...body, ativo: false, acoes: [] } });
      await hit('PUT', d, `${t}/${id}`, { body: { ...body, ativo: 'no' } });
      await hit('PUT', d, `${t}/${missingId}`, { body });
      await hit('DELETE', d, `${t}/${id}`);
      await hit('DELETE', d, `${t}/${missingId}`);
      // A transition in use (the seed marks it) cannot go.
      await hit('DELETE', d, `${t}/${emulator.snapshot().emUso[0] ?? 0}`);
    });
  });

  describe('contract: /depositos', () => {
    it('answers every documented status', async () => {
      const t = '/depositos';
      const d = '/depositos/{idDeposito}';
      await hit('GET', t, t);
      await hit('GET', t, `${t}?descricao=Geral&situacao=1&pagina=1&limite=10`);
      const body = { descricao: 'Loja física', situacao: 1, padrao: false, desconsiderarSaldo: false };
      const { id } = dataOf<{ id: number }>(await hit('POST', t, t, { body }));
      await hit('POST', t, t, { body: { descricao: 'Sem situação' } });
      await hit('GET', d, `${t}/${id}`);
      await hit('GET', d, `${t}/${missingId}`);
      await hit('PUT', d, `${t}/${id}`, { body: { ...body, padrao: true } });
      await hit('PUT', d, `${t}/${id}`, { body: { ...body, situacao: 7 } });
      await hit('PUT', d, `${t}/${missingId}`, { body });
    });
  });

  describe('contract: /campos-customizados', () => {
    it('answers every documented status', async () => {
      const c = '/campos-customizados';
      const d = '/campos-customizados/{idCampoCustomizado}';
      const modules = dataOf<{ id: number; modulo: string }[]>(await hit('GET', `${c}/modulos`, `${c}/modulos`));
      const products = modules.find((m) => m.modulo === 'Produtos')?.id ?? 0;
      const types = dataOf<{ id: number; nome: string }[]>(await hit('GET', `${c}/tipos`, `${c}/tipos`));
      const lista = types.find((x) => x.nome === 'Lista')?.id ?? 0;
      const category = dataOf<{ id: number }>(await call(emulator, 'POST', '/categorias/produtos', { body: { descricao: 'Cosméticos' } }));
      const body = {
        nome: 'Marca',
        situacao: 1,
        placeholder: 'Informe a marca',
        obrigatorio: true,
        opcoes: [{ nome: 'Própria' }, { nome: 'Revenda' }],
        tamanho: { minimo: 1, maximo: 40 },
        agrupadores: [{ id: category.id }],
        modulo: { id: products },
        tipoCampo: { id: lista },
      };
      const created = dataOf<{ id: number; idsOpcoes: number[] }>(await hit('POST', c, c, { body }));
      await hit('POST', c, c, { body: { nome: 'Sem módulo' } });
      await hit('GET', `${c}/modulos/{idModulo}`, `${c}/modulos/${products}?pagina=1&limite=5`);
      await hit('GET', `${c}/modulos/{idModulo}`, `${c}/modulos/${missingId}`);
      await hit('GET', d, `${c}/${created.id}`);
      await hit('GET', d, `${c}/${missingId}`);
      const opcoes = [{ id: created.idsOpcoes[0], nome: 'Própria' }, { nome: 'Importada' }];
      await hit('PUT', d, `${c}/${created.id}`, { body: { ...body, nome: 'Renamed', opcoes } });
      await hit('PUT', d, `${c}/${created.id}`, { body: { ...body, obrigatorio: 'sim' } });
      await hit('PUT', d, `${c}/${missingId}`, { body });
      await hit('PATCH', `${d}/situacoes`, `${c}/${created.id}/situacoes`, { body: { situacao: 0 } });
      await hit('PATCH', `${d}/situacoes`, `${c}/${created.id}/situacoes`, { body: { situacao: 5 } });
      await hit('PATCH', `${d}/situacoes`, `${c}/${missingId}/situacoes`, { body: { situacao: 1 } });
      await hit('DELETE', d, `${c}/${created.id}`);
      await hit('DELETE', d, `${c}/${missingId}`);
    });
  });

  describe('contract: /categorias/lojas', () => {
    it('answers every documented status', async () => {
      const l = '/categorias/lojas';
      const d = '/categorias/lojas/{idCategoriaLoja}';
      const parent = dataOf<{ id: number }>(await call(emulator, 'POST', '/categorias/produtos', { body: { descricao: 'Moda' } }));
      const category = dataOf<{ id: number }>(await call(emulator, 'POST', '/categorias/produtos', { body: { descricao: 'Vestidos', categoriaPai: { id: parent.id } } }));
      const body = { loja: { id: storeId }, descricao: 'Vestidos', codigo: 'VEST-01', categoriaProduto: { id: category.id } };
      const { id } = dataOf<{ id: number }>(await hit('POST', l, l, { body }));
      await hit('POST', l, l, { body: { descricao: 'Sem loja' } });
      await hit('GET', l, l);
      await hit('GET', l, `${l}?idLoja=${storeId}&idCategoriaProduto=${category.id}&idCategoriaProdutoPai=${parent.id}`);
      await hit('GET', d, `${l}/${id}`);
      await hit('GET', d, `${l}/${missingId}`);
      await hit('PUT', d, `${l}/${id}`, { body: { ...body, codigo: 'VEST-02' } });
      await hit('PUT', d, `${l}/${id}`, { body: { ...body, codigo: 2 } });
      await hit('PUT', d, `${l}/${missingId}`, { body });
      await hit('DELETE', d, `${l}/${id}`);
      await hit('DELETE', d, `${l}/${missingId}`);
    });
  });

  describe('contract: read-only configuration', () => {
    it('answers every documented status', async () => {
      await hit('GET', '/empresas/me/dados-basicos', '/empresas/me/dados-basicos');
      await hit('GET', '/canais-venda', '/canais-venda');
      await hit('GET', '/canais-venda', '/canais-venda?tipos[]=LojaIntegrada&tipos[]=Shopee&situacao=1&agrupador=1');
      await hit('GET', '/canais-venda/tipos', '/canais-venda/tipos');
      await hit('GET', '/canais-venda/tipos', '/canais-venda/tipos?agrupador=3');
      await hit('GET', '/canais-venda/{idCanalVenda}', `/canais-venda/${storeId}`);
      await hit('GET', '/canais-venda/{idCanalVenda}', `/canais-venda/${missingId}`);
      await hit('GET', '/naturezas-operacoes', '/naturezas-operacoes');
      await hit('GET', '/naturezas-operacoes', '/naturezas-operacoes?situacao=1&descricao=Venda%20de%20mercadoria');
      await hit('GET', '/naturezas-operacoes', '/naturezas-operacoes?situacao=9');
      await hit('GET', '/contas-contabeis', '/contas-contabeis');
      await hit('GET', '/contas-contabeis', '/contas-contabeis?ocultarInvisiveis=true&ocultarTipoContaBancaria=true&situacoes[]=1&aliasIntegracao=BlingPagamentos&ordenacao=-descricao');
      const accounts = dataOf<{ id: number }[]>(await call(emulator, 'GET', '/contas-contabeis'));
      await hit('GET', '/contas-contabeis/{idContaContabil}', `/contas-contabeis/${accounts[0]?.id ?? 0}`);
      await hit('GET', '/contas-contabeis/{idContaContabil}', `/contas-contabeis/${missingId}`);
      await hit('GET', '/contatos/tipos', '/contatos/tipos');
    });
  });
}

describe('contract coverage', () => {
  it('exercised every status of every operation of both OpenAPI cuts', () => {
    const expected = Object.entries(openApi.paths).flatMap(([path, ops]) =>
      Object.entries(ops).flatMap(([method, op]) => Object.keys(op.responses).map((status) => `${method.toUpperCase()} ${path} ${status}`)),
    );
    const operations = new Set(expected.map((pair) => pair.split(' ').slice(0, 2).join(' ')));
    const covered = new Set([...exercised].map((pair) => pair.split(' ').slice(0, 2).join(' ')));
    console.log(
      `contract: ${checkedResponses.count} responses checked; ${[...operations].filter((o) => covered.has(o)).length} of ${operations.size} operations ` +
        `and ${expected.filter((pair) => exercised.has(pair)).length} of ${expected.length} documented statuses covered`,
    );
    expect(expected.filter((pair) => !exercised.has(pair))).toEqual([]);
  });
});
