// Income and expense categories (/categorias/receitas-despesas): the manifest record, its schema
// and label tables, and the adapter that reads and writes them. A tree: identity is the path of
// `descricao` from the root, the parent is named by `categoriaPai` (the API's `idCategoriaPai`).
// The API reads the DRE group as `idGrupoDre` but writes it as `grupoDRE`; manifests use the
// write name. `situacao` has no write endpoint (the documented bodies lack it, a create is always
// active), so manifests cannot declare it and a category is never retired, only deleted; it is
// read only where every field is wanted (drift, export), through the list's own situacao filter
// (2 = inactive), to tell a default category someone deactivated from an untouched one.
// The system transfer categories (tipo 4/5) are the account's own; the rest of the default chart
// is known here so drift and export can tell an untouched default from a configured category.
// Deletes go in bulk, a request per hundred categories of one wave (children before parents).
// No other kind's quirks here.
import type { ApiClient } from '../api/client.js';
import { ErpsyncError } from '../model/errors.js';
import { joinPath, pathSeparator } from '../model/names.js';
import { bulkDeleteIdsPerRequest, bulkDeleteOperation, compact, executeByAction, identifyListItems, postRecord, readInteger, readName, readTreeItems, requireId, requireLiveId, treeRecord } from './live-helpers.js';
import type { Coded, FieldTable, FieldTableEntry, ToolKeys } from './shared-schema.js';
import { defineEnum, defineListRecord, defineName, defineParentReference, toolKeyFields, erpsyncNameLimit } from './shared-schema.js';
import type { Change } from '../model/plan.js';
import type { LiveRecord } from '../model/live.js';
import { defineKind } from './kind.js';
import type { CheckFinding, ReadScope, WriteContext, LengthLimit } from './kind.js';
import type { ManifestRecord } from '../model/desired.js';

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

/** The longest descricao the kind takes (docs/manifest.md, "Name lengths"). */
export const categoriasReceitasDespesasLengthLimits = { descricao: erpsyncNameLimit } as const satisfies Readonly<Record<string, LengthLimit>>;

const fields = {
  descricao: defineName('Name of the category; with the parent path it identifies the record. Required.', categoriasReceitasDespesasLengthLimits.descricao),
  tipo: tipo.schema,
  categoriaPai: defineParentReference(
    'Parent category. It may be one of the account defaults (e.g. `Despesas administrativas`) that no manifest declares.',
  ),
  grupoDRE: grupoDRE.schema,
  ...toolKeyFields,
} as const satisfies FieldTable<CategoriaReceitaDespesaManifest>;

export const categoriaReceitaDespesaFieldTables: readonly FieldTableEntry[] = [{ path: [], fields }];


const resource = '/categorias/receitas-despesas';
const kind = 'categoriasReceitasDespesas';

/** The list filter's codes, which differ from the entity's own `situacao` (0 inactive, 1 active). */
const inactiveFilter = 2;

/** tipo codes of the system transfer categories, which the API does not let anyone change. */
const systemTipos: readonly number[] = [tipoCategoriaLabels['transferencia-entrada'], tipoCategoriaLabels['transferencia-saida']];

/** Reads the inactive ids with the list filter, only when every field is wanted (drift, export). */
async function readInactiveIds(client: ApiClient, scope: ReadScope): Promise<ReadonlySet<number> | undefined> {
  if (!scope.everyField) return undefined;
  const inactive = await client.listAll<unknown>(resource, { situacao: inactiveFilter }, { kind });
  return new Set(identifyListItems(inactive, resource).map((item) => item.id));
}

async function readCategories(client: ApiClient, scope: ReadScope): Promise<LiveRecord[]> {
  const items = await readTreeItems(client, resource, kind, (raw) => ({ name: readName(raw.descricao), parentId: readInteger(raw.idCategoriaPai) || undefined }));
  const inactive = await readInactiveIds(client, scope);
  return items.map((item) => {
    const tipo = readInteger(item.raw.tipo);
    const fields = {
      descricao: item.name,
      tipo,
      categoriaPai: item.parent,
      grupoDRE: readInteger(item.raw.idGrupoDre),
      situacao: inactive === undefined ? undefined : inactive.has(item.id) ? situacaoCategoriaLabels.inativa : situacaoCategoriaLabels.ativa,
    };
    const system = tipo !== undefined && systemTipos.includes(tipo) ? ('built-in' as const) : undefined;
    const record = treeRecord(kind, item, fields, { detailLoaded: false, ...(system ? { system } : {}) });
    const accountDefault = accountDefaultOf(record.identity, record.fields);
    return accountDefault ? { ...record, accountDefault } : record;
  });
}

