import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { buildSeed } from './seed.js';
import { defaultChart } from './seed-chart.js';

const referenceChart = new URL('../../test/fixtures/reference/default-chart.json', import.meta.url);

describe('fresh seed', () => {
  it('carries the reference default chart verbatim (62 records)', async () => {
    const reference = JSON.parse(await readFile(referenceChart, 'utf8')) as { categorias: unknown[] };
    expect(defaultChart).toHaveLength(62);
    expect(defaultChart).toEqual(reference.categorias);
    expect(buildSeed('fresh').categoriasReceitasDespesas.map(({ situacao: _s, ...rest }) => rest)).toEqual(reference.categorias);
  });

  it('has payment methods with fixa ones and exactly one default for payments', () => {
    const { formasPagamentos } = buildSeed('fresh');
    expect(formasPagamentos.filter((m) => m.fixa).length).toBeGreaterThanOrEqual(1);
    expect(formasPagamentos.filter((m) => m.padrao === 1)).toHaveLength(1);
  });

  it('has the Vendas module with criarSituacoes and the built-ins 6…24 with their colours', () => {
    const state = buildSeed('fresh');
    expect(state.modulos.find((m) => m.nome === 'Vendas')).toMatchObject({ id: 98310, criarSituacoes: true });
    const builtIns = state.situacoes.filter((s) => s.idModuloSistema === 98310);
    expect(builtIns.map((s) => [s.id, s.nome, s.cor, s.idHerdado])).toEqual([
      [6, 'Em aberto', '#E9DC40', 0],
      [9, 'Atendido', '#3FB57A', 0],
      [12, 'Cancelado', '#CBCBCB', 0],
      [15, 'Em andamento', '#0065F9', 0],
      [18, 'Venda Agenciada', '#FF7835', 0],
      [21, 'Em digitação', '#FF66E3', 0],
      [24, 'Verificado', '#85F39E', 0],
    ]);
    expect(state.modulos.some((m) => !m.criarSituacoes)).toBe(true);
  });

  it('has a native logistics with active and inactive services and NFS-e settings', () => {
    const state = buildSeed('fresh');
    const native = state.logisticas.find((l) => l.integracaoNativa);
    expect(native).toBeDefined();
    const services = state.servicosLogisticas.filter((s) => s.idLogistica === native?.id);
    expect(services.some((s) => s.ativo)).toBe(true);
    expect(services.some((s) => !s.ativo)).toBe(true);
    expect(state.nfseConfiguracoes.ISS.tributos).toEqual([]);
    expect(state.nfseConfiguracoes.adicionais.tipoEmissao).toBe('T');
  });

  it('hands out ids above 2^31 that continue after the chart', () => {
    const state = buildSeed('fresh');
    const ids = [...state.formasPagamentos, ...state.logisticas, ...state.servicosLogisticas].map((r) => r.id);
    expect(Math.min(...ids)).toBeGreaterThan(2 ** 31);
    expect(new Set(ids).size).toBe(ids.length);
    expect(state.nextId).toBeGreaterThan(Math.max(...ids, ...state.categoriasReceitasDespesas.map((c) => c.id)));
  });
});

describe('empty seed', () => {
  it('keeps only what the system owns', () => {
    const state = buildSeed('empty');
    expect(state.formasPagamentos).toEqual([]);
    expect(state.categoriasReceitasDespesas).toEqual([]);
    expect(state.logisticas).toEqual([]);
    expect(state.modulos.length).toBeGreaterThan(0);
    expect(state.situacoes.every((s) => s.idHerdado === 0)).toBe(true);
  });
});
