// /formas-pagamentos: list (base fields only), detail, create, full-replacement update, delete,
// and the two PATCH actions. `padrao` and `fixa` are server-managed: the default moves only
// through PATCH …/padrao, and `fixa` (system) methods cannot be deleted.
import { ruleFailure } from '../api-error.js';
import type { ObjectSpec } from '../body-schema.js';
import { containsText, paginate, readEnumParam, readIntegerArrayParam } from '../listing.js';
import type { Route } from '../router.js';
import { noContent, ok } from '../router.js';
import type { EmulatorState, PaymentMethodRecord } from '../state.js';
import { allocateId } from '../state.js';
import { assertNotInUse, byId, findById, removeById, requireBody } from './common.js';

const tiposPagamento = [1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 90, 99] as const;
const cardTypes: readonly number[] = [3, 4];

// `padrao` and `fixa` are absent on purpose: the service manages them, so a POST or PUT that
// carries them has no effect on them (the stricter reading of "set the default with the PATCH").
const paymentMethodSpec: ObjectSpec = {
  type: 'object',
  properties: {
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
        cnpjCredenciadora: { type: 'string', default: '', pattern: { regex: /^(\d{14})?$/, hint: 'deve ter 14 dígitos' } },
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

type WritableFields = Omit<PaymentMethodRecord, 'id' | 'fixa' | 'padrao'>;

function readPaymentMethod(body: unknown): WritableFields {
  const value = requireBody(body, paymentMethodSpec) as unknown as WritableFields;
  // The spec says card data is used only for card payment types; elsewhere it is dropped, so a
  // client that expects it back sees the difference instead of a kind echo.
  if (!cardTypes.includes(value.tipoPagamento)) delete value.dadosCartao;
  return value;
}

function isDefault(state: EmulatorState, record: PaymentMethodRecord): boolean {
  return record.padrao !== 0 || state.idFormaPagamentoFiado === record.id;
}

function assertCanDeactivate(state: EmulatorState, record: PaymentMethodRecord, situacao: number): void {
  // Undocumented; we refuse like the UI does, so a retire plan must move the default first.
  if (situacao === 0 && isDefault(state, record)) {
    throw ruleFailure('rule', 'situacao', 'A forma de pagamento padrão não pode ser desativada.');
  }
}

function listPaymentMethod(record: PaymentMethodRecord): Record<string, unknown> {
  const { id, descricao, tipoPagamento, situacao, fixa, padrao, finalidade, juros, multa } = record;
  return { id, descricao, tipoPagamento, situacao, fixa, padrao, finalidade, juros, multa };
}

export const paymentMethodRoutes: Route[] = [
  {
    method: 'GET',
    template: '/formas-pagamentos',
    handle: ({ state, query }) => {
      const descricao = query.get('descricao');
      const tipos = readIntegerArrayParam(query, 'tiposPagamentos');
      const situacao = readEnumParam(query, 'situacao', [0, 1]);
      const rows = state.formasPagamentos
        .filter((r) => !descricao || containsText(r.descricao, descricao))
        .filter((r) => tipos.length === 0 || tipos.includes(r.tipoPagamento))
        .filter((r) => situacao === undefined || r.situacao === situacao)
        .sort(byId);
      return ok({ data: paginate(rows, query).map(listPaymentMethod) });
    },
  },
  {
    method: 'POST',
    template: '/formas-pagamentos',
    handle: ({ state, body }) => {
      const fields = readPaymentMethod(body);
      const record: PaymentMethodRecord = { id: allocateId(state), fixa: false, padrao: 0, ...fields };
      state.formasPagamentos.push(record);
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
    handle: ({ state, params, body }) => {
      const record = findById(state.formasPagamentos, params.idFormaPagamento);
      const fields = readPaymentMethod(body);
      assertCanDeactivate(state, record, fields.situacao);
      // Full replacement: every writable field comes from the body or its default.
      const replaced: PaymentMethodRecord = { id: record.id, fixa: record.fixa, padrao: record.padrao, ...fields };
      state.formasPagamentos[state.formasPagamentos.indexOf(record)] = replaced;
      return ok({ data: { id: record.id } });
    },
  },
  {
    method: 'DELETE',
    template: '/formas-pagamentos/{idFormaPagamento}',
    handle: ({ state, params }) => {
      const record = findById(state.formasPagamentos, params.idFormaPagamento);
      if (record.fixa) {
        throw ruleFailure('readOnlyRecord', 'fixa', 'Formas de pagamento fixas do sistema não podem ser excluídas.');
      }
      if (isDefault(state, record)) {
        throw ruleFailure('rule', 'padrao', 'A forma de pagamento padrão não pode ser excluída.');
      }
      assertNotInUse(state, record.id);
      removeById(state.formasPagamentos, record.id);
      return noContent();
    },
  },
  {
    method: 'PATCH',
    template: '/formas-pagamentos/{idFormaPagamento}/padrao',
    handle: ({ state, params, body }) => {
      const record = findById(state.formasPagamentos, params.idFormaPagamento);
      const { padrao } = requireBody(body, padraoSpec) as { padrao: 1 | 2 | 3 };
      if (record.situacao === 0) {
        throw ruleFailure('rule', 'padrao', 'Uma forma de pagamento inativa não pode ser a padrão.');
      }
      if (padrao === 3) {
        // "Fiado" has no read-side value: it is remembered apart and never shows in `padrao`.
        state.idFormaPagamentoFiado = record.id;
        return noContent();
      }
      // One default per purpose: the previous holder loses it.
      for (const other of state.formasPagamentos) {
        if (other.padrao === padrao) other.padrao = 0;
      }
      record.padrao = padrao;
      return noContent();
    },
  },
  {
    method: 'PATCH',
    template: '/formas-pagamentos/{idFormaPagamento}/situacao',
    handle: ({ state, params, body }) => {
      const record = findById(state.formasPagamentos, params.idFormaPagamento);
      const { situacao } = requireBody(body, situacaoSpec) as { situacao: number };
      assertCanDeactivate(state, record, situacao);
      record.situacao = situacao;
      return noContent();
    },
  },
];