/**
 * A child category takes its parent's DRE group whatever is sent, so the group is compared on
 * roots only; otherwise a manifest value on a child would be planned again on every run.
 */
function canonicalizeCategory(fields: Record<string, unknown>): Record<string, unknown> {
  if (fields.categoriaPai === undefined || fields.grupoDRE === undefined) return fields;
  const { grupoDRE: _inherited, ...rest } = fields;
  return rest;
}

function parentIdOf(desired: Record<string, unknown>, context: WriteContext): number {
  return typeof desired.categoriaPai === 'string' ? requireId(context, kind, desired.categoriaPai) : 0;
}

async function createCategory(change: Change, context: WriteContext): Promise<{ id: number }> {
  const desired = change.desired ?? {};
  // A child's group is its parent's whatever is sent (checkCategories warns): not sent, as not shown.
  const grupo = desired.categoriaPai === undefined ? desired.grupoDRE : undefined;
  const body = compact({ descricao: desired.descricao, tipo: desired.tipo, idCategoriaPai: parentIdOf(desired, context), grupoDRE: grupo });
  return postRecord(context.client, resource, kind, body);
}

async function updateCategory(change: Change, context: WriteContext): Promise<void> {
  const id = requireLiveId(change);
  if (!context.live) throw new ErpsyncError('INTERNAL', `${change.id}: an update needs the live record to merge onto`);
  const desired = change.desired ?? {};
  // PUT replaces the record: the list item holds every writable field (read names → write names),
  // then the manifest's values. The read-only group 5 (cost of sales) is sent back as read:
  // omitting it would silently reset the group to 1.
  const { id: _id, idGrupoDre, situacao: _situacao, ...raw } = context.live.raw;
  const body = {
    ...raw,
    descricao: desired.descricao ?? context.live.fields.descricao,
    tipo: desired.tipo ?? context.live.fields.tipo,
    idCategoriaPai: desired.categoriaPai === undefined ? (readInteger(raw.idCategoriaPai) ?? 0) : parentIdOf(desired, context),
    grupoDRE: desired.grupoDRE ?? readInteger(idGrupoDre),
  };
  await context.client.request({ method: 'PUT', path: `${resource}/${id}`, body: compact(body), kind });
}

/**
 * A DRE group declared on a child category is dropped by the service, which gives every child its
 * parent's group (api-facts §7.5, real-observations #5: "derived from the parent, not editable"):
 * a warning where it is written, so the manifest does not claim what the account will not hold.
 */
function checkCategories(records: readonly ManifestRecord[]): CheckFinding[] {
  return records.flatMap((record) => {
    const { categoriaPai, grupoDRE: group } = record.value;
    if (typeof categoriaPai !== 'string' || group === undefined || record.value.ensure === 'absent') return [];
    return [
      {
        severity: 'warning' as const,
        code: 'derived-field',
        message: `grupoDRE is ignored on a child category: the service gives it the DRE group of its parent (\`${categoriaPai}\`)`,
        hint: 'remove grupoDRE here, and set it on the root category of this branch',
        record,
        path: ['grupoDRE'],
      },
    ];
  });
}

interface ChartRoot {
  tipo: number;
  grupoDRE: number;
  children?: readonly string[];
}

/**
 * The chart of categories every new account starts with: roots by name, with the tipo and DRE
 * group they come with, and their children (which share both). The system transfer categories
 * are left out: they are `system` records already.
 */
