// /situacoes/transicoes: the transitions between two situations of a module, the actions they
// run (ids from /situacoes/modulos/{id}/acoes) and whether they are active. Read per module with
// GET /situacoes/modulos/{id}/transicoes (situations.ts). The body is SituacoesTransicaoDTO: the
// situations' names in it are read-only echoes; a missing `modulo` is the origin's module
// (rule transition-module); references are checked in strict mode (reference-exists).
import type { ObjectSpec } from '../body-schema.js';
import type { Route, RouteContext } from '../router.js';
import { noContent, ok } from '../router.js';
import type { EmulatorState, TransitionRecord } from '../state.js';
import { allocateId } from '../state.js';
import { assertNotInUse, checkReference, findById, removeById, requireBody } from './common.js';

const situationRef: ObjectSpec = {
  type: 'object',
  required: true,
  properties: { id: { type: 'integer', required: true, min: 1 } },
};

const transitionSpec: ObjectSpec = {
  type: 'object',
  properties: {
    ativo: { type: 'boolean', default: true },
    acoes: { type: 'array', items: { type: 'integer', min: 1 } },
    modulo: { type: 'object', whenOmitted: 'absent', properties: { id: { type: 'integer', required: true, min: 1 } } },
    situacaoOrigem: situationRef,
    situacaoDestino: situationRef,
  },
};

interface TransitionInput {
  ativo: boolean;
  acoes: number[];
  modulo?: { id: number };
  situacaoOrigem: { id: number };
  situacaoDestino: { id: number };
}

export function showTransition(state: EmulatorState, t: TransitionRecord): Record<string, unknown> {
  const name = (id: number) => ({ id, nome: state.situacoes.find((s) => s.id === id)?.nome ?? '' });
  return {
    id: t.id,
    ativo: t.ativo,
    acoes: t.acoes,
    modulo: { id: t.idModuloSistema },
    situacaoOrigem: name(t.idSituacaoOrigem),
    situacaoDestino: name(t.idSituacaoDestino),
  };
}

/** Reads the body into a record's fields, checking in strict mode that everything it names exists in the module. */
function readTransition({ state, body, mode }: RouteContext): Omit<TransitionRecord, 'id'> {
  const input = requireBody(body, transitionSpec, mode) as unknown as TransitionInput;
  const origem = state.situacoes.find((s) => s.id === input.situacaoOrigem.id);
  const destino = state.situacoes.find((s) => s.id === input.situacaoDestino.id);
  const idModuloSistema = input.modulo?.id ?? origem?.idModuloSistema ?? 0;
  const module = state.modulos.find((m) => m.id === idModuloSistema);
  checkReference(mode, module !== undefined, 'modulo.id', `O módulo ${idModuloSistema} não existe`);
  checkReference(mode, origem?.idModuloSistema === idModuloSistema, 'situacaoOrigem.id', `A situação ${input.situacaoOrigem.id} não pertence ao módulo`);
  checkReference(mode, destino?.idModuloSistema === idModuloSistema, 'situacaoDestino.id', `A situação ${input.situacaoDestino.id} não pertence ao módulo`);
  const unknownAction = input.acoes.find((a) => !module?.acoes.some((m) => m.id === a));
  checkReference(mode, unknownAction === undefined, 'acoes', `A ação ${unknownAction ?? ''} não existe no módulo`);
  return {
    idModuloSistema,
    ativo: input.ativo,
    acoes: input.acoes,
    idSituacaoOrigem: input.situacaoOrigem.id,
    idSituacaoDestino: input.situacaoDestino.id,
  };
}

export const transitionRoutes: Route[] = [
  {
    method: 'POST',
    template: '/situacoes/transicoes',
    handle: (ctx) => {
      const record: TransitionRecord = { id: allocateId(ctx.state), ...readTransition(ctx) };
      ctx.tx.push(ctx.state.transicoes, record);
      return ok({ data: { id: record.id } }, 201);
    },
  },
  {
    method: 'GET',
    template: '/situacoes/transicoes/{idTransicao}',
    handle: ({ state, params }) => ok({ data: showTransition(state, findById(state.transicoes, params.idTransicao)) }),
  },
  {
    method: 'PUT',
    template: '/situacoes/transicoes/{idTransicao}',
    handle: (ctx) => {
      const record = findById(ctx.state.transicoes, ctx.params.idTransicao);
      // put-replaces: an omitted `ativo` comes back true, omitted `acoes` empty.
      ctx.tx.assign(record, readTransition(ctx));
      return ok({ data: { id: record.id } });
    },
  },
  {
    method: 'DELETE',
    template: '/situacoes/transicoes/{idTransicao}',
    handle: ({ state, params, tx }) => {
      const record = findById(state.transicoes, params.idTransicao);
      assertNotInUse(state, record.id);
      removeById(tx, state.transicoes, record.id);
      return noContent();
    },
  },
];
