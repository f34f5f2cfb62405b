// /situacoes and /situacoes/modulos. There is no list of situations (GET /situacoes is 404,
// rule situations-per-module): they are listed per module. Custom situations exist only in
// modules with criarSituacoes and inherit from a base situation; built-ins (idHerdado 0) are
// immutable in strict mode. Colours of custom situations are stored lowercase. Transitions live
// in transitions.ts. Rule ids name rules.ts entries.
import { notFound, ruleFailure } from '../api-error.js';
import type { ObjectSpec } from '../body-schema.js';
import type { Route, RouteContext } from '../router.js';
import { noContent, ok } from '../router.js';
import type { EmulatorMode } from '../rules.js';
import { enforces } from '../rules.js';
import type { EmulatorState, SituationModuleRecord, SituationRecord } from '../state.js';
import { allocateId } from '../state.js';
import { assertNotInUse, byId, check, checkReference, findById, removeById, requireBody } from './common.js';
import { showTransition } from './transitions.js';

const hexColour = { regex: /^#[0-9a-fA-F]{6}$/, hint: 'deve ser uma cor no formato #RRGGBB', rule: 'hex-colour' } as const;

const situationSpec = (mode: EmulatorMode, creating: boolean): ObjectSpec => ({
  type: 'object',
  properties: {
    idModuloSistema: { type: 'integer', required: creating, min: 1 },
    nome: { type: 'string', required: true },
    idHerdado: { type: 'integer', required: enforces(mode, 'situation-base-required'), min: 1 },
    cor: { type: 'string', pattern: hexColour, default: '#ffffff' },
  },
});

interface SituationInput {
  idModuloSistema?: number;
  nome: string;
  idHerdado?: number;
  cor: string;
}

function showSituation(record: SituationRecord): Record<string, unknown> {
  return { id: record.id, nome: record.nome, idHerdado: record.idHerdado, cor: record.cor };
}

/** The base a situation inherits from; lenient mode fills an omitted one with the module's first built-in. */
function resolveBase({ state, mode }: RouteContext, idModuloSistema: number, idHerdado: number | undefined): number {
  const builtIns = state.situacoes.filter((s) => s.idHerdado === 0 && s.idModuloSistema === idModuloSistema).sort(byId);
  const id = idHerdado ?? builtIns[0]?.id ?? 0;
  check(mode, 'situation-base-builtin', !builtIns.some((s) => s.id === id), () =>
    ruleFailure('unknownReference', 'idHerdado', `A situação ${id} não é uma situação padrão deste módulo`),
  );
  return id;
}

function assertCustom(mode: EmulatorMode, record: SituationRecord): void {
  check(mode, 'builtin-situations-immutable', record.idHerdado === 0, () =>
    ruleFailure('readOnlyRecord', 'idHerdado', 'Situações padrão do sistema não podem ser alteradas nem excluídas.'),
  );
}

function createSituation(ctx: RouteContext) {
  const { state, mode, tx } = ctx;
  const input = requireBody(ctx.body, situationSpec(mode, true), mode) as unknown as SituationInput & { idModuloSistema: number };
  const module: SituationModuleRecord | undefined = state.modulos.find((m) => m.id === input.idModuloSistema);
  checkReference(mode, module !== undefined, 'idModuloSistema', `O módulo ${input.idModuloSistema} não existe`);
  // situation-module-creatable (documented, both modes).
  if (module && !module.criarSituacoes) {
    throw ruleFailure('rule', 'idModuloSistema', `O módulo ${module.nome} não permite criar situações.`);
  }
  const record: SituationRecord = {
    id: allocateId(state),
    idModuloSistema: input.idModuloSistema,
    nome: input.nome,
    idHerdado: resolveBase(ctx, input.idModuloSistema, input.idHerdado),
    // situation-colour-case: custom situations keep their colour lowercase.
    cor: input.cor.toLowerCase(),
  };
  tx.push(state.situacoes, record);
  return ok({ data: { id: record.id } }, 201);
}

function updateSituation(ctx: RouteContext) {
  const { state, params, mode, tx } = ctx;
  const record = findById(state.situacoes, params.idSituacao);
  assertCustom(mode, record);
  const input = requireBody(ctx.body, situationSpec(mode, false), mode) as unknown as SituationInput;
  check(mode, 'situation-stays-in-module', input.idModuloSistema !== undefined && input.idModuloSistema !== record.idModuloSistema, () =>
    ruleFailure('rule', 'idModuloSistema', 'Uma situação não pode mudar de módulo.'),
  );
  // A built-in edited in lenient mode stays a built-in: its idHerdado 0 is what makes it one.
  const idHerdado = record.idHerdado === 0 ? 0 : resolveBase(ctx, record.idModuloSistema, input.idHerdado);
  tx.assign(record, { nome: input.nome, idHerdado, cor: record.idHerdado === 0 ? input.cor : input.cor.toLowerCase() });
  return ok({ data: { id: record.id } });
}

function deleteSituation({ state, params, mode, tx }: RouteContext) {
  const id = params.idSituacao;
  if (id === undefined) throw notFound();
  const record = findById(state.situacoes, id);
  assertCustom(mode, record);
  const transitions = state.transicoes.filter((t) => t.idSituacaoOrigem === id || t.idSituacaoDestino === id);
  check(mode, 'situation-in-transition', transitions.length > 0, () =>
    ruleFailure('inUse', 'id', 'A situação é usada em transições e não pode ser excluída.'),
  );
  assertNotInUse(state, id);
  for (const transition of transitions) tx.remove(state.transicoes, transition);
  removeById(tx, state.situacoes, id);
  return noContent();
}

function findModule(state: EmulatorState, id: number | undefined): SituationModuleRecord {
  return findById(state.modulos, id);
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
      const rows = state.transicoes.filter((t) => t.idModuloSistema === module.id).sort(byId);
      return ok({ data: rows.map((t) => showTransition(state, t)) });
    },
  },
  { method: 'POST', template: '/situacoes', handle: createSituation },
  {
    method: 'GET',
    template: '/situacoes/{idSituacao}',
    handle: ({ state, params }) => ok({ data: showSituation(findById(state.situacoes, params.idSituacao)) }),
  },
  { method: 'PUT', template: '/situacoes/{idSituacao}', handle: updateSituation },
  { method: 'DELETE', template: '/situacoes/{idSituacao}', handle: deleteSituation },
];
