// /grupos-produtos: a tree of names. The parent is written as `grupoProdutoPai: {id}` and read
// back with the parent's name. PUT replaces the record, so an omitted parent makes it a root.
import { notFound, ruleFailure, validationFailure } from '../api-error.js';
import type { ObjectSpec } from '../body-schema.js';
import { containsText, paginate } from '../listing.js';
import type { Route } from '../router.js';
import { noContent, ok } from '../router.js';
import type { EmulatorState, ProductGroupRecord } from '../state.js';
import { allocateId } from '../state.js';
import { deleteInBulk } from './bulk-delete.js';
import { assertNotInUse, byId, findById, removeById, requireBody } from './common.js';

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
  while (current && current.idGrupoPai !== 0) {
    if (current.idGrupoPai === ancestor) return true;
    const parentId: number = current.idGrupoPai;
    current = state.gruposProdutos.find((g) => g.id === parentId);
  }
  return false;
}

function resolveParent(state: EmulatorState, input: GroupInput, selfId?: number): number {
  const id = input.grupoProdutoPai?.id ?? 0;
  if (id === 0) return 0;
  if (!state.gruposProdutos.some((g) => g.id === id)) {
    throw validationFailure([{ kind: 'unknownReference', element: 'grupoProdutoPai.id', msg: `O grupo pai ${id} não existe` }]);
  }
  if (selfId !== undefined && (id === selfId || isDescendant(state, id, selfId))) {
    throw ruleFailure('rule', 'grupoProdutoPai', 'Um grupo não pode ficar abaixo dele mesmo.');
  }
  return id;
}

function deleteGroup(state: EmulatorState, id: number): void {
  findById(state.gruposProdutos, id);
  if (state.gruposProdutos.some((g) => g.idGrupoPai === id)) {
    throw ruleFailure('hasChildren', 'id', 'O grupo possui subgrupos e não pode ser excluído.');
  }
  assertNotInUse(state, id);
  removeById(state.gruposProdutos, id);
}

export const productGroupRoutes: Route[] = [
  {
    method: 'GET',
    template: '/grupos-produtos',
    handle: ({ state, query }) => {
      const nome = query.get('nome');
      const nomePai = query.get('nomePai');
      const rows = state.gruposProdutos
        .filter((g) => !nome || containsText(g.nome, nome))
        .filter((g) => {
          if (!nomePai) return true;
          const parent = state.gruposProdutos.find((p) => p.id === g.idGrupoPai);
          return parent !== undefined && containsText(parent.nome, nomePai);
        })
        .sort(byId);
      return ok({ data: paginate(rows, query).map((g) => showGroup(state, g)) });
    },
  },
  {
    method: 'POST',
    template: '/grupos-produtos',
    handle: ({ state, body }) => {
      const input = requireBody(body, groupSpec) as unknown as GroupInput;
      const record: ProductGroupRecord = { id: allocateId(state), nome: input.nome, idGrupoPai: resolveParent(state, input) };
      state.gruposProdutos.push(record);
      return ok({ data: { id: record.id } }, 201);
    },
  },
  {
    method: 'DELETE',
    template: '/grupos-produtos',
    handle: ({ state, query }) => deleteInBulk(query, 'idsGruposProdutos', (id) => deleteGroup(state, id)),
  },
  {
    method: 'GET',
    template: '/grupos-produtos/{idGrupoProduto}',
    handle: ({ state, params }) => ok({ data: showGroup(state, findById(state.gruposProdutos, params.idGrupoProduto)) }),
  },
  {
    method: 'PUT',
    template: '/grupos-produtos/{idGrupoProduto}',
    handle: ({ state, params, body }) => {
      const record = findById(state.gruposProdutos, params.idGrupoProduto);
      const input = requireBody(body, groupSpec) as unknown as GroupInput;
      record.idGrupoPai = resolveParent(state, input, record.id);
      record.nome = input.nome;
      return noContent();
    },
  },
  {
    method: 'DELETE',
    template: '/grupos-produtos/{idGrupoProduto}',
    handle: ({ state, params }) => {
      const id = params.idGrupoProduto;
      if (id === undefined) throw notFound();
      deleteGroup(state, id);
      return noContent();
    },
  },
];
