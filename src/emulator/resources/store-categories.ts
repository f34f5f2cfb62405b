// /categorias/lojas: links between a product category and its counterpart in a store (a sales
// channel): the category's `descricao` and `codigo` in the store. All four members are required;
// the store and the product category must exist in strict mode (rule reference-exists).
import type { ObjectSpec } from '../body-schema.js';
import { paginate, readIntegerParam } from '../listing.js';
import type { Route, RouteContext } from '../router.js';
import { noContent, ok } from '../router.js';
import type { StoreCategoryRecord } from '../state.js';
import { allocateId } from '../state.js';
import { byId, checkReference, findById, removeById, requireBody } from './common.js';

const idRef: ObjectSpec = { type: 'object', required: true, properties: { id: { type: 'integer', required: true, min: 1 } } };

const linkSpec: ObjectSpec = {
  type: 'object',
  properties: {
    loja: idRef,
    descricao: { type: 'string', required: true },
    codigo: { type: 'string', required: true },
    categoriaProduto: idRef,
  },
};

function showLink(record: StoreCategoryRecord): Record<string, unknown> {
  return { id: record.id, loja: { id: record.idLoja }, descricao: record.descricao, codigo: record.codigo, categoriaProduto: { id: record.idCategoriaProduto } };
}

function readLink({ state, body, mode }: RouteContext): Omit<StoreCategoryRecord, 'id'> {
  const input = requireBody(body, linkSpec, mode) as unknown as { loja: { id: number }; descricao: string; codigo: string; categoriaProduto: { id: number } };
  checkReference(mode, state.canaisVenda.some((c) => c.id === input.loja.id), 'loja.id', `A loja ${input.loja.id} não existe`);
  checkReference(
    mode,
    state.categoriasProdutos.some((c) => c.id === input.categoriaProduto.id),
    'categoriaProduto.id',
    `A categoria de produto ${input.categoriaProduto.id} não existe`,
  );
  return { idLoja: input.loja.id, descricao: input.descricao, codigo: input.codigo, idCategoriaProduto: input.categoriaProduto.id };
}

export const storeCategoryRoutes: Route[] = [
  {
    method: 'GET',
    template: '/categorias/lojas',
    handle: ({ state, query }) => {
      const idLoja = readIntegerParam(query, 'idLoja', 1);
      const idCategoria = readIntegerParam(query, 'idCategoriaProduto', 1);
      const idPai = readIntegerParam(query, 'idCategoriaProdutoPai', 1);
      const parentOf = (id: number) => state.categoriasProdutos.find((c) => c.id === id)?.idCategoriaPai;
      const rows = state.categoriasLojas
        .filter((l) => idLoja === undefined || l.idLoja === idLoja)
        .filter((l) => idCategoria === undefined || l.idCategoriaProduto === idCategoria)
        .filter((l) => idPai === undefined || parentOf(l.idCategoriaProduto) === idPai)
        .sort(byId);
      return ok({ data: paginate(rows, query).map(showLink) });
    },
  },
  {
    method: 'POST',
    template: '/categorias/lojas',
    handle: (ctx) => {
      const record: StoreCategoryRecord = { id: allocateId(ctx.state), ...readLink(ctx) };
      ctx.tx.push(ctx.state.categoriasLojas, record);
      return ok({ data: { id: record.id } }, 201);
    },
  },
  {
    method: 'GET',
    template: '/categorias/lojas/{idCategoriaLoja}',
    handle: ({ state, params }) => ok({ data: showLink(findById(state.categoriasLojas, params.idCategoriaLoja)) }),
  },
  {
    method: 'PUT',
    template: '/categorias/lojas/{idCategoriaLoja}',
    handle: (ctx) => {
      const record = findById(ctx.state.categoriasLojas, ctx.params.idCategoriaLoja);
      ctx.tx.assign(record, readLink(ctx));
      return noContent();
    },
  },
  {
    method: 'DELETE',
    template: '/categorias/lojas/{idCategoriaLoja}',
    handle: ({ state, params, tx }) => {
      const record = findById(state.categoriasLojas, params.idCategoriaLoja);
      removeById(tx, state.categoriasLojas, record.id);
      return noContent();
    },
  },
];
