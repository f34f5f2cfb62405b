// Payment methods (/formas-pagamentos): the manifest record, its schema and label tables, the
// checks across records the schema cannot express (card data only on card types, one default
// per purpose), and the adapter that reads and writes them. Identity is `descricao`. The list
// omits destino, condicao, utilizaDiasUteis, taxas and dadosCartao, so a detail is read only for
// records whose manifest sets one of those (whether they were listed or found by `descricao=`); `situacao` and `padrao` move through their own PATCH
// calls (the padrao PATCH has its own enum), PUT always carries the whole merged record, and
// `fixa` methods are the account's own. Export leaves out what a create would set by itself.
// No other kind's quirks here.
import type { ApiClient } from '../api/client.js';
import { ErpsyncError } from '../model/errors.js';
import {
  compact,
  deleteOperation,
  executeByAction,
  fetchDetails,
  isPlainRecord,
  mergeRecords,
  postRecord,
  readBoolean,
  readInteger,
  readName,
  readListOrSearch,
  readNumber,
  requireLiveId,
  setsAnyField,
  soughtKeys,
  writesAnyField,
} from './live-helpers.js';
import type { NameSearch } from './live-helpers.js';
import type { FieldTypes } from '../model/field-types.js';
import { code, decimal } from '../model/field-types.js';
import type { Coded, FieldTable, FieldTableEntry, ToolKeys } from './shared-schema.js';
import { cnpjPattern, defineEnum, defineListRecord, defineName, defineObject, toolKeyFields, erpsyncNameLimit } from './shared-schema.js';
import type { Change, FieldChange } from '../model/plan.js';
import type { DesiredUnit, ManifestRecord } from '../model/desired.js';
import type { LiveRecord } from '../model/live.js';
import { defineKind } from './kind.js';
import { selectDetailReads } from './desired-units.js';
import type { CheckFinding, ReadScope, WriteContext, LengthLimit } from './kind.js';

export const tipoPagamentoLabels = {
  dinheiro: 1,
  cheque: 2,
  'cartao-credito': 3,
  'cartao-debito': 4,
  'cartao-loja': 5,
  'vale-alimentacao': 10,
  'vale-refeicao': 11,
  'vale-presente': 12,
  'vale-combustivel': 13,
  'duplicata-mercantil': 14,
  boleto: 15,
  'deposito-bancario': 16,
  'pix-dinamico': 17,
  transferencia: 18,
  cashback: 19,
  'pix-estatico': 20,
  'credito-loja': 21,
  'pagamento-eletronico-nao-informado': 22,
  'sem-pagamento': 90,
  outros: 99,
} as const;

export const situacaoFormaPagamentoLabels = { ativa: 1, inativa: 0 } as const;
export const padraoLabels = { nenhum: 0, padrao: 1, 'padrao-devolucao': 2, fiado: 3 } as const;
export const finalidadeLabels = { pagamentos: 1, recebimentos: 2, 'pagamentos-e-recebimentos': 3 } as const;
export const destinoLabels = { contas: 1, 'ficha-financeira': 2, 'caixa-e-bancos': 3 } as const;
export const bandeiraLabels = {
  visa: 1,
  mastercard: 2,
  'american-express': 3,
  sorocred: 4,
  'diners-club': 5,
  elo: 6,
  hipercard: 7,
  aura: 8,
  cabal: 9,
  outras: 99,
} as const;
export const tipoCartaoLabels = { tef: 1, pos: 2 } as const;
export const autoLiquidacaoLabels = { nao: 0, sim: 1 } as const;

export interface TaxasManifest {
  aliquota?: number;
  valor?: number;
  prazo?: number;
}

export interface DadosCartaoManifest {
  bandeira: Coded<typeof bandeiraLabels>;
  tipo: Coded<typeof tipoCartaoLabels>;
  cnpjCredenciadora?: string;
  autoLiquidacao?: Coded<typeof autoLiquidacaoLabels>;
}

