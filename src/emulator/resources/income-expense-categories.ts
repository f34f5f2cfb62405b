// /categorias/receitas-despesas. Reads carry `idGrupoDre` (not in the spec, but real); writes take
// `grupoDRE`, and a child always takes its parent's DRE group (rule dre-group). The list filters
// use their own codes (category-filters). The system transfer categories (tipo 4/5) are
// read-only in strict mode (transfer-categories-read-only).
import { notFound, ruleFailure } from '../api-error.js';
import type { ObjectSpec } from '../body-schema.js';
import type { Journal } from '../journal.js';
import { paginate, readEnumParam } from '../listing.js';
import type { Route, RouteContext } from '../router.js';
import { noContent, ok } from '../router.js';
import type { EmulatorMode } from '../rules.js';
import type { EmulatorState, IncomeExpenseCategoryRecord } from '../state.js';
import { allocateId } from '../state.js';
import { deleteInBulk } from './bulk-delete.js';
import { assertNotInUse, byId, check, checkReference, findById, removeById, requireBody } from './common.js';

const systemTipos: readonly number[] = [4, 5];

// `situacao` and `idGrupoDre` are not writable: the documented body has neither, so a client
// that sends them sees no effect (unknown-members-ignored). Omitted fields reset on PUT (put-replaces) (a missing idCategoriaPai moves
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

function assertWritable(mode: EmulatorMode, record: IncomeExpenseCategoryRecord): void {
  check(mode, 'transfer-categories-read-only', systemTipos.includes(record.tipo), () =>
    ruleFailure('readOnlyRecord', 'tipo', 'Categorias de transferência do sistema não podem ser alteradas nem excluídas.'),
  );
}

function descendantsOf(state: EmulatorState, id: number): IncomeExpenseCategoryRecord[] {
  const children = state.categoriasReceitasDespesas.filter((c) => c.idCategoriaPai === id);
  return children.flatMap((c) => [c, ...descendantsOf(state, c.id)]);
}

/** Checks the parent and returns the DRE group the record gets. */
function resolveParent({ state, mode }: RouteContext, input: CategoryInput, self?: IncomeExpenseCategoryRecord): number {
  if (input.idCategoriaPai === 0) return input.grupoDRE;
  const parent = state.categoriasReceitasDespesas.find((c) => c.id === input.idCategoriaPai);
  checkReference(mode, parent !== undefined, 'idCategoriaPai', `A categoria pai ${input.idCategoriaPai} não existe`);
  if (!parent) return input.grupoDRE;
  if (self && (parent.id === self.id || descendantsOf(state, self.id).some((d) => d.id === parent.id))) {
    throw ruleFailure('rule', 'idCategoriaPai', 'Uma categoria não pode ficar abaixo dela mesma.');
  }
  check(mode, 'transfer-categories-read-only', systemTipos.includes(parent.tipo), () =>
    ruleFailure('readOnlyRecord', 'idCategoriaPai', 'Categorias de transferência do sistema não aceitam subcategorias.'),
  );
  check(mode, 'child-tipo-matches-parent', parent.tipo !== input.tipo, () =>
    ruleFailure('rule', 'tipo', 'O tipo da subcategoria deve ser o mesmo da categoria pai.'),
  );
  return parent.idGrupoDre;
}

/** delete-with-children: refused in strict mode; in lenient mode the children become roots. */
function releaseChildren(tx: Journal, mode: EmulatorMode, children: IncomeExpenseCategoryRecord[]): void {
  check(mode, 'delete-with-children', children.length > 0, () =>
    ruleFailure('hasChildren', 'id', 'A categoria possui subcategorias e não pode ser excluída.'),
  );
  for (const child of children) tx.assign(child, { idCategoriaPai: 0 });
}

function deleteCategory({ state, mode, tx }: RouteContext, id: number): void {
  const record = findById(state.categoriasReceitasDespesas, id);
  assertWritable(mode, record);
  const children = state.categoriasReceitasDespesas.filter((c) => c.idCategoriaPai === id);
  assertNotInUse(state, id);
  releaseChildren(tx, mode, children);
  removeById(tx, state.categoriasReceitasDespesas, id);
}

export const incomeExpenseCategoryRoutes: Route[] = [
  {
    method: 'GET',
    template: '/categorias/receitas-despesas',
    handle: ({ state, query, readings }) => {
      const tipo = readEnumParam(query, 'tipo', [0, 1, 2, 3]) ?? 0;
      const situacao = readEnumParam(query, 'situacao', [0, 1, 2]) ?? 0;
      // Filter tipo N returns exactly tipo N (the stricter reading); only 0 includes 4/5.
      const rows = state.categoriasReceitasDespesas
        .filter((c) => tipo === 0 || c.tipo === tipo)
        .filter((c) => situacao === 0 || (situacao === 1 ? c.situacao === 1 : c.situacao === 0))
        .sort(byId);
      // Reading categories-unpaged: the paging parameters are checked, then ignored.
      const page = paginate(rows, query);
      return ok({ data: (readings.has('categories-unpaged') ? rows : page).map(listCategory) });
    },
  },
  {
    method: 'POST',
    template: '/categorias/receitas-despesas',
    handle: (ctx) => {
      const { state, body, mode, tx } = ctx;
      const input = requireBody(body, categorySpec, mode) as unknown as CategoryInput;
      const idGrupoDre = resolveParent(ctx, input);
      const record: IncomeExpenseCategoryRecord = {
        id: allocateId(state),
        idCategoriaPai: input.idCategoriaPai,
        descricao: input.descricao,
        tipo: input.tipo,
        idGrupoDre,
        situacao: 1,
      };
      tx.push(state.categoriasReceitasDespesas, record);
      return ok({ data: listCategory(record) }, 201);
    },
  },
  {
    method: 'DELETE',
    template: '/categorias/receitas-despesas',
    handle: (ctx) => deleteInBulk(ctx.query, 'idsCategorias', (id) => deleteCategory(ctx, id)),
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
    handle: (ctx) => {
      const { state, params, body, mode, tx } = ctx;
      const record = findById(state.categoriasReceitasDespesas, params.idCategoria);
      assertWritable(mode, record);
      const input = requireBody(body, categorySpec, mode) as unknown as CategoryInput;
      const idGrupoDre = resolveParent(ctx, input, record);
      const descendants = descendantsOf(state, record.id);
      check(mode, 'child-tipo-matches-parent', input.tipo !== record.tipo && descendants.length > 0, () =>
        ruleFailure('rule', 'tipo', 'O tipo de uma categoria com subcategorias não pode ser alterado.'),
      );
      tx.assign(record, { descricao: input.descricao, tipo: input.tipo, idCategoriaPai: input.idCategoriaPai, idGrupoDre });
      for (const d of descendants) tx.assign(d, { idGrupoDre });
      return ok({ data: listCategory(record) });
    },
  },
  {
    method: 'DELETE',
    template: '/categorias/receitas-despesas/{idCategoria}',
    handle: (ctx) => {
      const id = ctx.params.idCategoria;
      if (id === undefined) throw notFound();
      deleteCategory(ctx, id);
      return noContent();
    },
  },
];
