// /categorias/produtos: a tree of names with no status. The parent is set on create only: the
// update body has no `categoriaPai`, so one sent to PUT is ignored (rule product-category-parent-fixed,
// the schema's reading of api-facts §7.10 "impossible or silently ignored"). A category that store
// links or custom fields' groupings name is in use (rule category-in-use).
import { notFound, ruleFailure } from '../api-error.js';
import type { ObjectSpec } from '../body-schema.js';
import { paginate } from '../listing.js';
import type { Route } from '../router.js';
import { noContent, ok } from '../router.js';
import type { EmulatorState, ProductCategoryRecord } from '../state.js';
import { allocateId } from '../state.js';
import { assertNotInUse, byId, check, checkReference, findById, removeById, requireBody } from './common.js';

const parentSpec = {
  type: 'object',
  whenOmitted: 'absent',
  properties: { id: { type: 'integer', required: true, min: 0 } },
} as const satisfies ObjectSpec;

const createSpec: ObjectSpec = {
  type: 'object',
  properties: { descricao: { type: 'string', required: true }, categoriaPai: parentSpec },
};

const updateSpec: ObjectSpec = {
  type: 'object',
  properties: { descricao: { type: 'string', required: true } },
};

interface ProductCategoryInput {
  descricao: string;
  categoriaPai?: { id: number };
}

/** Whether custom fields of the module group by product categories (the Produtos module). */
function groupsByProductCategories(state: EmulatorState, idModulo: number): boolean {
  return state.modulosCamposCustomizados.find((m) => m.id === idModulo)?.modulo === 'Produtos';
}

function showProductCategory(record: ProductCategoryRecord): Record<string, unknown> {
  return { id: record.id, descricao: record.descricao, categoriaPai: { id: record.idCategoriaPai } };
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
    handle: ({ state, body, mode, tx }) => {
      const input = requireBody(body, createSpec, mode) as unknown as ProductCategoryInput;
      const idCategoriaPai = input.categoriaPai?.id ?? 0;
      checkReference(mode, idCategoriaPai === 0 || state.categoriasProdutos.some((c) => c.id === idCategoriaPai), 'categoriaPai.id', `A categoria pai ${idCategoriaPai} não existe`);
      const record: ProductCategoryRecord = { id: allocateId(state), descricao: input.descricao, idCategoriaPai };
      tx.push(state.categoriasProdutos, record);
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
    handle: ({ state, params, body, mode, tx }) => {
      const record = findById(state.categoriasProdutos, params.idCategoriaProduto);
      const input = requireBody(body, updateSpec, mode) as unknown as ProductCategoryInput;
      tx.assign(record, { descricao: input.descricao });
      return noContent();
    },
  },
  {
    method: 'DELETE',
    template: '/categorias/produtos/{idCategoriaProduto}',
    handle: ({ state, params, mode, tx }) => {
      const id = params.idCategoriaProduto;
      if (id === undefined) throw notFound();
      findById(state.categoriasProdutos, id);
      const children = state.categoriasProdutos.filter((c) => c.idCategoriaPai === id);
      check(mode, 'delete-with-children', children.length > 0, () =>
        ruleFailure('hasChildren', 'id', 'A categoria possui subcategorias e não pode ser excluída.'),
      );
      const links = state.categoriasLojas.filter((l) => l.idCategoriaProduto === id);
      const grouped = state.camposCustomizados.filter((f) => groupsByProductCategories(state, f.idModulo) && f.agrupadores.some((a) => a.id === id));
      check(mode, 'category-in-use', links.length > 0 || grouped.length > 0, () =>
        ruleFailure('inUse', 'id', 'A categoria está vinculada a lojas ou agrupa campos customizados e não pode ser excluída.'),
      );
      assertNotInUse(state, id);
      for (const child of children) tx.assign(child, { idCategoriaPai: 0 });
      // category-in-use, lenient: the links go with the category; the custom fields' grouping ids are left dangling.
      for (const link of links) tx.remove(state.categoriasLojas, link);
      removeById(tx, state.categoriasProdutos, id);
      return noContent();
    },
  },
];