export interface FormaPagamentoManifest extends ToolKeys {
  descricao: string;
  /** Required unless `ensure: absent` (so are finalidade and destino). */
  tipoPagamento?: Coded<typeof tipoPagamentoLabels>;
  finalidade?: Coded<typeof finalidadeLabels>;
  destino?: Coded<typeof destinoLabels>;
  situacao?: Coded<typeof situacaoFormaPagamentoLabels>;
  padrao?: Coded<typeof padraoLabels>;
  juros?: number;
  multa?: number;
  condicao?: string;
  utilizaDiasUteis?: boolean;
  taxas?: TaxasManifest;
  dadosCartao?: DadosCartaoManifest;
}

/** tipoPagamento codes that accept `dadosCartao` (credit and debit card). */
const cardPaymentTypes: readonly number[] = [tipoPagamentoLabels['cartao-credito'], tipoPagamentoLabels['cartao-debito']];

const tipoPagamento = defineEnum({
  path: ['tipoPagamento'],
  labels: tipoPagamentoLabels,
  summary: 'Fiscal payment type (the NF-e tPag table). Required unless ensure is absent.',
});
const finalidade = defineEnum({
  path: ['finalidade'],
  labels: finalidadeLabels,
  summary: 'What the method is used for: paying, receiving, or both. Required unless ensure is absent.',
});
const destino = defineEnum({
  path: ['destino'],
  labels: destinoLabels,
  summary:
    'Where postings made with this method go: accounts payable/receivable, the customer ledger, or cash and banks. Required unless ensure is absent.',
});
const situacao = defineEnum({
  path: ['situacao'],
  labels: situacaoFormaPagamentoLabels,
  summary: 'Whether the method is active. An inactive method cannot be chosen in new documents.',
});
const padrao = defineEnum({
  path: ['padrao'],
  labels: padraoLabels,
  summary:
    'Marks the account default (one per account), the default for returns (one per account), or 3 fiado, the default for sales on credit. Setting it on one method clears it on the method that had it. The API never reads fiado back, so it is set when the method is created and never compared afterwards.',
});
const bandeira = defineEnum({ path: ['dadosCartao', 'bandeira'], labels: bandeiraLabels, summary: 'Card brand.' });
const tipoCartao = defineEnum({
  path: ['dadosCartao', 'tipo'],
  labels: tipoCartaoLabels,
  summary: 'How card payments are captured: TEF (integrated terminal) or POS (stand-alone machine).',
});
const autoLiquidacao = defineEnum({
  path: ['dadosCartao', 'autoLiquidacao'],
  labels: autoLiquidacaoLabels,
  summary: 'Whether card receivables are settled automatically.',
});

const taxasFields = {
  aliquota: { type: 'number', minimum: 0, description: 'Fee as a percentage of each installment.' },
  valor: { type: 'number', minimum: 0, description: 'Fixed fee in BRL added to each installment.' },
  prazo: { type: 'integer', minimum: 0, description: 'Days the money is held before it can be moved.' },
} as const satisfies FieldTable<TaxasManifest>;

const dadosCartaoFields = {
  bandeira: bandeira.schema,
  tipo: tipoCartao.schema,
  cnpjCredenciadora: {
    type: 'string',
    pattern: cnpjPattern,
    description: "CNPJ of the card acquirer, 14 digits or formatted 00.000.000/0000-00; empty for none.",
  },
  autoLiquidacao: autoLiquidacao.schema,
} as const satisfies FieldTable<DadosCartaoManifest>;

/** The longest descricao the kind takes (docs/manifest.md, "Name lengths"). */
export const formasPagamentosLengthLimits = { descricao: erpsyncNameLimit } as const satisfies Readonly<Record<string, LengthLimit>>;

