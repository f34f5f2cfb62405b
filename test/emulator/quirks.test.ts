// One test per quirk of api-facts.md §7 that the emulator models (numbered as there), then the
// integrity rules of the issue. Each asserts what a client sees over HTTP, and the state behind it.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator, EmulatorOptions } from '../../src/emulator/index.js';
import { createEmulator } from '../../src/emulator/index.js';
import { buildSeed } from '../../src/emulator/seed.js';
import { call, dataOf } from './http-client.js';

const open: Emulator[] = [];
async function start(options: EmulatorOptions = {}): Promise<Emulator> {
  const emulator = await createEmulator({ rateLimit: 0, ...options });
  open.push(emulator);
  return emulator;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

type Row = Record<string, unknown> & { id: number };
const boleto = { descricao: 'Boleto Itaú', tipoPagamento: 15, finalidade: 2, destino: 1 };

async function create(emulator: Emulator, path: string, body: unknown): Promise<number> {
  const res = await call(emulator, 'POST', path, { body });
  expect(res.status, res.text).toBe(201);
  return dataOf<{ id: number }>(res).id;
}

describe('api-facts §7 quirks', () => {
  it('1. padrao: PATCH takes 1/2/3, moves the default from its previous holder, 3 never shows; POST and PUT bodies set it as the schema allows', async () => {
    const emulator = await start();
    const before = dataOf<Row[]>(await call(emulator, 'GET', '/formas-pagamentos')).find((m) => m.padrao === 1);
    const id = await create(emulator, '/formas-pagamentos', boleto);
    expect(dataOf(await call(emulator, 'GET', `/formas-pagamentos/${id}`))).toMatchObject({ padrao: 0 });

    expect((await call(emulator, 'PATCH', `/formas-pagamentos/${id}/padrao`, { body: { padrao: 1 } })).status).toBe(204);
    const list = dataOf<Row[]>(await call(emulator, 'GET', '/formas-pagamentos'));
    expect(list.filter((m) => m.padrao === 1).map((m) => m.id)).toEqual([id]);
    expect(list.find((m) => m.id === before?.id)?.padrao).toBe(0);

    expect((await call(emulator, 'PATCH', `/formas-pagamentos/${id}/padrao`, { body: { padrao: 3 } })).status).toBe(204);
    expect(dataOf(await call(emulator, 'GET', `/formas-pagamentos/${id}`))).toMatchObject({ padrao: 1 });
    const zero = await call(emulator, 'PATCH', `/formas-pagamentos/${id}/padrao`, { body: { padrao: 0 } });
    expect(zero.status).toBe(400);
    expect(zero.json).toMatchObject({ error: { type: 'VALIDATION_ERROR', fields: [{ element: 'padrao' }] } });

    // The schema lists padrao (0/1/2) as writable: a POST with padrao 2 takes the returns default;
    // a PUT without padrao keeps it, a PUT with padrao 1 moves the payment default back.
    const devolucao = await create(emulator, '/formas-pagamentos', { ...boleto, padrao: 2 });
    expect(dataOf(await call(emulator, 'GET', `/formas-pagamentos/${devolucao}`))).toMatchObject({ padrao: 2 });
    expect((await call(emulator, 'PUT', `/formas-pagamentos/${devolucao}`, { body: { ...boleto, juros: 1 } })).status).toBe(200);
    expect(dataOf(await call(emulator, 'GET', `/formas-pagamentos/${devolucao}`))).toMatchObject({ padrao: 2, juros: 1 });
    expect((await call(emulator, 'PUT', `/formas-pagamentos/${before?.id ?? 0}`, { body: { ...boleto, padrao: 1 } })).status).toBe(200);
    const after = dataOf<Row[]>(await call(emulator, 'GET', '/formas-pagamentos'));
    expect(after.filter((m) => m.padrao === 1).map((m) => m.id)).toEqual([before?.id]);
    expect((await call(emulator, 'POST', '/formas-pagamentos', { body: { ...boleto, padrao: 3 } })).status).toBe(400);
  });

  it('2. fixa is read-only and fixa methods cannot be deleted', async () => {
    const emulator = await start();
    const id = await create(emulator, '/formas-pagamentos', { ...boleto, fixa: true });
    expect(dataOf(await call(emulator, 'GET', `/formas-pagamentos/${id}`))).toMatchObject({ fixa: false });
    const fixa = emulator.snapshot().formasPagamentos.find((m) => m.fixa && m.padrao === 0);
    const refused = await call(emulator, 'DELETE', `/formas-pagamentos/${fixa?.id ?? 0}`);
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ error: { type: 'VALIDATION_ERROR', fields: [{ element: 'fixa' }] } });
    expect(emulator.snapshot().formasPagamentos.some((m) => m.id === fixa?.id)).toBe(true);
  });

  it('3. the payment-method list omits the detail-only fields', async () => {
    const emulator = await start();
    const [first] = dataOf<Row[]>(await call(emulator, 'GET', '/formas-pagamentos'));
    for (const field of ['destino', 'condicao', 'utilizaDiasUteis', 'taxas', 'dadosCartao']) expect(first).not.toHaveProperty(field);
    const detail = dataOf(await call(emulator, 'GET', `/formas-pagamentos/${first?.id ?? 0}`));
    for (const field of ['destino', 'condicao', 'utilizaDiasUteis', 'taxas']) expect(detail).toHaveProperty(field);
  });

  it('4. situacao of a payment method changes by PUT of the full object or by PATCH …/situacao', async () => {
    const emulator = await start();
    const id = await create(emulator, '/formas-pagamentos', boleto);
    expect((await call(emulator, 'PUT', `/formas-pagamentos/${id}`, { body: { ...boleto, situacao: 0 } })).status).toBe(200);
    expect(dataOf(await call(emulator, 'GET', `/formas-pagamentos/${id}`))).toMatchObject({ situacao: 0 });
    expect((await call(emulator, 'PATCH', `/formas-pagamentos/${id}/situacao`, { body: { situacao: 1 } })).status).toBe(204);
    const active = dataOf<Row[]>(await call(emulator, 'GET', '/formas-pagamentos?situacao=1'));
    expect(active.some((m) => m.id === id)).toBe(true);
  });

  it('5. categories write grupoDRE, read idGrupoDre; children inherit the parent group; 5 is not writable', async () => {
    const emulator = await start();
    const path = '/categorias/receitas-despesas';
    const root = await call(emulator, 'POST', path, { body: { descricao: 'Eventos', tipo: 1, grupoDRE: 11, idGrupoDre: 9 } });
    expect(root.status).toBe(201);
    const rootRow = dataOf<Row>(root);
    expect(rootRow).toMatchObject({ descricao: 'Eventos', idGrupoDre: 11, idCategoriaPai: 0 });
    expect(rootRow).not.toHaveProperty('grupoDRE');
    const childId = await create(emulator, path, { descricao: 'Buffet', tipo: 1, idCategoriaPai: rootRow.id, grupoDRE: 7 });
    expect(dataOf(await call(emulator, 'GET', `${path}/${childId}`))).toMatchObject({ idGrupoDre: 11, situacao: 1 });
    await call(emulator, 'PUT', `${path}/${rootRow.id}`, { body: { descricao: 'Eventos', tipo: 1, grupoDRE: 9 } });
    expect(dataOf(await call(emulator, 'GET', `${path}/${childId}`))).toMatchObject({ idGrupoDre: 9 });
    const five = await call(emulator, 'POST', path, { body: { descricao: 'CMV', tipo: 1, grupoDRE: 5 } });
    expect(five.status).toBe(400);
    expect(five.json).toMatchObject({ error: { type: 'VALIDATION_ERROR', fields: [{ element: 'grupoDRE' }] } });
  });

  it('6. transfer categories of tipo 4/5 are listed but cannot be written, created or deleted', async () => {
    const emulator = await start();
    const path = '/categorias/receitas-despesas';
    const all = dataOf<Row[]>(await call(emulator, 'GET', path));
    const saida = all.find((c) => c.tipo === 5);
    expect(all.some((c) => c.tipo === 4)).toBe(true);
    expect((await call(emulator, 'POST', path, { body: { descricao: 'Transf', tipo: 4 } })).status).toBe(400);
    expect((await call(emulator, 'PUT', `${path}/${saida?.id ?? 0}`, { body: { descricao: 'Saídas', tipo: 1 } })).status).toBe(400);
    expect((await call(emulator, 'DELETE', `${path}/${saida?.id ?? 0}`)).status).toBe(400);
  });

  it('7. a fresh account has the 62-category default chart, default payment methods and built-in situations', async () => {
    const emulator = await start();
    const page1 = dataOf<Row[]>(await call(emulator, 'GET', '/categorias/receitas-despesas?limite=50'));
    const page2 = dataOf<Row[]>(await call(emulator, 'GET', '/categorias/receitas-despesas?limite=50&pagina=2'));
    expect(page1.length + page2.length).toBe(62);
    const aguaParent = page1.find((c) => c.descricao === 'Despesas administrativas');
    expect(page1.find((c) => c.descricao === 'Água')).toMatchObject({ idCategoriaPai: aguaParent?.id, tipo: 1, idGrupoDre: 7 });
    expect(dataOf<Row[]>(await call(emulator, 'GET', '/formas-pagamentos')).some((m) => m.fixa === true)).toBe(true);
    expect(dataOf<Row[]>(await call(emulator, 'GET', '/situacoes/modulos/98310')).map((s) => s.id)).toEqual([6, 9, 12, 15, 18, 21, 24]);
  });

  it('8. category filters use their own codes: tipo 0 = all, situacao 0 = all, 1 = active, 2 = inactive', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'erpsync-quirk8-'));
    try {
      const seed = buildSeed('fresh');
      const inactive = seed.categoriasReceitasDespesas.find((c) => c.descricao === 'Brindes');
      if (inactive) inactive.situacao = 0;
      await writeFile(join(dir, 'seed.json'), JSON.stringify(seed));
      const emulator = await start({ seed: join(dir, 'seed.json') });
      const path = '/categorias/receitas-despesas';
      const ids = async (query: string) => dataOf<Row[]>(await call(emulator, 'GET', `${path}?${query}`)).map((c) => c.id);
      expect(await ids('situacao=2')).toEqual([inactive?.id]);
      expect(await ids('situacao=1')).toHaveLength(61);
      expect(await ids('situacao=0')).toHaveLength(62);
      expect(await ids('tipo=0')).toHaveLength(62);
      const despesas = dataOf<Row[]>(await call(emulator, 'GET', `${path}?tipo=1`));
      expect(despesas.every((c) => c.tipo === 1)).toBe(true);
      expect(dataOf(await call(emulator, 'GET', `${path}/${inactive?.id ?? 0}`))).toMatchObject({ situacao: 0 });
      const bad = await call(emulator, 'GET', `${path}?situacao=3`);
      expect(bad.status).toBe(400);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('9. response shapes differ by resource', async () => {
    const emulator = await start();
    const cat = await call(emulator, 'POST', '/categorias/receitas-despesas', { body: { descricao: 'Frete', tipo: 1 } });
    expect(cat.status).toBe(201);
    expect(dataOf(cat)).toMatchObject({ descricao: 'Frete', tipo: 1 });
    const catPut = await call(emulator, 'PUT', `/categorias/receitas-despesas/${dataOf<Row>(cat).id}`, { body: { descricao: 'Fretes', tipo: 1 } });
    expect([catPut.status, dataOf(catPut)]).toEqual([200, expect.objectContaining({ descricao: 'Fretes' })]);
    const group = await create(emulator, '/grupos-produtos', { nome: 'Bebidas' });
    const groupPut = await call(emulator, 'PUT', `/grupos-produtos/${group}`, { body: { nome: 'Bebidas geladas' } });
    expect([groupPut.status, groupPut.text]).toEqual([204, '']);
    const method = await create(emulator, '/formas-pagamentos', boleto);
    expect(dataOf(await call(emulator, 'PUT', `/formas-pagamentos/${method}`, { body: boleto }))).toEqual({ id: method });
    const logistics = await create(emulator, '/logisticas', { descricao: 'Motoboy', situacao: 'H' });
    const logisticsPut = await call(emulator, 'PUT', `/logisticas/${logistics}`, { body: { descricao: 'Motoboy', situacao: 'D' } });
    expect([logisticsPut.status, logisticsPut.text]).toEqual([200, '']);
    const services = await call(emulator, 'POST', '/logisticas/servicos', {
      body: { logistica: { id: logistics }, servicos: [{ descricao: 'Expresso', codigo: 'E', aliases: [], freteItem: 5, estimativaEntrega: 1 }] },
    });
    expect(services.status).toBe(201);
    expect(dataOf(services)).toEqual([{ id: expect.any(Number) }]);
    const logisticsDelete = await call(emulator, 'DELETE', `/logisticas/${logistics}`);
    expect([logisticsDelete.status, logisticsDelete.text]).toEqual([200, '']);
  });

  it('10. product-category PUT has no categoriaPai: one sent is ignored (the schema reading of "silently ignored"), the parent stays', async () => {
    const emulator = await start();
    const a = await create(emulator, '/categorias/produtos', { descricao: 'Roupas' });
    const b = await create(emulator, '/categorias/produtos', { descricao: 'Calçados' });
    const child = await create(emulator, '/categorias/produtos', { descricao: 'Camisetas', categoriaPai: { id: a } });
    const moved = await call(emulator, 'PUT', `/categorias/produtos/${child}`, { body: { descricao: 'Camisas', categoriaPai: { id: b } } });
    expect(moved.status).toBe(204);
    expect(dataOf(await call(emulator, 'GET', `/categorias/produtos/${child}`))).toEqual({ id: child, descricao: 'Camisas', categoriaPai: { id: a } });
  });

  it('11. product groups echo the parent name; bulk deletes answer 200 with alertas for what could not go', async () => {
    const emulator = await start();
    const parent = await create(emulator, '/grupos-produtos', { nome: 'Bebidas' });
    const child = await create(emulator, '/grupos-produtos', { nome: 'Sucos', grupoProdutoPai: { id: parent, nome: 'ignored' } });
    const lonely = await create(emulator, '/grupos-produtos', { nome: 'Avulso' });
    expect(dataOf(await call(emulator, 'GET', `/grupos-produtos/${child}`))).toEqual({ id: child, nome: 'Sucos', grupoProdutoPai: { id: parent, nome: 'Bebidas' } });
    const bulk = await call(emulator, 'DELETE', `/grupos-produtos?idsGruposProdutos[]=${parent}&idsGruposProdutos[]=${lonely}`);
    expect(bulk.status).toBe(200);
    const { alertas } = dataOf<{ alertas: { error: { type: string; description: string } }[] }>(bulk);
    expect(alertas).toHaveLength(1);
    expect(alertas[0]?.error.description).toContain(String(parent));
    expect(emulator.snapshot().gruposProdutos.map((g) => g.id)).toEqual([parent, child]);

    const path = '/categorias/receitas-despesas';
    const despesas = dataOf<Row[]>(await call(emulator, 'GET', path)).find((c) => c.descricao === 'Despesas administrativas');
    const own = await create(emulator, path, { descricao: 'Avulsa', tipo: 2 });
    const catBulk = await call(emulator, 'DELETE', `${path}?idsCategorias[]=${despesas?.id ?? 0}&idsCategorias[]=${own}`);
    expect(catBulk.status).toBe(200);
    expect(dataOf<{ alertas: unknown[] }>(catBulk).alertas).toHaveLength(1);
    expect((await call(emulator, 'GET', `${path}/${own}`)).status).toBe(404);
  });

  it('12. names are not unique: duplicates are accepted everywhere', async () => {
    const emulator = await start();
    const bodies: [string, unknown][] = [
      ['/formas-pagamentos', boleto],
      ['/categorias/receitas-despesas', { descricao: 'Dup', tipo: 1 }],
      ['/categorias/produtos', { descricao: 'Dup' }],
      ['/grupos-produtos', { nome: 'Dup' }],
      ['/situacoes', { idModuloSistema: 98310, nome: 'Dup', idHerdado: 6 }],
      ['/logisticas', { descricao: 'Dup', situacao: 'H' }],
    ];
    for (const [path, body] of bodies) {
      const first = await create(emulator, path, body);
      const second = await create(emulator, path, body);
      expect(second, path).not.toBe(first);
    }
  });

  it('13. situations: no list, detail without module, only in criarSituacoes modules, base must be a built-in of the module, colours lowercased, built-ins immutable', async () => {
    const emulator = await start();
    expect((await call(emulator, 'GET', '/situacoes')).status).toBe(404);
    const modules = dataOf<Row[]>(await call(emulator, 'GET', '/situacoes/modulos'));
    const closed = modules.find((m) => m.criarSituacoes === false);
    const compras = modules.find((m) => m.nome === 'Compras');
    expect((await call(emulator, 'POST', '/situacoes', { body: { idModuloSistema: closed?.id, nome: 'X', idHerdado: 40 } })).status).toBe(400);
    const foreignBase = await call(emulator, 'POST', '/situacoes', { body: { idModuloSistema: 98310, nome: 'X', idHerdado: 28 } });
    expect(foreignBase.json).toMatchObject({ error: { fields: [{ element: 'idHerdado' }] } });
    const id = await create(emulator, '/situacoes', { idModuloSistema: 98310, nome: 'Separação', idHerdado: 15, cor: '#ED66FF' });
    expect(dataOf(await call(emulator, 'GET', `/situacoes/${id}`))).toEqual({ id, nome: 'Separação', idHerdado: 15, cor: '#ed66ff' });
    const customBase = await call(emulator, 'POST', '/situacoes', { body: { idModuloSistema: 98310, nome: 'Y', idHerdado: id } });
    expect(customBase.status).toBe(400);
    expect((await call(emulator, 'PUT', `/situacoes/${id}`, { body: { idModuloSistema: compras?.id, nome: 'S', idHerdado: 15 } })).status).toBe(400);
    expect((await call(emulator, 'PUT', `/situacoes/12`, { body: { nome: 'Cancelada', idHerdado: 12 } })).status).toBe(400);
    expect((await call(emulator, 'DELETE', '/situacoes/12')).status).toBe(400);
    expect(dataOf(await call(emulator, 'GET', '/situacoes/12'))).toEqual({ id: 12, nome: 'Cancelado', idHerdado: 0, cor: '#CBCBCB' });
  });

  it('14. services have no DELETE; the logistics detail hides inactive services unless listarServicosInativos=true', async () => {
    const emulator = await start();
    const native = dataOf<Row[]>(await call(emulator, 'GET', '/logisticas')).find((l) => l.integracaoNativa === true);
    const visible = dataOf<{ servicos: Row[] }>(await call(emulator, 'GET', `/logisticas/${native?.id ?? 0}`)).servicos;
    const all = dataOf<{ servicos: Row[] }>(await call(emulator, 'GET', `/logisticas/${native?.id ?? 0}?listarServicosInativos=true`)).servicos;
    expect(visible.every((s) => s.ativo === true)).toBe(true);
    expect(all.length).toBeGreaterThan(visible.length);
    const service = all[0]?.id ?? 0;
    expect((await call(emulator, 'DELETE', `/logisticas/servicos/${service}`)).status).toBe(404);
    expect(emulator.snapshot().servicosLogisticas.some((s) => s.id === service)).toBe(true);
  });

  it('15. service activation answers at PATCH /logisticas/{idServico}/situacoes and at the /servicos variant', async () => {
    const emulator = await start();
    const service = emulator.snapshot().servicosLogisticas.find((s) => s.ativo);
    expect((await call(emulator, 'PATCH', `/logisticas/${service?.id ?? 0}/situacoes`, { body: { ativo: false } })).status).toBe(204);
    expect(dataOf(await call(emulator, 'GET', `/logisticas/servicos/${service?.id ?? 0}`))).toMatchObject({ ativo: false });
    expect((await call(emulator, 'PATCH', `/logisticas/servicos/${service?.id ?? 0}/situacoes`, { body: { ativo: true } })).status).toBe(204);
    expect(dataOf(await call(emulator, 'GET', `/logisticas/servicos/${service?.id ?? 0}`))).toMatchObject({ ativo: true });
    // A logistics id is not a service id.
    expect((await call(emulator, 'PATCH', `/logisticas/${service?.idLogistica ?? 0}/situacoes`, { body: { ativo: true } })).status).toBe(404);
  });

  it('16. logistics use H/D, PUT changes only descricao and situacao, services cannot move or be edited on native ones', async () => {
    const emulator = await start();
    const id = await create(emulator, '/logisticas', {
      descricao: 'Motoboy',
      situacao: 'H',
      servicos: [{ descricao: 'Expresso', codigo: 'E' }],
    });
    expect((await call(emulator, 'POST', '/logisticas', { body: { descricao: 'X', situacao: 1 } })).status).toBe(400);
    const put = await call(emulator, 'PUT', `/logisticas/${id}`, { body: { descricao: 'Motoboy SP', situacao: 'D', servicos: [], tipoIntegracao: 'Correios' } });
    expect(put.status).toBe(200);
    const detail = dataOf<Row & { servicos: Row[] }>(await call(emulator, 'GET', `/logisticas/${id}`));
    expect(detail).toMatchObject({ descricao: 'Motoboy SP', situacao: 'D', tipoIntegracao: 'CustomLogistic', integracaoNativa: false });
    expect(detail.servicos).toHaveLength(1);
    const serviceId = detail.servicos[0]?.id ?? 0;
    const other = await create(emulator, '/logisticas', { descricao: 'Outra', situacao: 'H' });
    const body = { descricao: 'Expresso', codigo: 'E', aliases: [], freteItem: 1, estimativaEntrega: 1 };
    expect((await call(emulator, 'PUT', `/logisticas/servicos/${serviceId}`, { body: { ...body, logistica: { id: other } } })).status).toBe(400);
    const native = emulator.snapshot().servicosLogisticas[0];
    expect((await call(emulator, 'PUT', `/logisticas/servicos/${native?.id ?? 0}`, { body })).status).toBe(400);
    const nativeCreate = await call(emulator, 'POST', '/logisticas/servicos', { body: { logistica: { id: native?.idLogistica }, servicos: [body] } });
    expect(nativeCreate.status).toBe(400);
  });

  it('17. writes are strictly typed (no numeric strings, no "true"); idCodigoServico is a string', async () => {
    const emulator = await start();
    const res = await call(emulator, 'POST', '/formas-pagamentos', { body: { ...boleto, tipoPagamento: '15', utilizaDiasUteis: 'true' } });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      error: {
        type: 'VALIDATION_ERROR',
        fields: [
          { code: expect.any(Number), msg: expect.any(String), element: 'tipoPagamento' },
          { element: 'utilizaDiasUteis' },
        ],
      },
    });
    const logistics = await create(emulator, '/logisticas', { descricao: 'L', situacao: 'H' });
    const base = { descricao: 'S', codigo: 'S', aliases: [], freteItem: 1, estimativaEntrega: 1 };
    const numeric = await call(emulator, 'POST', '/logisticas/servicos', { body: { logistica: { id: logistics }, servicos: [{ ...base, idCodigoServico: 7 }] } });
    expect(numeric.json).toMatchObject({ error: { fields: [{ element: 'servicos[0].idCodigoServico' }] } });
  });

  it('18. NFS-e settings: GET unwrapped, PUT 204, ISS.tributos matched by id (new without id, missing ones removed)', async () => {
    const emulator = await start();
    const settings = (await call(emulator, 'GET', '/nfse/configuracoes')).json as Record<string, unknown> & { ISS: Record<string, unknown> };
    expect(settings).not.toHaveProperty('data');
    const tributo = (descricaoServico: string, id?: number) => ({ id, CNAE: '62.01', descricaoServico, codigo: { listaServico: '0101' } });
    const put = (tributos: unknown[]) => call(emulator, 'PUT', '/nfse/configuracoes', { body: { ...settings, ISS: { ...settings.ISS, tributos } } });
    expect((await put([tributo('A'), tributo('B')])).status).toBe(204);
    const [a, b] = emulator.snapshot().nfseConfiguracoes.ISS.tributos;
    expect((await put([tributo('A2', a?.id), tributo('C')])).status).toBe(204);
    const after = emulator.snapshot().nfseConfiguracoes.ISS.tributos;
    expect(after.map((t) => t.descricaoServico)).toEqual(['A2', 'C']);
    expect(after[0]?.id).toBe(a?.id);
    expect(after.some((t) => t.id === b?.id)).toBe(false);
    const unknown = await put([tributo('Z', 123)]);
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({ error: { fields: [{ element: 'ISS.tributos[0].id' }] } });
  });

  it('19. PUT is full replacement: omitted optional fields reset', async () => {
    const emulator = await start();
    const id = await create(emulator, '/formas-pagamentos', { ...boleto, juros: 2, multa: 1, condicao: '30 60', taxas: { aliquota: 1, valor: 2, prazo: 3 } });
    await call(emulator, 'PUT', `/formas-pagamentos/${id}`, { body: boleto });
    expect(dataOf(await call(emulator, 'GET', `/formas-pagamentos/${id}`))).toMatchObject({
      juros: 0,
      multa: 0,
      condicao: '',
      taxas: { aliquota: 0, valor: 0, prazo: 0 },
    });
    const parent = await create(emulator, '/grupos-produtos', { nome: 'Pai' });
    const child = await create(emulator, '/grupos-produtos', { nome: 'Filho', grupoProdutoPai: { id: parent } });
    await call(emulator, 'PUT', `/grupos-produtos/${child}`, { body: { nome: 'Filho' } });
    expect(dataOf(await call(emulator, 'GET', `/grupos-produtos/${child}`))).toEqual({ id: child, nome: 'Filho' });
  });

  it('20. the rate limit is per account: every token shares one bucket', async () => {
    const emulator = await start({ rateLimit: 3 });
    const other = emulator.issueToken();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call(emulator, 'GET', '/situacoes/modulos', { token: i % 2 === 0 ? emulator.token : other })),
    );
    expect(results.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(4);
  });
});

