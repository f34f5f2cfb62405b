// /grupos-produtos: a tree of names. The parent is written as `grupoProdutoPai: {id}` and read
// back with the parent's name (group-parent-name). PUT replaces the record, so an omitted parent
// makes it a root (put-replaces).
import { notFound, ruleFailure } from '../api-error.js';
import type { ObjectSpec } from '../body-schema.js';
import { matchesTextFilter, paginate } from '../listing.js';
import type { Route, RouteContext } from '../router.js';
import { noContent, ok } from '../router.js';
import type { EmulatorMode } from '../rules.js';
import type { EmulatorState, ProductGroupRecord } from '../state.js';
import { allocateId } from '../state.js';
import { deleteInBulk } from './bulk-delete.js';
import { assertNotInUse, byId, check, checkReference, findById, removeById, requireBody } from './common.js';

const groupSpec: ObjectSpec = {
  type: 'object',
  properties: {
    nome: { type: 'string', required: true },
    grupoProdutoPai: {
      type: 'object',
      whenOmitted: 'absent',
      properties: { id: { type: 'integer', required: true, min: 0 } },
    },
  },
};

interface GroupInput {
  nome: string;
  grupoProdutoPai?: { id: number };
}

function showGroup(state: EmulatorState, record: ProductGroupRecord): Record<string, unknown> {
  const parent = state.gruposProdutos.find((g) => g.id === record.idGrupoPai);
  return parent
    ? { id: record.id, nome: record.nome, grupoProdutoPai: { id: parent.id, nome: parent.nome } }
    : { id: record.id, nome: record.nome };
}

function isDescendant(state: EmulatorState, candidate: number, ancestor: number): boolean {
  let current = state.gruposProdutos.find((g) => g.id === candidate);
  const seen = new Set<number>();
  while (current && current.idGrupoPai !== 0 && !seen.has(current.id)) {
    seen.add(current.id);
    if (current.idGrupoPai === ancestor) return true;
    const parentId: number = current.idGrupoPai;
    current = state.gruposProdutos.find((g) => g.id === parentId);
  }
  return false;
}

function resolveParent(state: EmulatorState, mode: EmulatorMode, input: GroupInput, selfId?: number): number {
  const id = input.grupoProdutoPai?.id ?? 0;
  if (id === 0) return 0;
  checkReference(mode, state.gruposProdutos.some((g) => g.id === id), 'grupoProdutoPai.id', `O grupo pai ${id} não existe`);
  // tree-without-cycles (both modes).
  if (selfId !== undefined && (id === selfId || isDescendant(state, id, selfId))) {
    throw ruleFailure('rule', 'grupoProdutoPai', 'Um grupo não pode ficar abaixo dele mesmo.');
  }
  return id;
}

function deleteGroup({ state, mode, tx }: RouteContext, id: number): void {
  findById(state.gruposProdutos, id);
  const children = state.gruposProdutos.filter((g) => g.idGrupoPai === id);
  check(mode, 'delete-with-children', children.length > 0, () =>
    ruleFailure('hasChildren', 'id', 'O grupo possui subgrupos e não pode ser excluído.'),
  );
  assertNotInUse(state, id);
  for (const child of children) tx.assign(child, { idGrupoPai: 0 });
  removeById(tx, state.gruposProdutos, id);
}

export const productGroupRoutes: Route[] = [
  {
    method: 'GET',
    template: '/grupos-produtos',
    handle: ({ state, query, mode }) => {
      const nome = query.get('nome');
      const nomePai = query.get('nomePai');
      const rows = state.gruposProdutos
        .filter((g) => !nome || matchesTextFilter(mode, g.nome, nome))
        .filter((g) => {
          if (!nomePai) return true;
          const parent = state.gruposProdutos.find((p) => p.id === g.idGrupoPai);
          return parent !== undefined && matchesTextFilter(mode, parent.nome, nomePai);
        })
        .sort(byId);
      return ok({ data: paginate(rows, query).map((g) => showGroup(state, g)) });
    },
  },
  {
    method: 'POST',
    template: '/grupos-produtos',
    handle: ({ state, body, mode, tx }) => {
      const input = requireBody(body, groupSpec, mode) as unknown as GroupInput;
      const record: ProductGroupRecord = { id: allocateId(state), nome: input.nome, idGrupoPai: resolveParent(state, mode, input) };
      tx.push(state.gruposProdutos, record);
      return ok({ data: { id: record.id } }, 201);
    },
  },
  {
    method: 'DELETE',
    template: '/grupos-produtos',
    handle: (ctx) => deleteInBulk(ctx.query, 'idsGruposProdutos', (id) => deleteGroup(ctx, id)),
  },
  {
    method: 'GET',
    template: '/grupos-produtos/{idGrupoProduto}',
    handle: ({ state, params }) => ok({ data: showGroup(state, findById(state.gruposProdutos, params.idGrupoProduto)) }),
  },
  {
    method: 'PUT',
    template: '/grupos-produtos/{idGrupoProduto}',
    handle: ({ state, params, body, mode, tx }) => {
      const record = findById(state.gruposProdutos, params.idGrupoProduto);
      const input = requireBody(body, groupSpec, mode) as unknown as GroupInput;
      tx.assign(record, { idGrupoPai: resolveParent(state, mode, input, record.id), nome: input.nome });
      return noContent();
    },
  },
  {
    method: 'DELETE',
    template: '/grupos-produtos/{idGrupoProduto}',
    handle: (ctx) => {
      const id = ctx.params.idGrupoProduto;
      if (id === undefined) throw notFound();
      deleteGroup(ctx, id);
      return noContent();
    },
  },
];