const fields = {
  descricao: defineName('Name of the payment method as users see it; identifies the record. Required.', formasPagamentosLengthLimits.descricao),
  tipoPagamento: tipoPagamento.schema,
  finalidade: finalidade.schema,
  destino: destino.schema,
  situacao: situacao.schema,
  padrao: padrao.schema,
  juros: { type: 'number', minimum: 0, description: 'Interest in percent (up to 2 decimals) charged on late payment.' },
  multa: { type: 'number', minimum: 0, description: 'Fine in percent (up to 2 decimals) charged on late payment.' },
  condicao: {
    type: 'string',
    description: 'Default payment condition as free text, e.g. `1x` or `30 60 90`.',
  },
  utilizaDiasUteis: { type: 'boolean', description: 'When true, due dates of postings fall on business days.' },
  taxas: defineObject(taxasFields, { description: 'Fees the payment provider keeps.' }),
  dadosCartao: defineObject(dadosCartaoFields, {
    description: 'Card settings. Allowed only when tipoPagamento is 3 cartao-credito or 4 cartao-debito.',
    required: ['bandeira', 'tipo'],
  }),
  ...toolKeyFields,
} as const satisfies FieldTable<FormaPagamentoManifest>;

export const formaPagamentoFieldTables: readonly FieldTableEntry[] = [
  { path: [], fields },
  { path: ['taxas'], fields: taxasFields },
  { path: ['dadosCartao'], fields: dadosCartaoFields },
];

/** Cross-record rules for payment methods; values arrive with labels already turned into codes. */
export function checkFormasPagamentos(records: readonly ManifestRecord[]): CheckFinding[] {
  return [...checkCardData(records), ...checkSingleDefaults(records)];
}

function checkCardData(records: readonly ManifestRecord[]): CheckFinding[] {
  const findings: CheckFinding[] = [];
  for (const record of records) {
    const { tipoPagamento: type, dadosCartao } = record.value;
    // No type (left out of a record whose tipoPagamento has an error of its own): nothing to say.
    if (dadosCartao === undefined || type === undefined || cardPaymentTypes.includes(type as number)) continue;
    findings.push({
      severity: 'error',
      code: 'card-data-without-card-type',
      message: `dadosCartao is only used when tipoPagamento is 3 (cartao-credito) or 4 (cartao-debito), not ${String(type)}`,
      hint: 'remove dadosCartao, or change tipoPagamento to a card type',
      record,
      path: ['dadosCartao'],
    });
  }
  return findings;
}

// The account keeps one default and one default-for-returns; declaring two would make every
// apply flip the flag back and forth. Tombstones are ignored: they are about to disappear.
function checkSingleDefaults(records: readonly ManifestRecord[]): CheckFinding[] {
  const findings: CheckFinding[] = [];
  const firstByValue = new Map<number, ManifestRecord>();
  for (const record of records) {
    const value = record.value.padrao;
    if (record.value.ensure === 'absent' || (value !== padraoLabels.padrao && value !== padraoLabels['padrao-devolucao'])) continue;
    const first = firstByValue.get(value);
    if (first === undefined) {
      firstByValue.set(value, record);
      continue;
    }
    const label = value === padraoLabels.padrao ? 'padrao' : 'padrao-devolucao';
    findings.push({
      severity: 'error',
      code: 'multiple-defaults',
      message: `padrao ${value} (${label}) is already set on ${describeRecord(first)} at ${first.file}#${first.pointer}; the account keeps only one`,
      hint: 'keep padrao on one payment method and remove it (or set 0 nenhum) on the others',
      record,
      path: ['padrao'],
    });
  }
  return findings;
}

function describeRecord(record: ManifestRecord): string {
  const name = record.value.descricao;
  return typeof name === 'string' ? `"${name}"` : 'another payment method';
}


const resource = '/formas-pagamentos';
const kind = 'formasPagamentos';

/** Fields only the detail GET returns. */
const detailOnlyFields = ['destino', 'condicao', 'utilizaDiasUteis', 'taxas', 'dadosCartao'] as const;

