// Payment methods (/formas-pagamentos): the manifest record, its schema and label tables, and
// the checks across records the schema cannot express (card data only on card types, one
// default per purpose). Identity is `descricao`. No API calls here yet; no other kind's quirks.
import type { CheckFinding, KindDefinition, ManifestRecord } from './kind.js';
import type { Coded, FieldTable, FieldTableEntry, ToolKeys } from './shared-schema.js';
import { cnpjPattern, defineEnum, defineListRecord, defineName, defineObject, toolKeyFields } from './shared-schema.js';

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
export const padraoLabels = { nenhum: 0, padrao: 1, 'padrao-devolucao': 2 } as const;
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
    'Marks the account default (one per account) or the default for returns (one per account). Setting it on one method clears it on the method that had it.',
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
    description: "CNPJ of the card acquirer, 14 digits or formatted 00.000.000/0000-00.",
  },
  autoLiquidacao: autoLiquidacao.schema,
} as const satisfies FieldTable<DadosCartaoManifest>;

const fields = {
  descricao: defineName('Name of the payment method as users see it; identifies the record. Required.'),
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
    if (dadosCartao === undefined || cardPaymentTypes.includes(type as number)) continue;
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

export const formasPagamentos: KindDefinition = {
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
  references: [],
  checkRecords: checkFormasPagamentos,
};
