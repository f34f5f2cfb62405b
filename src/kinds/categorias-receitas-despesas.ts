// Income and expense categories (/categorias/receitas-despesas): the manifest record, its schema
// and label tables. A tree: identity is the path of `descricao` from the root, the parent is
// named by `categoriaPai`. The API reads the DRE group as `idGrupoDre` but writes it as
// `grupoDRE`; manifests use the write name. No API calls here yet; no other kind's quirks.
import type { KindDefinition } from './kind.js';
import type { Coded, FieldTable, FieldTableEntry, ToolKeys } from './shared-schema.js';
import { defineEnum, defineListRecord, defineName, defineParentReference, toolKeyFields } from './shared-schema.js';

const tipoWritableLabels = { despesa: 1, receita: 2, 'receita-e-despesa': 3 } as const;
export const tipoCategoriaLabels = {
  ...tipoWritableLabels,
  'transferencia-entrada': 4,
  'transferencia-saida': 5,
} as const;

const grupoDreWritableLabels = {
  'nao-exibir': 1,
  'receita-bruta': 2,
  deducoes: 3,
  'despesas-operacionais': 7,
  'receitas-financeiras': 8,
  'despesas-financeiras': 9,
  'outras-receitas': 10,
  'outras-despesas': 11,
  'irpj-csll': 13,
} as const;
export const grupoDreLabels = { ...grupoDreWritableLabels, 'custo-vendas': 5 } as const;

export const situacaoCategoriaLabels = { ativa: 1, inativa: 0 } as const;

export interface CategoriaReceitaDespesaManifest extends ToolKeys {
  descricao: string;
  /** Required unless `ensure: absent`. */
  tipo?: Coded<typeof tipoWritableLabels>;
  categoriaPai?: string;
  grupoDRE?: Coded<typeof grupoDreWritableLabels>;
  situacao?: Coded<typeof situacaoCategoriaLabels>;
}

const tipo = defineEnum({
  path: ['tipo'],
  labels: tipoCategoriaLabels,
  readOnlyCodes: [tipoCategoriaLabels['transferencia-entrada'], tipoCategoriaLabels['transferencia-saida']],
  summary: 'Whether the category classifies expenses, revenues, or both. Required unless ensure is absent.',
});
const grupoDRE = defineEnum({
  path: ['grupoDRE'],
  labels: grupoDreLabels,
  readOnlyCodes: [grupoDreLabels['custo-vendas']],
  summary:
    'Line of the income statement (DRE) the category feeds; 1 nao-exibir keeps it out. Child categories follow their parent, so set it on roots. The API reads it back as idGrupoDre.',
});
const situacao = defineEnum({
  path: ['situacao'],
  labels: situacaoCategoriaLabels,
  summary: 'Whether the category is active. Inactive categories stay on old postings but cannot be chosen.',
});

const fields = {
  descricao: defineName('Name of the category; with the parent path it identifies the record. Required.'),
  tipo: tipo.schema,
  categoriaPai: defineParentReference(
    'Parent category. It may be one of the account defaults (e.g. `Despesas administrativas`) that no manifest declares.',
  ),
  grupoDRE: grupoDRE.schema,
  situacao: situacao.schema,
  ...toolKeyFields,
} as const satisfies FieldTable<CategoriaReceitaDespesaManifest>;

export const categoriaReceitaDespesaFieldTables: readonly FieldTableEntry[] = [{ path: [], fields }];

export const categoriasReceitasDespesas: KindDefinition = {
  key: 'categoriasReceitasDespesas',
  title: 'income and expense categories',
  resource: '/categorias/receitas-despesas',
  shape: 'list',
  recordSchema: defineListRecord(fields, {
    title: 'Income or expense category',
    description:
      'A category of the financial chart (categoria de receita e despesa), identified by its descricao path from the root.',
    identity: ['descricao'],
    requiredUnlessAbsent: ['tipo'],
  }),
  enums: [tipo.field, grupoDRE.field, situacao.field],
  secretFields: [],
  nameField: 'descricao',
  references: [{ path: ['categoriaPai'], target: 'categoriasReceitasDespesas', parent: true }],
};