/**
 * `padrao` as read (1 default, 2 default for returns) → the code `PATCH …/padrao` takes for the
 * same purpose. The PATCH enum is a different one (1 payment, 2 returns, 3 on-credit "fiado");
 * the codes happen to coincide. Fiado has no read value: a method marked fiado still reads 0.
 */
const padraoPatchCodes: Readonly<Record<number, number>> = {
  [padraoLabels.padrao]: 1,
  [padraoLabels['padrao-devolucao']]: 2,
  [padraoLabels.fiado]: 3,
};

/** The manifest's view of a method as the API returned it, read leniently. */
function readPaymentMethodFields(raw: Record<string, unknown>): Record<string, unknown> {
  const taxas = isPlainRecord(raw.taxas)
    ? compact({ aliquota: readNumber(raw.taxas.aliquota), valor: readNumber(raw.taxas.valor), prazo: readInteger(raw.taxas.prazo) })
    : undefined;
  const dadosCartao = isPlainRecord(raw.dadosCartao)
    ? compact({
        bandeira: readInteger(raw.dadosCartao.bandeira),
        tipo: readInteger(raw.dadosCartao.tipo),
        cnpjCredenciadora: typeof raw.dadosCartao.cnpjCredenciadora === 'string' ? raw.dadosCartao.cnpjCredenciadora : undefined,
        autoLiquidacao: readInteger(raw.dadosCartao.autoLiquidacao),
      })
    : undefined;
  return compact({
    descricao: readName(raw.descricao),
    tipoPagamento: readInteger(raw.tipoPagamento),
    finalidade: readInteger(raw.finalidade),
    destino: readInteger(raw.destino),
    situacao: readInteger(raw.situacao),
    padrao: readInteger(raw.padrao),
    juros: readNumber(raw.juros),
    multa: readNumber(raw.multa),
    condicao: typeof raw.condicao === 'string' ? raw.condicao : undefined,
    utilizaDiasUteis: readBoolean(raw.utilizaDiasUteis),
    taxas,
    dadosCartao,
  });
}

function toLiveRecord(id: number, raw: Record<string, unknown>, detailLoaded: boolean): LiveRecord {
  const name = readName(raw.descricao);
  return {
    kind,
    id,
    identity: name,
    name,
    fields: readPaymentMethodFields(raw),
    raw,
    ...(readBoolean(raw.fixa) === true ? { system: 'fixa' as const } : {}),
    detailLoaded,
  };
}

/** Found by name (`descricao=`) or by pinned id when that is cheaper than listing (readListOrSearch). */
const search: NameSearch = {
  resource,
  kind,
  nameFilter: 'descricao',
  nameField: 'descricao',
  // The list item is the detail's base part (FormasPagamentosDadosBaseDTO), without what only the detail holds.
  listItemOf: (detail) => Object.fromEntries(Object.entries(detail).filter(([field]) => !(detailOnlyFields as readonly string[]).includes(field))),
};

async function readPaymentMethods(client: ApiClient, scope: ReadScope): Promise<LiveRecord[]> {
  if (scope.byIds) {
    const details = await fetchDetails(client, [...scope.byIds], (id) => `${resource}/${id}`, kind);
    return [...details].map(([id, detail]) => toLiveRecord(id, detail, true));
  }
  const listed = await readListOrSearch(client, search, soughtKeys(scope), scope.all);
  const records = listed.map(({ id, raw }) => toLiveRecord(id, raw, false));
  const needDetail = scope.everyField ? records : selectDetailReads(records, scope.desired, (unit) => setsAnyField(unit, detailOnlyFields), false, scope.detailIds);
  const details = await fetchDetails(client, needDetail.map((r) => r.id), (id) => `${resource}/${id}`, kind);
  return records.map((record) => {
    const detail = details.get(record.id);
    return detail ? toLiveRecord(record.id, { ...record.raw, ...detail }, true) : record;
  });
}

/**
 * `padrao: fiado` is create-only — the API never reads it back — so it is left out of every
 * comparison (plan, drift, the check after apply). Values compare by fieldTypes.
 */
