// A real client nobody on this project wrote — the npm package bling-erp-api 5.8 (its own axios
// transport) — drives the emulator through list / find / create / update / delete of every
// configuration kind it covers, in both modes. Its `replace()` (and custom fields' `update()`)
// send PATCH where the API has PUT; that SDK bug is worked around here by sending those as PUT,
// and said so in the figures. Its two calls that end the path in `/` (bulk group delete, NFS-e
// settings update) are not worked around: strict mode answers them 404, lenient mode serves them.
// The workaround lives in test/support/bling-sdk.ts, shared with the bench's peer script.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Emulator, EmulatorMode } from '../../src/emulator/index.js';
import { createEmulator } from '../../src/emulator/index.js';
import type { BlingSdk as Sdk } from '../support/bling-sdk.js';
import { openBlingSdk } from '../support/bling-sdk.js';
import { storeId, writeStoreSeed } from './seeds.js';

type Ids = Record<string, number>;
/** One SDK call; it returns what later calls need, and throws when the call fails. */
type Call = [name: string, run: (sdk: Sdk, ids: Ids) => Promise<unknown>];

const idOf = (response: unknown): number => (response as { data: { id: number } }).data.id;
const firstId = (response: unknown): number => (response as { data: { id: number }[] }).data[0]?.id ?? 0;
const service = { descricao: 'Expresso', codigo: 'EXP', aliases: ['moto'], freteItem: 9.9, estimativaEntrega: 1 };

