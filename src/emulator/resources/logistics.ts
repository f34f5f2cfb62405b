// /logisticas and /logisticas/servicos. Logistics use 'H'/'D' for situacao; their PUT changes
// only descricao and situacao (rule logistics-shape), and services are managed through
// /logisticas/servicos, never deleted (services-not-deletable) but switched with PATCH
// /logisticas/{idServico}/situacoes (service-activation-paths). In strict mode native
// integrations (Correios …) belong to the carrier: their services cannot be created or edited and
// the logistics cannot be deleted (native-logistics-read-only). The detail hides inactive
// services unless asked.
import { ApiFailure, notFound, ruleFailure, validationFailure } from '../api-error.js';
import type { ObjectSpec } from '../body-schema.js';
import { paginate, readBooleanParam, readEnumParam } from '../listing.js';
import type { Route, RouteContext } from '../router.js';
import { noContent, ok } from '../router.js';
import type { EmulatorMode } from '../rules.js';
import type { EmulatorState, LogisticsRecord, LogisticsServiceRecord } from '../state.js';
import { allocateId } from '../state.js';
import { assertNotInUse, byId, check, checkReference, findById, removeById, requireBody } from './common.js';

const tiposIntegracao = [
  'AmazonDBA', 'B2WEntrega', 'B2WO2O', 'Correios', 'CorreiosLog', 'CustomLogistic', 'DafitiMilkrun', 'Envvias', 'Frenet',
  'FreteDescomplicado', 'Intelipost', 'Jadlog', 'Jamef', 'Kangu', 'LogisticaAliExpress', 'LogisticaShopee', 'Loggi',
  'MagaluEntregas', 'Mandae', 'MelhorEnvio', 'MercadoEnvios', 'OlistFulfillment', 'TotalExpress',
] as const;

const situacaoLogistica = ['H', 'D'] as const;

const carrierSpec: ObjectSpec = {
  type: 'object',
  whenOmitted: 'absent',
  properties: { id: { type: 'integer', required: true, min: 0 } },
};

/** A service nested in POST /logisticas: only descricao is required there. */
const nestedServiceSpec: ObjectSpec = {
  type: 'object',
  properties: {
    descricao: { type: 'string', required: true },
    freteItem: { type: 'number', min: 0, default: 0 },
    estimativaEntrega: { type: 'integer', min: 0, default: 0 },
    codigo: { type: 'string', default: '' },
    transportador: carrierSpec,
    aliases: { type: 'array', items: { type: 'string' } },
    ativo: { type: 'boolean', default: true },
  },
};

const logisticsCreateSpec: ObjectSpec = {
  type: 'object',
  properties: {
    descricao: { type: 'string', required: true },
    situacao: { type: 'string', required: true, enum: situacaoLogistica },
    servicos: { type: 'array', items: nestedServiceSpec },
  },
};

const logisticsUpdateSpec: ObjectSpec = {
  type: 'object',
  properties: {
    descricao: { type: 'string', required: true },
    situacao: { type: 'string', required: true, enum: situacaoLogistica },
  },
};

/** The body of /logisticas/servicos create and update: five fields are required here. */
const serviceSpec: ObjectSpec = {
  type: 'object',
  properties: {
    descricao: { type: 'string', required: true },
    codigo: { type: 'string', required: true },
    aliases: { type: 'array', required: true, items: { type: 'string' } },
    ativo: { type: 'boolean', default: true },
    freteItem: { type: 'number', required: true, min: 0 },
    estimativaEntrega: { type: 'integer', required: true, min: 0 },
    idCodigoServico: { type: 'string', default: '' },
    transportador: carrierSpec,
  },
};

const serviceCreateSpec: ObjectSpec = {
  type: 'object',
  properties: {
    logistica: { type: 'object', required: true, properties: { id: { type: 'integer', required: true, min: 1 } } },
    servicos: { type: 'array', required: true, items: serviceSpec },
  },
};

const serviceUpdateSpec: ObjectSpec = {
  type: 'object',
  properties: {
    ...serviceSpec.properties,
    logistica: { type: 'object', whenOmitted: 'absent', properties: { id: { type: 'integer', required: true, min: 1 } } },
  },
};

const activationSpec: ObjectSpec = {
  type: 'object',
  properties: { ativo: { type: 'boolean', required: true } },
};

interface ServiceInput {
  descricao: string;
  codigo: string;
  aliases: string[];
  ativo: boolean;
  freteItem: number;
  estimativaEntrega: number;
  idCodigoServico?: string;
  transportador?: { id: number };
  logistica?: { id: number };
}

function servicesOf(state: EmulatorState, idLogistica: number, includeInactive: boolean): LogisticsServiceRecord[] {
  return state.servicosLogisticas.filter((s) => s.idLogistica === idLogistica && (includeInactive || s.ativo)).sort(byId);
}

function showLogisticsBase(record: LogisticsRecord): Record<string, unknown> {
  return {
    id: record.id,
    descricao: record.descricao,
    tipoIntegracao: record.tipoIntegracao,
    integracaoNativa: record.integracaoNativa,
    situacao: record.situacao,
    integracao: { id: record.idIntegracao },
  };
}