function canonicalizePaymentMethod(fields: Record<string, unknown>): Record<string, unknown> {
  const { padrao, ...rest } = fields;
  return padrao === padraoLabels.fiado ? rest : fields;
}

/** The body form of what a manifest sets: the acquirer CNPJ as the 14 digits the API stores (manifests may write it formatted). */
function paymentMethodBody(fields: Record<string, unknown>): Record<string, unknown> {
  const card = fields.dadosCartao;
  if (!isPlainRecord(card) || typeof card.cnpjCredenciadora !== 'string') return fields;
  return { ...fields, dadosCartao: { ...card, cnpjCredenciadora: card.cnpjCredenciadora.replace(/\D/g, '') } };
}

/** Money at cents, rates as documented (juros and multa: 2 decimals), the acquirer CNPJ by its digits. */
const paymentMethodFieldTypes: FieldTypes = {
  juros: decimal(2),
  multa: decimal(2),
  'taxas.valor': decimal(2),
  'taxas.aliquota': decimal(4),
  'dadosCartao.cnpjCredenciadora': code,
};

/** A create sends `padrao: fiado` (by the PATCH after the POST) though no comparison sees it: shown with the rest. */
function paymentMethodCreateFields(fields: Record<string, unknown>): Record<string, unknown> {
  const canonical = canonicalizePaymentMethod(fields);
  return fields.padrao === padraoLabels.fiado ? { ...canonical, padrao: fields.padrao } : canonical;
}

/**
 * `situacao` and `padrao` have their own PATCH endpoints; the rest is one PUT. The API can give
 * the default to a method but not take it away (it moves when another method gets it), so a
 * change to padrao 0 can only be blocked here.
 */
function splitPaymentMethodUpdate(fields: FieldChange[]): { action: Change['action']; fields: FieldChange[] }[] {
  const parts: { action: Change['action']; fields: FieldChange[] }[] = [];
  const rest = fields.filter((f) => f.path !== 'situacao' && f.path !== 'padrao');
  const status = fields.filter((f) => f.path === 'situacao');
  const padrao = fields.filter((f) => f.path === 'padrao');
  if (rest.length > 0) parts.push({ action: 'update', fields: rest });
  if (status.length > 0) parts.push({ action: 'set-status', fields: status });
  if (padrao.length > 0) parts.push({ action: padrao.some((f) => padraoPatchCodes[f.after as number] === undefined) ? 'blocked' : 'set-default', fields: padrao });
  return parts;
}

/** The value a change wants for a top-level field: from its field changes, else from the desired record. */
function wantedValue(change: Change, path: string): unknown {
  const field = change.fields.find((f) => f.path === path);
  return field ? field.after : change.desired?.[path];
}

async function patchSituacao(client: ApiClient, id: number, situacao: unknown): Promise<void> {
  await client.request({ method: 'PATCH', path: `${resource}/${id}/situacao`, body: { situacao }, kind });
}

async function patchPadrao(client: ApiClient, id: number, padrao: unknown): Promise<void> {
  const code = padraoPatchCodes[padrao as number];
  if (code === undefined) throw new ErpsyncError('INTERNAL', `padrao ${String(padrao)} cannot be set: the API only gives the default to a method`);
  await client.request({ method: 'PATCH', path: `${resource}/${id}/padrao`, body: { padrao: code }, kind });
}

async function createPaymentMethod(change: Change, client: ApiClient): Promise<{ id: number }> {
  const desired = change.desired ?? {};
  // Manifest fields are the API's; the body holds the CNPJ as the digits it stores.
  // padrao is server-managed on create: the method gets it through the PATCH once it exists.
  const { padrao: _patched, ...body } = paymentMethodBody(canonicalizePaymentMethod(desired));
  const { id } = await postRecord(client, resource, kind, body);
  await completePaymentMethod(change, id, client);
  return { id };
}

