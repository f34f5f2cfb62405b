// /categorias/produtos: a tree of names with no status. The parent is set on create only: the
// update body has no `categoriaPai`, and one that tries to move the category is refused.
import { notFound, ruleFailure, validationFailure } from '../api-error.js';
import type { ObjectSpec } from '../body-schema.js';
import { paginate } from '../listing.js';
import type { Route } from '../router.js';
import { noContent, ok } from '../router.js';
import type { EmulatorState, ProductCategoryRecord } from '../state.js';
import { allocateId } from '../state.js';
import { assertNotInUse, byId, findById, removeById, requireBody } from './common.js';

const parentSpec = {
  type: 'object',
  whenOmitted: 'absent',
  properties: { id: { type: 'integer', required: true, min: 0 } },
} as const satisfies ObjectSpec;

const createSpec: ObjectSpec = {
  type: 'object',
  properties: { descricao: { type: 'string', required: true }, categoriaPai: parentSpec },
};

interface ProductCategoryInput {
  descricao: string;
  categoriaPai?: { id: number };
}

function showProductCategory(record: ProductCategoryRecord): Record<string, unknown> {
  return { id: record.id, descricao: record.descricao, categoriaPai: { id: record.idCategoriaPai } };
}

function checkParent(state: EmulatorState, id: number): void {
  if (id !== 0 && !state.categoriasProdutos.some((c) => c.id === id)) {
    throw validationFailure([{ kind: 'unknownReference', element: 'categoriaPai.id', msg: `A categoria pai ${id} não existe` }]);
  }
}

export const productCategoryRoutes: Route[] = [
  {
    method: 'GET',
    template: '/categorias/produtos',
    handle: ({ state, query }) => ok({ data: paginate([...state.categoriasProdutos].sort(byId), query).map(showProductCategory) }),
  },
  {
    method: 'POST',
    template: '/categorias/produtos',
    handle: ({ state, body }) => {
      const input = requireBody(body, createSpec) as unknown as ProductCategoryInput;
      const idCategoriaPai = input.categoriaPai?.id ?? 0;
      checkParent(state, idCategoriaPai);
      const record: ProductCategoryRecord = { id: allocateId(state), descricao: input.descricao, idCategoriaPai };
      state.categoriasProdutos.push(record);
      return ok({ data: { id: record.id } }, 201);
    },
  },
  {
    method: 'GET',
    template: '/categorias/produtos/{idCategoriaProduto}',
    handle: ({ state, params }) => ok({ data: showProductCategory(findById(state.categoriasProdutos, params.idCategoriaProduto)) }),
  },
  {
    method: 'PUT',
    template: '/categorias/produtos/{idCategoriaProduto}',
    handle: ({ state, params, body }) => {
      const record = findById(state.categoriasProdutos, params.idCategoriaProduto);
      const input = requireBody(body, createSpec) as unknown as ProductCategoryInput;
      // Re-parenting is not part of the update contract; rather than drop it silently (which
      // would look applied), a different parent is refused so the caller learns it at once.
      if (input.categoriaPai && input.categoriaPai.id !== record.idCategoriaPai) {
        throw ruleFailure('rule', 'categoriaPai', 'A categoria pai não pode ser alterada.');
      }
      record.descricao = input.descricao;
      return noContent();
    },
  },
  {
    method: 'DELETE',
    template: '/categorias/produtos/{idCategoriaProduto}',
    handle: ({ state, params }) => {
      const id = params.idCategoriaProduto;
      if (id === undefined) throw notFound();
      findById(state.categoriasProdutos, id);
      if (state.categoriasProdutos.some((c) => c.idCategoriaPai === id)) {
        throw ruleFailure('hasChildren', 'id', 'A categoria possui subcategorias e não pode ser excluída.');
      }
      assertNotInUse(state, id);
      removeById(state.categoriasProdutos, id);
      return noContent();
    },
  },
];