function showService(record: LogisticsServiceRecord): Record<string, unknown> {
  return {
    id: record.id,
    descricao: record.descricao,
    codigo: record.codigo,
    aliases: record.aliases,
    ativo: record.ativo,
    freteItem: record.freteItem,
    estimativaEntrega: record.estimativaEntrega,
    idCodigoServico: record.idCodigoServico,
    logistica: { id: record.idLogistica },
    transportador: { id: record.idTransportador },
  };
}

function showServiceInLogistics(record: LogisticsServiceRecord): Record<string, unknown> {
  return {
    id: record.id,
    descricao: record.descricao,
    freteItem: record.freteItem,
    estimativaEntrega: record.estimativaEntrega,
    codigo: record.codigo,
    logistica: { id: record.idLogistica },
    transportador: { id: record.idTransportador },
    aliases: record.aliases,
    ativo: record.ativo,
  };
}

function assertNotNative(mode: EmulatorMode, logistics: LogisticsRecord | undefined, element: string): void {
  check(mode, 'native-logistics-read-only', logistics?.integracaoNativa === true, () =>
    ruleFailure('readOnlyRecord', element, `Os serviços da integração nativa ${logistics?.tipoIntegracao ?? ''} não podem ser criados nem alterados.`),
  );
}

function newService(state: EmulatorState, idLogistica: number, input: ServiceInput): LogisticsServiceRecord {
  return { id: allocateId(state), ...serviceFields(idLogistica, input) };
}

function serviceFields(idLogistica: number, input: ServiceInput): Omit<LogisticsServiceRecord, 'id'> {
  return {
    idLogistica,
    descricao: input.descricao,
    codigo: input.codigo,
    aliases: input.aliases,
    ativo: input.ativo,
    freteItem: input.freteItem,
    estimativaEntrega: input.estimativaEntrega,
    idCodigoServico: input.idCodigoServico ?? '',
    idTransportador: input.transportador?.id ?? 0,
  };
}

function setServiceActivation({ state, params, body, mode, tx }: RouteContext) {
  const service = findById(state.servicosLogisticas, params.idLogisticaServico);
  const { ativo } = requireBody(body, activationSpec, mode) as { ativo: boolean };
  // Switching a native carrier's service on or off is how its services are chosen, so unlike
  // editing it this is allowed for native integrations too.
  tx.assign(service, { ativo });
  return noContent();
}

/**
 * The spec names 404, not 400, as the error of this listing (the service interface repeats it:
 * "listings answer 404 for … logistics"), so a rejected filter answers 404 here.
 */
function readLogisticsFilters(query: URLSearchParams) {
  try {
    return {
      tipo: readEnumParam(query, 'tipoIntegracao', tiposIntegracao),
      tipos: query.getAll('tiposIntegracoes[]'),
      situacao: readEnumParam(query, 'situacao', situacaoLogistica),
      reversas: readBooleanParam(query, 'logisticasReversas') === true,
    };
  } catch (error) {
    if (error instanceof ApiFailure) throw notFound(error.payload.fields?.[0]?.msg ?? error.payload.description);
    throw error;
  }
}