/** What a created method still needs: its default, by PATCH (also after an adopted POST). */
async function completePaymentMethod(change: Change, id: number, client: ApiClient): Promise<void> {
  const padrao = change.desired?.padrao;
  if (padrao !== undefined && padraoPatchCodes[padrao as number] !== undefined) await patchPadrao(client, id, padrao);
}

/**
 * A create that sets a default PATCHes it after the POST; an update merges onto the detail, read
 * first when the plan only saw the list item (its self precondition says which).
 */
function paymentMethodWriteRequests(change: Change): number {
  if (change.action === 'create') return padraoPatchCodes[change.desired?.padrao as number] === undefined ? 1 : 2;
  if (change.action === 'update') return change.requires.some((p) => p.type === 'record' && p.role === 'self' && !p.detail) ? 2 : 1;
  return 1;
}

/** The full record as the account holds it, read again when the plan only saw the list item. */
async function loadFullRecord(client: ApiClient, live: LiveRecord): Promise<Record<string, unknown>> {
  if (live.detailLoaded) return live.raw;
  const details = await fetchDetails(client, [live.id], (id) => `${resource}/${id}`, kind);
  return { ...live.raw, ...details.get(live.id) };
}

async function updatePaymentMethod(change: Change, context: WriteContext): Promise<void> {
  const id = requireLiveId(change);
  if (!context.live) throw new ErpsyncError('INTERNAL', `${change.id}: an update needs the live record to merge onto`);
  const raw = await loadFullRecord(context.client, context.live);
  // PUT replaces the whole record: everything as read (typed), then what the manifest sets.
  // The CNPJ as the digits the API takes, also when the account answered it formatted.
  const merged = paymentMethodBody(mergeRecords(mergeRecords(raw, readPaymentMethodFields(raw)), canonicalizePaymentMethod(change.desired ?? {})));
  // PUT replaces the record, and a PUT without padrao was seen to zero it (real-observations #10),
  // so padrao always rides along: the default the manifest gives, else the one the record holds.
  // A default moving to another method in the same apply is PATCHed after every PUT of the kind
  // (plan/waves), so this value read at plan time is never stale when sent.
  const { id: _id, fixa: _fixa, ...rest } = merged;
  const wanted = change.desired?.padrao;
  const body = { ...rest, padrao: padraoPatchCodes[wanted as number] !== undefined && wanted !== padraoLabels.fiado ? wanted : readInteger(raw.padrao) ?? padraoLabels.nenhum };
  await context.client.request({ method: 'PUT', path: `${resource}/${id}`, body, kind });
}

const executePaymentMethodChange = executeByAction('payment methods', {
  create: (change, { client }) => createPaymentMethod(change, client),
  update: updatePaymentMethod,
  async 'set-status'(change, { client }) {
    await patchSituacao(client, requireLiveId(change), wantedValue(change, 'situacao'));
  },
  async 'set-default'(change, { client, live }) {
    const id = requireLiveId(change);
    // Only an active method can be the default. When the plan also activates it, that PATCH may
    // run at the same time as this one, so activate first here rather than fail on the order.
    if (live?.fields.situacao === situacaoFormaPagamentoLabels.inativa && change.desired?.situacao === situacaoFormaPagamentoLabels.ativa) {
      await patchSituacao(client, id, situacaoFormaPagamentoLabels.ativa);
    }
    await patchPadrao(client, id, wantedValue(change, 'padrao'));
  },
  async retire(change, { client }) {
    await patchSituacao(client, requireLiveId(change), situacaoFormaPagamentoLabels.inativa);
  },
  delete: deleteOperation(resource, kind),
});

/**
 * The API keeps one default per purpose and only ever gives it (PATCH padrao): when the manifests
 * move a default to another method, the old holder's padrao 0 follows from that PATCH.
 */
function defaultMovesAway(difference: FieldChange, unit: DesiredUnit, units: readonly DesiredUnit[]): boolean {
  if (difference.path !== 'padrao' || difference.after !== padraoLabels.nenhum || padraoPatchCodes[difference.before as number] === undefined) return false;
  return units.some((other) => other !== unit && other.tool.ensure === 'present' && other.fields.padrao === difference.before);
}