const calls: Call[] = [
  ['formasDePagamento.get', (s) => s.formasDePagamento.get({ situacao: 1 })],
  ['formasDePagamento.create', async (s, ids) => (ids.forma = idOf(await s.formasDePagamento.create({ descricao: 'Pix loja', tipoPagamento: 20, finalidade: 2, destino: 3 } as never)))],
  ['formasDePagamento.find', (s, ids) => s.formasDePagamento.find({ idFormaPagamento: ids.forma ?? 0 })],
  ['formasDePagamento.update', (s, ids) => s.formasDePagamento.update({ idFormaPagamento: ids.forma ?? 0, descricao: 'Pix', tipoPagamento: 20, finalidade: 2, destino: 3 } as never)],
  ['formasDePagamento.delete', (s, ids) => s.formasDePagamento.delete({ idFormaPagamento: ids.forma ?? 0 })],
  ['categoriasReceitasDespesas.get', (s) => s.categoriasReceitasDespesas.get({ tipo: 1 } as never)],
  ['categoriasReceitasDespesas.find', async (s) => s.categoriasReceitasDespesas.find({ idCategoria: firstId(await s.categoriasReceitasDespesas.get()) })],
  ['categoriasProdutos.create', async (s, ids) => (ids.categoria = idOf(await s.categoriasProdutos.create({ descricao: 'Roupas' } as never)))],
  ['categoriasProdutos.get', (s) => s.categoriasProdutos.get()],
  ['categoriasProdutos.find', (s, ids) => s.categoriasProdutos.find({ idCategoriaProduto: ids.categoria ?? 0 })],
  ['categoriasProdutos.update', (s, ids) => s.categoriasProdutos.update({ idCategoriaProduto: ids.categoria ?? 0, descricao: 'Moda' } as never)],
  ['gruposDeProdutos.create', async (s, ids) => (ids.grupo = idOf(await s.gruposDeProdutos.create({ nome: 'Bebidas' } as never)))],
  ['gruposDeProdutos.get', (s) => s.gruposDeProdutos.get({ nome: 'Bebidas' })],
  ['gruposDeProdutos.find', (s, ids) => s.gruposDeProdutos.find({ idGrupoProduto: ids.grupo ?? 0 })],
  ['gruposDeProdutos.update', (s, ids) => s.gruposDeProdutos.update({ idGrupoProduto: ids.grupo ?? 0, nome: 'Bebidas geladas' } as never)],
  ['gruposDeProdutos.delete', (s, ids) => s.gruposDeProdutos.delete({ idGrupoProduto: ids.grupo ?? 0 })],
  ['gruposDeProdutos.deleteMany', async (s) => s.gruposDeProdutos.deleteMany({ idsGruposProdutos: [idOf(await s.gruposDeProdutos.create({ nome: 'Avulso' } as never))] })],
  ['situacoesModulos.getModules', (s) => s.situacoesModulos.getModules()],
  ['situacoesModulos.getModuleSituations', (s) => s.situacoesModulos.getModuleSituations({ idModuloSistema: 98310 })],
  ['situacoesModulos.getModuleActions', (s) => s.situacoesModulos.getModuleActions({ idModuloSistema: 98310 })],
  ['situacoesModulos.getModuleTransitions', (s) => s.situacoesModulos.getModuleTransitions({ idModuloSistema: 98310 })],
  ['situacoes.create', async (s, ids) => (ids.situacao = idOf(await s.situacoes.create({ idModuloSistema: 98310, nome: 'Separação', idHerdado: 15, cor: '#ED66FF' } as never)))],
  ['situacoes.find', (s, ids) => s.situacoes.find({ idSituacao: ids.situacao ?? 0 })],
  ['situacoes.update', (s, ids) => s.situacoes.update({ idSituacao: ids.situacao ?? 0, nome: 'Em separação', idHerdado: 15, cor: '#ed66ff' } as never)],
  ['situacoesTransicoes.create', async (s, ids) =>
    (ids.transicao = idOf(await s.situacoesTransicoes.create({ ativo: true, acoes: [1], modulo: { id: 98310 }, situacaoOrigem: { id: 6 }, situacaoDestino: { id: ids.situacao ?? 0 } } as never)))],
  ['situacoesTransicoes.find', (s, ids) => s.situacoesTransicoes.find({ idTransicao: ids.transicao ?? 0 })],
  ['situacoesTransicoes.update', (s, ids) =>
    s.situacoesTransicoes.update({ idTransicao: ids.transicao ?? 0, ativo: false, acoes: [], modulo: { id: 98310 }, situacaoOrigem: { id: 6 }, situacaoDestino: { id: ids.situacao ?? 0 } } as never)],
  ['situacoesTransicoes.delete', (s, ids) => s.situacoesTransicoes.delete({ idTransicao: ids.transicao ?? 0 })],
  ['situacoes.delete', (s, ids) => s.situacoes.delete({ idSituacao: ids.situacao ?? 0 })],
  ['logisticas.create', async (s, ids) => (ids.logistica = idOf(await s.logisticas.create({ descricao: 'Motoboy', situacao: 'H', servicos: [] } as never)))],
  ['logisticas.get', (s) => s.logisticas.get()],
  ['logisticas.find', (s, ids) => s.logisticas.find({ idLogistica: ids.logistica ?? 0, listarServicosInativos: true } as never)],
  ['logisticas.update', (s, ids) => s.logisticas.update({ idLogistica: ids.logistica ?? 0, descricao: 'Motoboy SP', situacao: 'H' } as never)],
  ['logisticasServicos.create', async (s, ids) => (ids.servico = firstId(await s.logisticasServicos.create({ logistica: { id: ids.logistica ?? 0 }, servicos: [service] } as never)))],
  ['logisticasServicos.get', (s) => s.logisticasServicos.get()],
  ['logisticasServicos.find', (s, ids) => s.logisticasServicos.find({ idLogisticaServico: ids.servico ?? 0 })],
  ['logisticasServicos.update', (s, ids) => s.logisticasServicos.update({ idLogisticaServico: ids.servico ?? 0, ...service, freteItem: 12 } as never)],
  ['logisticasServicos.changeSituation', (s, ids) => s.logisticasServicos.changeSituation({ idLogisticaServico: ids.servico ?? 0, ativo: false })],
  ['logisticas.delete', (s, ids) => s.logisticas.delete({ idLogistica: ids.logistica ?? 0 })],
  ['nfses.getConfigurations', (s) => s.nfses.getConfigurations()],
  ['nfses.updateConfigurations', (s) => s.nfses.updateConfigurations({ ISS: { tributos: [{ CNAE: '62.01', descricaoServico: 'Software', codigo: { listaServico: '0101' } }] } } as never)],
  ['depositos.get', (s) => s.depositos.get({ situacao: 1 } as never)],
  ['depositos.create', async (s, ids) => (ids.deposito = idOf(await s.depositos.create({ descricao: 'Loja', situacao: 1, padrao: false, desconsiderarSaldo: false })))],
  ['depositos.find', (s, ids) => s.depositos.find({ idDeposito: ids.deposito ?? 0 })],
  ['depositos.update', (s, ids) => s.depositos.update({ idDeposito: ids.deposito ?? 0, descricao: 'Loja 1', situacao: 1, padrao: true, desconsiderarSaldo: false })],
  ['camposCustomizados.getModules', (s) => s.camposCustomizados.getModules()],
  ['camposCustomizados.getTypes', (s) => s.camposCustomizados.getTypes()],
  ['camposCustomizados.create', async (s, ids) => {
    const modules = (await s.camposCustomizados.getModules()) as unknown as { data: { id: number; modulo: string }[] };
    const types = (await s.camposCustomizados.getTypes()) as unknown as { data: { id: number }[] };
    ids.modulo = modules.data.find((m) => m.modulo === 'Produtos')?.id ?? 0;
    const body = { nome: 'Marca', situacao: 1, opcoes: [], agrupadores: [{ id: ids.categoria ?? 0 }], modulo: { id: ids.modulo }, tipoCampo: { id: types.data[0]?.id ?? 0 } };
    return (ids.campo = idOf(await s.camposCustomizados.create(body as never)));
  }],
  ['camposCustomizados.findByModule', (s, ids) => s.camposCustomizados.findByModule({ idModulo: ids.modulo ?? 0 } as never)],
  ['camposCustomizados.find', (s, ids) => s.camposCustomizados.find({ idCampoCustomizado: ids.campo ?? 0 })],
  ['camposCustomizados.update', (s, ids) => s.camposCustomizados.update({ idCampoCustomizado: ids.campo ?? 0, nome: 'Marca', placeholder: 'Qual marca?' } as never)],
  ['camposCustomizados.changeSituation', (s, ids) => s.camposCustomizados.changeSituation({ idCampoCustomizado: ids.campo ?? 0, situacao: 0 } as never)],
  ['camposCustomizados.delete', (s, ids) => s.camposCustomizados.delete({ idCampoCustomizado: ids.campo ?? 0 })],
  ['categoriasLojas.create', async (s, ids) =>
    (ids.link = idOf(await s.categoriasLojas.create({ loja: { id: storeId }, descricao: 'Moda', codigo: 'M1', categoriaProduto: { id: ids.categoria ?? 0 } } as never)))],
  ['categoriasLojas.get', (s) => s.categoriasLojas.get({ idLoja: storeId } as never)],
  ['categoriasLojas.find', (s, ids) => s.categoriasLojas.find({ idCategoriaLoja: ids.link ?? 0 })],
  ['categoriasLojas.update', (s, ids) => s.categoriasLojas.update({ idCategoriaLoja: ids.link ?? 0, loja: { id: storeId }, descricao: 'Moda', codigo: 'M2', categoriaProduto: { id: ids.categoria ?? 0 } } as never)],
  ['categoriasLojas.delete', (s, ids) => s.categoriasLojas.delete({ idCategoriaLoja: ids.link ?? 0 })],
  ['categoriasProdutos.delete', (s, ids) => s.categoriasProdutos.delete({ idCategoriaProduto: ids.categoria ?? 0 })],
  ['canaisDeVenda.get', (s) => s.canaisDeVenda.get()],
  ['canaisDeVenda.find', (s) => s.canaisDeVenda.find({ idCanalVenda: storeId })],
  ['canaisDeVenda.getTypes', (s) => s.canaisDeVenda.getTypes()],
  ['naturezasDeOperacoes.get', (s) => s.naturezasDeOperacoes.get({ situacao: 1 } as never)],
  ['contasContabeis.get', (s) => s.contasContabeis.get()],
  ['contasContabeis.find', async (s) => s.contasContabeis.find({ idContaContabil: firstId(await s.contasContabeis.get()) })],
  ['contatosTipos.get', (s) => s.contatosTipos.get()],
  ['empresas.me', (s) => s.empresas.me()],
];