export const logisticsRoutes: Route[] = [
  {
    method: 'GET',
    template: '/logisticas',
    handle: ({ state, query, readings }) => {
      const { tipo, tipos, situacao, reversas } = readLogisticsFilters(query);
      // Rule reverse-logistics-filter: `true` narrows to reverse logistics, otherwise no filter —
      // unless the reading reverse-logistics-hidden takes the default `false` as "not reverse".
      const reverseMatches = (l: LogisticsRecord) => (reversas ? l.reversa : !l.reversa || !readings.has('reverse-logistics-hidden'));
      const rows = state.logisticas
        // tipoIntegracao overrides logisticasReversas, as documented.
        .filter((l) => (tipo !== undefined ? l.tipoIntegracao === tipo : reverseMatches(l)))
        .filter((l) => tipos.length === 0 || tipos.includes(l.tipoIntegracao))
        .filter((l) => situacao === undefined || l.situacao === situacao)
        .sort(byId);
      // The list names only active services, like the detail without listarServicosInativos.
      return ok({
        data: paginate(rows, query).map((l) => ({ ...showLogisticsBase(l), servicos: servicesOf(state, l.id, false).map((s) => ({ id: s.id })) })),
      });
    },
  },
  {
    method: 'POST',
    template: '/logisticas',
    handle: ({ state, body, mode, tx }) => {
      const input = requireBody(body, logisticsCreateSpec, mode) as unknown as {
        descricao: string;
        situacao: 'H' | 'D';
        servicos: (Omit<ServiceInput, 'aliases'> & { aliases: string[] })[];
      };
      const record: LogisticsRecord = {
        id: allocateId(state),
        descricao: input.descricao,
        tipoIntegracao: 'CustomLogistic',
        integracaoNativa: false,
        situacao: input.situacao,
        idIntegracao: allocateId(state),
        reversa: false,
      };
      tx.push(state.logisticas, record);
      for (const service of input.servicos) tx.push(state.servicosLogisticas, newService(state, record.id, service));
      return ok({ data: { id: record.id } }, 201);
    },
  },
  {
    method: 'GET',
    template: '/logisticas/servicos',
    handle: ({ state, query }) => {
      const tipo = readEnumParam(query, 'tipoIntegracao', tiposIntegracao);
      const rows = state.servicosLogisticas
        .filter((s) => tipo === undefined || state.logisticas.find((l) => l.id === s.idLogistica)?.tipoIntegracao === tipo)
        .sort(byId);
      return ok({ data: paginate(rows, query).map(showService) });
    },
  },
  {
    method: 'POST',
    template: '/logisticas/servicos',
    handle: ({ state, body, mode, tx }) => {
      const input = requireBody(body, serviceCreateSpec, mode) as unknown as { logistica: { id: number }; servicos: ServiceInput[] };
      const logistics = state.logisticas.find((l) => l.id === input.logistica.id);
      checkReference(mode, logistics !== undefined, 'logistica.id', `A logística ${input.logistica.id} não existe`);
      assertNotNative(mode, logistics, 'logistica.id');
      check(mode, 'services-non-empty', input.servicos.length === 0, () =>
        validationFailure([{ kind: 'missing', element: 'servicos', msg: 'Informe ao menos um serviço' }]),
      );
      const created = input.servicos.map((s) => newService(state, input.logistica.id, s));
      for (const service of created) tx.push(state.servicosLogisticas, service);
      return ok({ data: created.map((s) => ({ id: s.id })) }, 201);
    },
  },
  {
    method: 'GET',
    template: '/logisticas/servicos/{idLogisticaServico}',
    handle: ({ state, params }) => ok({ data: showService(findById(state.servicosLogisticas, params.idLogisticaServico)) }),
  },
  {
    method: 'PUT',
    template: '/logisticas/servicos/{idLogisticaServico}',
    handle: ({ state, params, body, mode, tx }) => {
      const service = findById(state.servicosLogisticas, params.idLogisticaServico);
      assertNotNative(mode, state.logisticas.find((l) => l.id === service.idLogistica), 'id');
      const input = requireBody(body, serviceUpdateSpec, mode) as unknown as ServiceInput;
      check(mode, 'service-stays-in-logistics', input.logistica !== undefined && input.logistica.id !== service.idLogistica, () =>
        ruleFailure('rule', 'logistica.id', 'Um serviço não pode mudar de logística.'),
      );
      // put-replaces: an omitted `ativo` comes back true, an omitted carrier becomes 0. The id
      // comes from the record, so the sequence does not move.
      const replaced: LogisticsServiceRecord = { ...serviceFields(service.idLogistica, input), id: service.id };
      tx.replace(state.servicosLogisticas, service, replaced);
      return ok({ data: { id: service.id } });
    },
  },
  {
    method: 'PATCH',
    template: '/logisticas/servicos/{idLogisticaServico}/situacoes',
    handle: setServiceActivation,
  },
  {
    method: 'PATCH',
    template: '/logisticas/{idLogisticaServico}/situacoes',
    handle: setServiceActivation,
  },
  {
    method: 'GET',
    template: '/logisticas/{idLogistica}',
    handle: ({ state, params, query }) => {
      const record = findById(state.logisticas, params.idLogistica);
      const includeInactive = readBooleanParam(query, 'listarServicosInativos') ?? false;
      return ok({ data: { ...showLogisticsBase(record), servicos: servicesOf(state, record.id, includeInactive).map(showServiceInLogistics) } });
    },
  },
  {
    method: 'PUT',
    template: '/logisticas/{idLogistica}',
    handle: ({ state, params, body, mode, tx }) => {
      const record = findById(state.logisticas, params.idLogistica);
      const input = requireBody(body, logisticsUpdateSpec, mode) as unknown as { descricao: string; situacao: 'H' | 'D' };
      tx.assign(record, { descricao: input.descricao, situacao: input.situacao });
      return { status: 200 };
    },
  },
  {
    method: 'DELETE',
    template: '/logisticas/{idLogistica}',
    handle: ({ state, params, mode, tx }) => {
      const id = params.idLogistica;
      if (id === undefined) throw notFound();
      const record = findById(state.logisticas, id);
      check(mode, 'native-logistics-read-only', record.integracaoNativa, () =>
        ruleFailure('readOnlyRecord', 'id', `A integração nativa ${record.tipoIntegracao} não pode ser excluída; desabilite-a.`),
      );
      assertNotInUse(state, id);
      // services-not-deletable: services have no DELETE of their own, so they go with their logistics.
      for (const service of state.servicosLogisticas.filter((s) => s.idLogistica === id)) tx.remove(state.servicosLogisticas, service);
      removeById(tx, state.logisticas, id);
      return { status: 200 };
    },
  },
];