/** The method holding the default (padrao 1 or 2) is neither deleted nor deactivated by the API (emulator rule default-stays-active). */
function defaultStays(record: LiveRecord): string | undefined {
  const padrao = record.fields.padrao;
  if (padrao === undefined || padrao === padraoLabels.nenhum) return undefined;
  return 'it holds the default, which the API neither deletes nor deactivates: give the default to another method first';
}

/** What POST gives a field it leaves out (and the default flag nobody set): export omits these values. */
const createDefaults: Readonly<Record<string, unknown>> = {
  situacao: situacaoFormaPagamentoLabels.ativa,
  padrao: padraoLabels.nenhum,
  juros: 0,
  multa: 0,
  condicao: '',
  utilizaDiasUteis: false,
};
const taxaDefaults: Readonly<Record<string, unknown>> = { aliquota: 0, valor: 0, prazo: 0 };
const cardDefaults: Readonly<Record<string, unknown>> = { cnpjCredenciadora: '', autoLiquidacao: autoLiquidacaoLabels.nao };

function withoutDefaults(fields: Record<string, unknown>, defaults: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([key, value]) => !(key in defaults) || defaults[key] !== value));
}

/** A method as a manifest would declare it: no create defaults, card data only where the API uses it. */
function exportPaymentMethod(record: LiveRecord): Record<string, unknown> {
  const { taxas, dadosCartao, ...rest } = withoutDefaults(record.fields, createDefaults);
  const fees = isPlainRecord(taxas) ? withoutDefaults(taxas, taxaDefaults) : {};
  const card = isPlainRecord(dadosCartao) && cardPaymentTypes.includes(rest.tipoPagamento as number) ? withoutDefaults(dadosCartao, cardDefaults) : undefined;
  return compact({ ...rest, taxas: Object.keys(fees).length > 0 ? fees : undefined, dadosCartao: card });
}

export const formasPagamentos = defineKind({
  key: 'formasPagamentos',
  title: 'payment methods',
  resource: '/formas-pagamentos',
  shape: 'list',
  recordSchema: defineListRecord(fields, {
    title: 'Payment method',
    description:
      'A payment method (forma de pagamento), identified by descricao. Fields keep the API names of /formas-pagamentos.',
    identity: ['descricao'],
    requiredUnlessAbsent: ['tipoPagamento', 'finalidade', 'destino'],
  }),
  enums: [
    tipoPagamento.field,
    finalidade.field,
    destino.field,
    situacao.field,
    padrao.field,
    bandeira.field,
    tipoCartao.field,
    autoLiquidacao.field,
  ],
  secretFields: [],
  nameField: 'descricao',
  lengthLimits: formasPagamentosLengthLimits,
  references: [],
  checkRecords: checkFormasPagamentos,
  settlesBy: defaultMovesAway,
  removalBlockedBy: defaultStays,
  readLive: readPaymentMethods,
  canonicalize: canonicalizePaymentMethod,
  fieldTypes: paymentMethodFieldTypes,
  createFields: paymentMethodCreateFields,
  splitUpdate: splitPaymentMethodUpdate,
  retire: 'status',
  isRetired: (record) => record.fields.situacao === situacaoFormaPagamentoLabels.inativa,
  retirementFields: (record) => [{ path: 'situacao', before: record.fields.situacao, after: situacaoFormaPagamentoLabels.inativa }],
  canDelete: true,
  exportFields: exportPaymentMethod,
  // The list lacks destino, condicao, utilizaDiasUteis, taxas and dadosCartao.
  readBackDetail: (change) => writesAnyField(change, detailOnlyFields),
  readsById: true,
  writeRequests: paymentMethodWriteRequests,
  execute: executePaymentMethodChange,
  completeCreate: (change, id, { client }) => completePaymentMethod(change, id, client),
});