const defaultChart: Readonly<Record<string, ChartRoot>> = {
  'Vendas de produtos': { tipo: 2, grupoDRE: 2 },
  'Vendas de mercadorias': { tipo: 2, grupoDRE: 2 },
  'Vendas de serviços': { tipo: 2, grupoDRE: 2 },
  'Rendimento de aplicação financeira': { tipo: 2, grupoDRE: 8 },
  'Receitas adicionais em operações financeiras': { tipo: 2, grupoDRE: 8, children: ['Juros recebidos', 'Descontos recebidos', 'Acréscimos recebidos'] },
  'Indenização de seguro': { tipo: 2, grupoDRE: 10 },
  'Venda de ativo': { tipo: 2, grupoDRE: 10 },
  'Transferências recebidas': { tipo: 2, grupoDRE: 10 },
  'Compras de fornecedores': { tipo: 1, grupoDRE: 1 },
  'Compra de insumos e matéria prima': { tipo: 1, grupoDRE: 1 },
  'Devoluções de vendas': { tipo: 1, grupoDRE: 3 },
  'Descontos incondicionais': { tipo: 1, grupoDRE: 3 },
  'Impostos sobre vendas': { tipo: 1, grupoDRE: 3 },
  'Custo dos produtos vendidos': { tipo: 1, grupoDRE: 5 },
  'Custo das mercadorias vendidas': { tipo: 1, grupoDRE: 5 },
  'Custo dos serviços prestados': { tipo: 1, grupoDRE: 5 },
  'Despesas comerciais': {
    tipo: 1,
    grupoDRE: 7,
    children: ['Alimentação', 'Brindes', 'Combustíveis e lubrificantes', 'Comissões', 'Fretes e seguros', 'Manutenção de veículos', 'Propaganda e publicidade'],
  },
  'Despesas administrativas': {
    tipo: 1,
    grupoDRE: 7,
    children: [
      'Água',
      'Aluguel',
      'Condomínio',
      'Energia elétrica',
      'Limpeza e manutenção',
      'Locações de máquinas e equipamentos',
      'Material de escritório',
      'Material de uso e consumo',
      'Serviços contábeis',
      'Serviços de terceiros',
      'Software',
      'Telefone',
      'Internet',
    ],
  },
  'Despesas com pessoal': {
    tipo: 1,
    grupoDRE: 7,
    children: ['Encargos da folha', 'Plano de saúde', 'Plano odontológico', 'Pró-labore', 'Salários', 'Vale alimentação', 'Vale transporte'],
  },
  'Tarifa bancária': { tipo: 1, grupoDRE: 9 },
  'Despesas adicionais em operações financeiras': {
    tipo: 1,
    grupoDRE: 9,
    children: ['Juros pagos', 'Descontos concedidos', 'Acréscimos pagos', 'Taxas pagas', 'Taxas do marketplace'],
  },
  'Perda de capital na alienação de ativo': { tipo: 1, grupoDRE: 11 },
  'Imposto de renda': { tipo: 1, grupoDRE: 13 },
  'Contribuição social sobre lucro líquido': { tipo: 1, grupoDRE: 13 },
  Transferências: { tipo: 3, grupoDRE: 1 },
};

/** The default chart's identities, roots and `Root > Child`: names a reference may give in any account. */
const defaultChartIdentities = Object.entries(defaultChart).flatMap(([root, { children = [] }]) => [root, ...children.map((child) => joinPath([root, child]))]);

/** The default chart's entry for an identity: a root, or a child of one; undefined when not in the chart. */
function chartPlaceOf(identity: string): { root: ChartRoot; child: boolean } | undefined {
  const [rootName, childName, ...deeper] = identity.split(pathSeparator);
  const root = rootName === undefined ? undefined : defaultChart[rootName];
  if (!root || deeper.length > 0) return undefined;
  if (childName !== undefined && !root.children?.includes(childName)) return undefined;
  return { root, child: childName !== undefined };
}

/**
 * Where a category stands against the default chart: not in it, still as the account made it
 * (its tipo, DRE group and — when read — active), or in it but changed since.
 */
export function accountDefaultOf(identity: string, fields: Record<string, unknown>): LiveRecord['accountDefault'] {
  const place = chartPlaceOf(identity);
  if (!place) return undefined;
  if (fields.situacao === situacaoCategoriaLabels.inativa || fields.tipo !== place.root.tipo) return 'modified';
  // Children take the root's group, so only a root's group tells whether it was changed.
  return place.child || fields.grupoDRE === place.root.grupoDRE ? 'pristine' : 'modified';
}

/** grupoDRE 1 is what a create without one gets; children inherit theirs; no manifest can hold situacao. */
function exportCategory(record: LiveRecord): Record<string, unknown> {
  const { grupoDRE, situacao: _unwritable, ...rest } = record.fields;
  return compact({
    ...rest,
    grupoDRE: rest.categoriaPai === undefined && grupoDRE !== grupoDreLabels['nao-exibir'] ? grupoDRE : undefined,
  });
}

export const categoriasReceitasDespesas = defineKind({
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
  enums: [tipo.field, grupoDRE.field],
  secretFields: [],
  nameField: 'descricao',
  lengthLimits: categoriasReceitasDespesasLengthLimits,
  accountRecords: defaultChartIdentities,
  references: [{ path: ['categoriaPai'], target: 'categoriasReceitasDespesas', parent: true }],
  checkRecords: checkCategories,
  readLive: readCategories,
  canonicalize: canonicalizeCategory,
  retire: 'none',
  canDelete: true,
  exportFields: exportCategory,
  // DELETE /categorias/receitas-despesas?idsCategorias[]=… takes many (size and URL length: bulkDeleteIdsPerRequest).
  batching: { deletesPerRequest: bulkDeleteIdsPerRequest },
  execute: executeByAction('income and expense categories', {
    create: createCategory,
    update: updateCategory,
    delete: bulkDeleteOperation(resource, 'idsCategorias', kind),
  }),
});
