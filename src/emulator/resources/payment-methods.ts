// /formas-pagamentos: list (base fields only), detail, create, full-replacement update, delete,
// and the two PATCH actions. `fixa` is read-only; `padrao` is writable in bodies as the schema
// says and through PATCH …/padrao, and is one-per-purpose. Rule ids name rules.ts entries.
import { ruleFailure } from '../api-error.js';
import type { ObjectSpec } from '../body-schema.js';
import { matchesTextFilter, paginate, readEnumParam, readIntegerArrayParam } from '../listing.js';
import type { Route } from '../router.js';
import type { RouteContext } from '../router.js';
import { noContent, ok } from '../router.js';
import type { EmulatorMode } from '../rules.js';
import { enforces } from '../rules.js';
import type { EmulatorState, PaymentMethodRecord } from '../state.js';
import { allocateId } from '../state.js';
import { assertNotInUse, byId, check, findById, removeById, requireBody } from './common.js';

const tiposPagamento = [1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 90, 99] as const;
const cardTypes: readonly number[] = [3, 4];

// `fixa` is absent on purpose: it is readOnly in the schema (unknown-members-ignored). `padrao`
// has no default: a PUT without it keeps the current one (padrao-in-body), or loses it under the
// reading put-resets-padrao.
const paymentMethodSpec: ObjectSpec = {
  type: 'object',
  properties: {
    padrao: { type: 'integer', enum: [0, 1, 2] },
    descricao: { type: 'string', required: true },
    tipoPagamento: { type: 'integer', required: true, enum: tiposPagamento },
    finalidade: { type: 'integer', required: true, enum: [1, 2, 3] },
    destino: { type: 'integer', required: true, enum: [1, 2, 3] },
    situacao: { type: 'integer', enum: [0, 1], default: 1 },
    juros: { type: 'number', min: 0, default: 0 },
    multa: { type: 'number', min: 0, default: 0 },
    condicao: { type: 'string', default: '' },
    utilizaDiasUteis: { type: 'boolean', default: false },
    taxas: {
      type: 'object',
      properties: {
        aliquota: { type: 'number', min: 0, default: 0 },
        valor: { type: 'number', min: 0, default: 0 },
        prazo: { type: 'integer', min: 0, default: 0 },
      },
    },
    dadosCartao: {
      type: 'object',
      whenOmitted: 'absent',
      properties: {
        bandeira: { type: 'integer', required: true, enum: [1, 2, 3, 4, 5, 6, 7, 8, 9, 99] },
        tipo: { type: 'integer', required: true, enum: [1, 2] },
        cnpjCredenciadora: { type: 'string', default: '', pattern: { regex: /^(\d{14})?$/, hint: 'deve ter 14 dígitos', rule: 'cnpj-digits' } },
        autoLiquidacao: { type: 'integer', enum: [0, 1], default: 0 },
      },
    },
  },
};

const situacaoSpec: ObjectSpec = {
  type: 'object',
  properties: { situacao: { type: 'integer', required: true, enum: [0, 1] } },
};

const padraoSpec: ObjectSpec = {
  type: 'object',
  properties: { padrao: { type: 'integer', required: true, enum: [1, 2, 3] } },
};

type WritableFields = Omit<PaymentMethodRecord, 'id' | 'fixa' | 'padrao'> & { padrao?: number };

function readPaymentMethod(body: unknown, mode: EmulatorMode): WritableFields {
  const value = requireBody(body, paymentMethodSpec, mode) as unknown as WritableFields;
  // card-data-card-types: the spec uses card data only for card payment types; strict mode drops
  // it elsewhere, so a client that expects it back sees the difference instead of a kind echo.
  if (!cardTypes.includes(value.tipoPagamento) && enforces(mode, 'card-data-card-types')) delete value.dadosCartao;
  return value;
}

function isDefault(state: EmulatorState, record: PaymentMethodRecord): boolean {
  return record.padrao !== 0 || state.idFormaPagamentoFiado === record.id;
}

function assertCanDeactivate(state: EmulatorState, mode: EmulatorMode, record: PaymentMethodRecord, situacao: number): void {
  check(mode, 'default-stays-active', situacao === 0 && isDefault(state, record), () =>
    ruleFailure('rule', 'situacao', 'A forma de pagamento padrão não pode ser desativada.'),
  );
}

/** padrao-one-per-purpose: the method that held default `padrao` (1 or 2) loses it. */
function takeDefault({ state, tx }: RouteContext, record: PaymentMethodRecord, padrao: number): void {
  if (padrao !== 0) {
    for (const other of state.formasPagamentos) if (other !== record && other.padrao === padrao) tx.assign(other, { padrao: 0 });
  }
  tx.assign(record, { padrao });
}

