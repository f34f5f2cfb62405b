// /situacoes and /situacoes/modulos. There is no list of situations (GET /situacoes is 404):
// they are listed per module. Built-ins (idHerdado 0) are immutable; custom situations exist only
// in modules with criarSituacoes and inherit from a built-in of the same module. Colours of
// custom situations are stored lowercase, whatever case was sent.
import { notFound, ruleFailure, validationFailure } from '../api-error.js';
import type { ObjectSpec } from '../body-schema.js';
import type { Route } from '../router.js';
import { noContent, ok } from '../router.js';
import type { EmulatorState, SituationRecord } from '../state.js';
import { allocateId } from '../state.js';
import { assertNotInUse, byId, findById, removeById, requireBody } from './common.js';

const hexColour = { regex: /^#[0-9a-fA-F]{6}$/, hint: 'deve ser uma cor no formato #RRGGBB' };

const situationSpec = (moduleRequired: boolean): ObjectSpec => ({
  type: 'object',
  properties: {
    idModuloSistema: { type: 'integer', required: moduleRequired, min: 1 },
    nome: { type: 'string', required: true },
    // The spec marks nothing required; a custom situation cannot exist without its base one, so
    // requiring it here is the stricter plausible reading.
    idHerdado: { type: 'integer', required: true, min: 1 },
    cor: { type: 'string', pattern: hexColour, default: '#ffffff' },
  },
});

interface SituationInput {
  idModuloSistema?: number;
  nome: string;
  idHerdado: number;
  cor: string;
}

function showSituation(record: SituationRecord): Record<string, unknown> {
  return { id: record.id, nome: record.nome, idHerdado: record.idHerdado, cor: record.cor };
}

function findModule(state: EmulatorState, id: number | undefined) {
  return findById(state.modulos, id);
}

function checkBase(state: EmulatorState, idModuloSistema: number, idHerdado: number): void {
  const base = state.situacoes.find((s) => s.id === idHerdado);
  if (!base || base.idHerdado !== 0 || base.idModuloSistema !== idModuloSistema) {
    throw validationFailure([
      { kind: 'unknownReference', element: 'idHerdado', msg: `A situação ${idHerdado} não é uma situação padrão deste módulo` },
    ]);
  }
}

function assertCustom(record: SituationRecord): void {
  if (record.idHerdado === 0) {
    throw ruleFailure('readOnlyRecord', 'idHerdado', 'Situações padrão do sistema não podem ser alteradas nem excluídas.');
  }
}

export const situationRoutes: Route[] = [
  {
    method: 'GET',
    template: '/situacoes/modulos',
    handle: ({ state }) =>
      ok({ data: [...state.modulos].sort(byId).map(({ id, nome, descricao, criarSituacoes }) => ({ id, nome, descricao, criarSituacoes })) }),
  },
  {
    method: 'GET',
    template: '/situacoes/modulos/{idModuloSistema}',
    handle: ({ state, params }) => {
      const module = findModule(state, params.idModuloSistema);
      const rows = state.situacoes.filter((s) => s.idModuloSistema === module.id).sort(byId);
      return ok({ data: rows.map(showSituation) });
    },
  },
  {
    method: 'GET',
    template: '/situacoes/modulos/{idModuloSistema}/acoes',
    handle: ({ state, params }) => ok({ data: findModule(state, params.idModuloSistema).acoes }),
  },
  {
    method: 'GET',
    template: '/situacoes/modulos/{idModuloSistema}/transicoes',
    handle: ({ state, params }) => {
      const module = findModule(state, params.idModuloSistema);
      const name = (id: number) => ({ id, nome: state.situacoes.find((s) => s.id === id)?.nome ?? '' });
      const rows = state.transicoes.filter((t) => t.idModuloSistema === module.id).sort(byId);
      return ok({
        data: rows.map((t) => ({
          id: t.id,
          ativo: t.ativo,
          acoes: t.acoes,
          modulo: { id: t.idModuloSistema },
          situacaoOrigem: name(t.idSituacaoOrigem),
          situacaoDestino: name(t.idSituacaoDestino),
        })),
      });
    },
  },
  {
    method: 'POST',
    template: '/situacoes',
    handle: ({ state, body }) => {
      const input = requireBody(body, situationSpec(true)) as unknown as SituationInput & { idModuloSistema: number };
      const module = state.modulos.find((m) => m.id === input.idModuloSistema);
      if (!module) {
        throw validationFailure([{ kind: 'unknownReference', element: 'idModuloSistema', msg: `O módulo ${input.idModuloSistema} não existe` }]);
      }
      if (!module.criarSituacoes) {
        throw ruleFailure('rule', 'idModuloSistema', `O módulo ${module.nome} não permite criar situações.`);
      }
      checkBase(state, module.id, input.idHerdado);
      const record: SituationRecord = {
        id: allocateId(state),
        idModuloSistema: module.id,
        nome: input.nome,
        idHerdado: input.idHerdado,
        cor: input.cor.toLowerCase(),
      };
      state.situacoes.push(record);
      return ok({ data: { id: record.id } }, 201);
    },
  },
  {
    method: 'GET',
    template: '/situacoes/{idSituacao}',
    handle: ({ state, params }) => ok({ data: showSituation(findById(state.situacoes, params.idSituacao)) }),
  },
  {
    method: 'PUT',
    template: '/situacoes/{idSituacao}',
    handle: ({ state, params, body }) => {
      const record = findById(state.situacoes, params.idSituacao);
      assertCustom(record);
      const input = requireBody(body, situationSpec(false)) as unknown as SituationInput;
      if (input.idModuloSistema !== undefined && input.idModuloSistema !== record.idModuloSistema) {
        throw ruleFailure('rule', 'idModuloSistema', 'Uma situação não pode mudar de módulo.');
      }
      checkBase(state, record.idModuloSistema, input.idHerdado);
      Object.assign(record, { nome: input.nome, idHerdado: input.idHerdado, cor: input.cor.toLowerCase() });
      return ok({ data: { id: record.id } });
    },
  },
  {
    method: 'DELETE',
    template: '/situacoes/{idSituacao}',
    handle: ({ state, params }) => {
      const id = params.idSituacao;
      if (id === undefined) throw notFound();
      const record = findById(state.situacoes, id);
      assertCustom(record);
      if (state.transicoes.some((t) => t.idSituacaoOrigem === id || t.idSituacaoDestino === id)) {
        throw ruleFailure('inUse', 'id', 'A situação é usada em transições e não pode ser excluída.');
      }
      assertNotInUse(state, id);
      removeById(state.situacoes, id);
      return noContent();
    },
  },
];
