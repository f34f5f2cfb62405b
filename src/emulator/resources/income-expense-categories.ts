// /categorias/receitas-despesas. Reads carry `idGrupoDre` (not in the spec, but real); writes take
// `grupoDRE`, and a child always takes its parent's DRE group. The list filters use their own
// codes (tipo 0 = all; situacao 0 = all, 1 = active, 2 = inactive). The system transfer
// categories (tipo 4/5) are read-only.
import { notFound, ruleFailure, validationFailure } from '../api-error.js';
import type { ObjectSpec } from '../body-schema.js';
import { paginate, readEnumParam } from '../listing.js';
import type { Route } from '../router.js';
import { noContent, ok } from '../router.js';
import type { EmulatorState, IncomeExpenseCategoryRecord } from '../state.js';
import { allocateId } from '../state.js';
import { deleteInBulk } from './bulk-delete.js';
import { assertNotInUse, byId, findById, removeById, requireBody } from './common.js';

const systemTipos: readonly number[] = [4, 5];

// `situacao` and `idGrupoDre` are not writable: the documented body has neither, so a client
// that sends them sees no effect. Omitted fields reset on PUT (a missing idCategoriaPai moves
// the category to the root; a missing grupoDRE goes back to 1).
const categorySpec: ObjectSpec = {
  type: 'object',
  properties: {
    descricao: { type: 'string', required: true },
    tipo: { type: 'integer', required: true, enum: [1, 2, 3] },
    idCategoriaPai: { type: 'integer', min: 0, default: 0 },
    grupoDRE: { type: 'integer', enum: [1, 2, 3, 7, 8, 9, 10, 11, 13], default: 1 },
  },
};

interface CategoryInput {
  descricao: string;
  tipo: number;
  idCategoriaPai: number;
  grupoDRE: number;
}

function listCategory(record: IncomeExpenseCategoryRecord): Record<string, unknown> {
  const { id, idCategoriaPai, descricao, tipo, idGrupoDre } = record;
  return { id, idCategoriaPai, descricao, tipo, idGrupoDre };
}

function assertWritable(record: IncomeExpenseCategoryRecord): void {
  if (systemTipos.includes(record.tipo)) {
    throw ruleFailure('readOnlyRecord', 'tipo', 'Categorias de transferência do sistema não podem ser alteradas nem excluídas.');
  }
}

function descendantsOf(state: EmulatorState, id: number): IncomeExpenseCategoryRecord[] {
  const children = state.categoriasReceitasDespesas.filter((c) => c.idCategoriaPai === id);
  return children.flatMap((c) => [c, ...descendantsOf(state, c.id)]);
}

/** Checks the parent and returns the DRE group the record gets. */
function resolveParent(state: EmulatorState, input: CategoryInput, self?: IncomeExpenseCategoryRecord): number {
  if (input.idCategoriaPai === 0) return input.grupoDRE;
  const parent = state.categoriasReceitasDespesas.find((c) => c.id === input.idCategoriaPai);
  if (!parent) {
    throw validationFailure([{ kind: 'unknownReference', element: 'idCategoriaPai', msg: `A categoria pai ${input.idCategoriaPai} não existe` }]);
  }
  if (self && (parent.id === self.id || descendantsOf(state, self.id).some((d) => d.id === parent.id))) {
    throw ruleFailure('rule', 'idCategoriaPai', 'Uma categoria não pode ficar abaixo dela mesma.');
  }
  if (systemTipos.includes(parent.tipo)) {
    throw ruleFailure('readOnlyRecord', 'idCategoriaPai', 'Categorias de transferência do sistema não aceitam subcategorias.');
  }
  if (parent.tipo !== input.tipo) {
    throw ruleFailure('rule', 'tipo', 'O tipo da subcategoria deve ser o mesmo da categoria pai.');
  }
  return parent.idGrupoDre;
}

function deleteCategory(state: EmulatorState, id: number): void {
  const record = findById(state.categoriasReceitasDespesas, id);
  assertWritable(record);
  if (state.categoriasReceitasDespesas.some((c) => c.idCategoriaPai === id)) {
    throw ruleFailure('hasChildren', 'id', 'A categoria possui subcategorias e não pode ser excluída.');
  }
  assertNotInUse(state, id);
  removeById(state.categoriasReceitasDespesas, id);
}

export const incomeExpenseCategoryRoutes: Route[] = [
  {
    method: 'GET',
    template: '/categorias/receitas-despesas',
    handle: ({ state, query }) => {
      const tipo = readEnumParam(query, 'tipo', [0, 1, 2, 3]) ?? 0;
      const situacao = readEnumParam(query, 'situacao', [0, 1, 2]) ?? 0;
      // Filter tipo N returns exactly tipo N (the stricter reading); only 0 includes 4/5.
      const rows = state.categoriasReceitasDespesas
        .filter((c) => tipo === 0 || c.tipo === tipo)
        .filter((c) => situacao === 0 || (situacao === 1 ? c.situacao === 1 : c.situacao === 0))
        .sort(byId);
      return ok({ data: paginate(rows, query).map(listCategory) });
    },
  },
  {
    method: 'POST',
    template: '/categorias/receitas-despesas',
    handle: ({ state, body }) => {
      const input = requireBody(body, categorySpec) as unknown as CategoryInput;
      const idGrupoDre = resolveParent(state, input);
      const record: IncomeExpenseCategoryRecord = {
        id: allocateId(state),
        idCategoriaPai: input.idCategoriaPai,
        descricao: input.descricao,
        tipo: input.tipo,
        idGrupoDre,
        situacao: 1,
      };
      state.categoriasReceitasDespesas.push(record);
      return ok({ data: listCategory(record) }, 201);
    },
  },
  {
    method: 'DELETE',
    template: '/categorias/receitas-despesas',
    handle: ({ state, query }) => deleteInBulk(query, 'idsCategorias', (id) => deleteCategory(state, id)),
  },
  {
    method: 'GET',
    template: '/categorias/receitas-despesas/{idCategoria}',
    handle: ({ state, params }) => {
      const record = findById(state.categoriasReceitasDespesas, params.idCategoria);
      return ok({ data: { ...listCategory(record), situacao: record.situacao } });
    },
  },
  {
    method: 'PUT',
    template: '/categorias/receitas-despesas/{idCategoria}',
    handle: ({ state, params, body }) => {
      const record = findById(state.categoriasReceitasDespesas, params.idCategoria);
      assertWritable(record);
      const input = requireBody(body, categorySpec) as unknown as CategoryInput;
      const idGrupoDre = resolveParent(state, input, record);
      const descendants = descendantsOf(state, record.id);
      if (input.tipo !== record.tipo && descendants.length > 0) {
        throw ruleFailure('rule', 'tipo', 'O tipo de uma categoria com subcategorias não pode ser alterado.');
      }
      Object.assign(record, { descricao: input.descricao, tipo: input.tipo, idCategoriaPai: input.idCategoriaPai, idGrupoDre });
      for (const d of descendants) d.idGrupoDre = idGrupoDre;
      return ok({ data: listCategory(record) });
    },
  },
  {
    method: 'DELETE',
    template: '/categorias/receitas-despesas/{idCategoria}',
    handle: ({ state, params }) => {
      const id = params.idCategoria;
      if (id === undefined) throw notFound();
      deleteCategory(state, id);
      return noContent();
    },
  },
];