function listPaymentMethod(record: PaymentMethodRecord): Record<string, unknown> {
  const { id, descricao, tipoPagamento, situacao, fixa, padrao, finalidade, juros, multa } = record;
  return { id, descricao, tipoPagamento, situacao, fixa, padrao, finalidade, juros, multa };
}

export const paymentMethodRoutes: Route[] = [
  {
    method: 'GET',
    template: '/formas-pagamentos',
    handle: ({ state, query, mode }) => {
      const descricao = query.get('descricao');
      const tipos = readIntegerArrayParam(query, 'tiposPagamentos');
      const situacao = readEnumParam(query, 'situacao', [0, 1]);
      const rows = state.formasPagamentos
        .filter((r) => !descricao || matchesTextFilter(mode, r.descricao, descricao))
        .filter((r) => tipos.length === 0 || tipos.includes(r.tipoPagamento))
        .filter((r) => situacao === undefined || r.situacao === situacao)
        .sort(byId);
      return ok({ data: paginate(rows, query).map(listPaymentMethod) });
    },
  },
  {
    method: 'POST',
    template: '/formas-pagamentos',
    handle: (ctx) => {
      const { padrao = 0, ...fields } = readPaymentMethod(ctx.body, ctx.mode);
      const record: PaymentMethodRecord = { id: allocateId(ctx.state), fixa: false, padrao: 0, ...fields };
      ctx.tx.push(ctx.state.formasPagamentos, record);
      takeDefault(ctx, record, padrao);
      return ok({ data: { id: record.id } }, 201);
    },
  },
  {
    method: 'GET',
    template: '/formas-pagamentos/{idFormaPagamento}',
    handle: ({ state, params }) => ok({ data: findById(state.formasPagamentos, params.idFormaPagamento) }),
  },
  {
    method: 'PUT',
    template: '/formas-pagamentos/{idFormaPagamento}',
    handle: (ctx) => {
      const { state, params, mode, tx } = ctx;
      const record = findById(state.formasPagamentos, params.idFormaPagamento);
      // padrao-in-body keeps an omitted padrao; the reading put-resets-padrao zeroes it.
      const omitted = ctx.readings.has('put-resets-padrao') ? 0 : record.padrao;
      const { padrao = omitted, ...fields } = readPaymentMethod(ctx.body, mode);
      assertCanDeactivate(state, mode, record, fields.situacao);
      // put-replaces: every writable field comes from the body or its default.
      const replaced: PaymentMethodRecord = { id: record.id, fixa: record.fixa, padrao: record.padrao, ...fields };
      tx.replace(state.formasPagamentos, record, replaced);
      if (padrao !== record.padrao) takeDefault(ctx, replaced, padrao);
      return ok({ data: { id: record.id } });
    },
  },
  {
    method: 'DELETE',
    template: '/formas-pagamentos/{idFormaPagamento}',
    handle: ({ state, params, mode, tx }) => {
      const record = findById(state.formasPagamentos, params.idFormaPagamento);
      check(mode, 'fixa-not-deletable', record.fixa, () =>
        ruleFailure('readOnlyRecord', 'fixa', 'Formas de pagamento fixas do sistema não podem ser excluídas.'),
      );
      check(mode, 'default-stays-active', isDefault(state, record), () =>
        ruleFailure('rule', 'padrao', 'A forma de pagamento padrão não pode ser excluída.'),
      );
      assertNotInUse(state, record.id);
      removeById(tx, state.formasPagamentos, record.id);
      if (state.idFormaPagamentoFiado === record.id) tx.assign(state, { idFormaPagamentoFiado: 0 });
      return noContent();
    },
  },
  {
    method: 'PATCH',
    template: '/formas-pagamentos/{idFormaPagamento}/padrao',
    handle: (ctx) => {
      const { state, params, mode, tx } = ctx;
      const record = findById(state.formasPagamentos, params.idFormaPagamento);
      const { padrao } = requireBody(ctx.body, padraoSpec, mode) as { padrao: 1 | 2 | 3 };
      check(mode, 'inactive-not-default', record.situacao === 0, () =>
        ruleFailure('rule', 'padrao', 'Uma forma de pagamento inativa não pode ser a padrão.'),
      );
      if (padrao === 3) {
        // padrao-fiado: no read-side value, so it is remembered apart and never shows in `padrao`.
        tx.assign(state, { idFormaPagamentoFiado: record.id });
        return noContent();
      }
      takeDefault(ctx, record, padrao);
      return noContent();
    },
  },
  {
    method: 'PATCH',
    template: '/formas-pagamentos/{idFormaPagamento}/situacao',
    handle: ({ state, params, body, mode, tx }) => {
      const record = findById(state.formasPagamentos, params.idFormaPagamento);
      const { situacao } = requireBody(body, situacaoSpec, mode) as { situacao: number };
      assertCanDeactivate(state, mode, record, situacao);
      tx.assign(record, { situacao });
      return noContent();
    },
  },
];