/** Calls of the SDK that end the path in `/`: its own defect, left as it is. */
const trailingSlashCalls = ['gruposDeProdutos.deleteMany', 'nfses.updateConfigurations'];

const open: { emulator: Emulator; dir: string }[] = [];
afterAll(async () => {
  for (const { emulator, dir } of open.splice(0)) {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

describe.each(['strict', 'lenient'] as EmulatorMode[])('bling-erp-api 5.8 against the emulator, %s mode', (mode) => {
  it('works for every call but the SDK’s own trailing-slash paths (strict only)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'erpsync-sdk-'));
    const emulator = await createEmulator({ rateLimit: 0, mode, seed: writeStoreSeed(dir) });
    open.push({ emulator, dir });
    const { sdk } = openBlingSdk(emulator.token, emulator.baseUrl);
    const ids: Ids = {};
    const failed: string[] = [];
    for (const [name, run] of calls) {
      try {
        await run(sdk, ids);
      } catch (error) {
        const detail = (error as { data?: { error?: { type?: string } }; message?: string }).data?.error?.type ?? (error as Error).message;
        failed.push(`${name}: ${detail}`);
      }
    }
    console.log(`bling-erp-api (${mode}): ${calls.length - failed.length} of ${calls.length} calls work (record updates sent as PUT, the SDK's PATCH worked around)${failed.length ? `; failing: ${failed.join('; ')}` : ''}`);
    expect(failed.map((f) => f.split(':')[0])).toEqual(mode === 'strict' ? trailingSlashCalls : []);
  });
});