describe('integrity and paging', () => {
  it('ids are integers above 2^31', async () => {
    const emulator = await start();
    expect(await create(emulator, '/grupos-produtos', { nome: 'G' })).toBeGreaterThan(2 ** 31);
  });

  it('limite defaults to 100, is clamped at 100, and data is [] past the end', async () => {
    const emulator = await start({ seed: 'empty' });
    for (let i = 0; i < 105; i += 1) await create(emulator, '/grupos-produtos', { nome: `G${i}` });
    expect(dataOf<Row[]>(await call(emulator, 'GET', '/grupos-produtos'))).toHaveLength(100);
    expect(dataOf<Row[]>(await call(emulator, 'GET', '/grupos-produtos?limite=500'))).toHaveLength(100);
    expect(dataOf<Row[]>(await call(emulator, 'GET', '/grupos-produtos?pagina=2'))).toHaveLength(5);
    expect(dataOf<Row[]>(await call(emulator, 'GET', '/grupos-produtos?pagina=3'))).toEqual([]);
    expect((await call(emulator, 'GET', '/grupos-produtos?limite=0')).status).toBe(400);
  });

  it('deleting a parent with children, or a record in use, answers 400 and changes nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'erpsync-in-use-'));
    try {
      const seed = buildSeed('fresh');
      const used = seed.formasPagamentos.find((m) => !m.fixa && m.padrao === 0);
      seed.emUso.push(used?.id ?? 0);
      await writeFile(join(dir, 'seed.json'), JSON.stringify(seed));
      const emulator = await start({ seed: join(dir, 'seed.json') });
      const inUse = await call(emulator, 'DELETE', `/formas-pagamentos/${used?.id ?? 0}`);
      expect(inUse.status).toBe(400);
      expect(inUse.json).toMatchObject({ error: { type: 'VALIDATION_ERROR', message: expect.any(String), description: expect.any(String) } });
      const parent = seed.categoriasReceitasDespesas.find((c) => c.descricao === 'Despesas com pessoal');
      expect((await call(emulator, 'DELETE', `/categorias/receitas-despesas/${parent?.id ?? 0}`)).status).toBe(400);
      expect(emulator.snapshot().categoriasReceitasDespesas).toHaveLength(62);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('unknown ids answer 404 RESOURCE_NOT_FOUND on every resource', async () => {
    const emulator = await start();
    for (const path of [
      '/formas-pagamentos/1',
      '/categorias/receitas-despesas/1',
      '/categorias/produtos/1',
      '/grupos-produtos/1',
      '/situacoes/1',
      '/situacoes/modulos/1',
      '/logisticas/1',
      '/logisticas/servicos/1',
    ]) {
      const res = await call(emulator, 'GET', path);
      expect(res.status, path).toBe(404);
      expect(res.json).toMatchObject({ error: { type: 'RESOURCE_NOT_FOUND', message: expect.any(String), description: expect.any(String) } });
    }
  });

  it('a missing required field answers MISSING_REQUIRED_FIELD_ERROR with fields (code, msg, element)', async () => {
    const emulator = await start();
    const res = await call(emulator, 'POST', '/grupos-produtos', { body: { grupoProdutoPai: { id: 1 } } });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      error: {
        type: 'MISSING_REQUIRED_FIELD_ERROR',
        message: expect.any(String),
        description: expect.any(String),
        fields: [{ code: expect.any(Number), msg: expect.any(String), element: 'nome' }],
      },
    });
  });

  it('a failed request leaves no partial change behind', async () => {
    const emulator = await start();
    const before = emulator.snapshot();
    const res = await call(emulator, 'DELETE', `/grupos-produtos?idsGruposProdutos[]=abc`);
    expect(res.status).toBe(400);
    expect(emulator.snapshot()).toEqual(before);
  });
});
