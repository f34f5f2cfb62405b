// Custom fields (/campos-customizados): extra fields of a module's records (products, contacts,
// sales orders …). Identity: the module (read-only modulosCamposCustomizados, by nome) + `nome`.
// The type (read-only tiposCamposCustomizados) and the module are set on create only, and PUT
// ignores `nome`, so a rename cannot be an update: all three are immutable, and a replacement
// loses the values the module's records hold in the field (the plan's note says so). There is no
// list of custom fields: they are listed per module (id, nome, situacao only), and the detail of
// each one a manifest could match is read. `situacao` has its own PATCH. Options are written by
// name; the PUT sends a kept option with its id so the values chosen from it stay. Grouping
// (`agrupadores`) depends on the module: product categories (by path) for `Produtos`, contact
// types (read-only tiposContatos) for contacts — the module record's `modulo` says which. When a
// product category is removed, every field of the modules grouping by categories is read with its
// detail, to find the groupings that name it. PUT replaces the record: the live record is merged
// under the manifest. No other kind's quirks here.
import type { ApiClient } from '../api/client.js';
import type { DesiredUnit } from '../model/desired.js';
import type { LiveRecord } from '../model/live.js';
import { joinPath, normalizeName, pathSeparator } from '../model/names.js';
import type { Change, FieldChange } from '../model/plan.js';
import { selectDetailReads } from './desired-units.js';
import { defineKind } from './kind.js';
import type { ReadScope, WriteContext, LengthLimit } from './kind.js';
import {
  compact,
  deleteOperation,
  executeByAction,
  fetchDetails,
  identifyListItems,
  isPlainRecord,
  nameReadOnlyReference,
  postRecord,
  readBoolean,
  readInteger,
  readName,
  readNamedList,
  readReferenceId,
  referenceId,
  requireId,
  requireLiveId,
} from './live-helpers.js';
import type { Coded, FieldTable, FieldTableEntry, ToolKeys } from './shared-schema.js';
import { defineEnum, defineListRecord, defineName, defineObject, toolKeyFields, erpsyncNameLimit } from './shared-schema.js';

export const situacaoCampoLabels = { ativo: 1, inativo: 0 } as const;

interface TamanhoManifest {
  minimo?: number;
  maximo?: number;
}

interface AgrupadoresManifest {
  categoriasProdutos?: string[];
  tiposContatos?: (string | number)[];
}

export interface CampoCustomizadoManifest extends ToolKeys {
  modulo: string;
  nome: string;
  /** Required unless `ensure: absent`. */
  tipoCampo?: string | number;
  situacao?: Coded<typeof situacaoCampoLabels>;
  placeholder?: string;
  obrigatorio?: boolean;
  tamanho?: TamanhoManifest;
  opcoes?: string[];
  agrupadores?: AgrupadoresManifest;
}

const situacao = defineEnum({
  path: ['situacao'],
  labels: situacaoCampoLabels,
  summary: 'Whether the field is in use (changed through its own PATCH). Active when omitted on creation.',
});

const tamanhoFields = {
  minimo: { type: 'integer', minimum: 0, description: 'Fewest characters (text) or smallest value (numbers). 0 when omitted on creation.' },
  maximo: { type: 'integer', minimum: 0, description: 'Most characters (text) or largest value (numbers); 0 means no limit. 0 when omitted on creation.' },
} as const satisfies FieldTable<TamanhoManifest>;

const agrupadorFields = {
  categoriasProdutos: {
    type: 'array',
    items: { type: 'string', minLength: 1 },
    uniqueItems: true,
    description: 'Product categories (by name or path, e.g. `Maquiagem > Olhos`) whose products show the field. Products module only.',
  },
  tiposContatos: {
    type: 'array',
    items: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'integer', minimum: 1 }] },
    uniqueItems: true,
    description: 'Contact types (by descricao as /contatos/tipos lists them, e.g. `Fornecedor`, or by id) whose contacts show the field. Contacts module only.',
  },
} as const satisfies FieldTable<AgrupadoresManifest>;

/** The longest nome the kind takes (docs/manifest.md, "Name lengths"). */
export const camposCustomizadosLengthLimits = { nome: erpsyncNameLimit } as const satisfies Readonly<Record<string, LengthLimit>>;

const fields = {
  modulo: defineName('The module the field belongs to, by nome as /campos-customizados/modulos lists it (e.g. `Produtos`, `Clientes e Fornecedores`). Cannot change. Required.'),
  nome: defineName('Name of the field; with modulo, its identity. The API cannot rename a field (PUT ignores nome): a new name needs --allow-replace, which loses the values stored in the field. Required.', camposCustomizadosLengthLimits.nome),
  tipoCampo: {
    anyOf: [
      { type: 'string', minLength: 1 },
      { type: 'integer', minimum: 1 },
    ],
    description: 'The field type, by nome as /campos-customizados/tipos lists it (e.g. `Texto`, `Inteiro`, `Lista`), or by id. Cannot change. Required unless ensure is absent.',
  },
  situacao: situacao.schema,
  placeholder: { type: 'string', description: 'Hint shown in the empty field. Empty when omitted on creation.' },
  obrigatorio: { type: 'boolean', description: 'Whether the field must be filled in. false when omitted on creation.' },
  tamanho: defineObject(tamanhoFields, { description: 'Size limits: characters for text, values for numbers.' }),
  opcoes: {
    type: 'array',
    items: { type: 'string', minLength: 1 },
    uniqueItems: true,
    description: 'The choices of a `Lista` field, by name, in order. A choice kept keeps its id (and the values chosen from it).',
  },
  agrupadores: {
    ...defineObject(agrupadorFields, { description: 'Which records show the field: product categories (products module) or contact types (contacts module). One of the two. All of them when omitted.' }),
    maxProperties: 1,
  },
  ...toolKeyFields,
} as const satisfies FieldTable<CampoCustomizadoManifest>;

export const campoCustomizadoFieldTables: readonly FieldTableEntry[] = [
  { path: [], fields },
  { path: ['tamanho'], fields: tamanhoFields },
  { path: ['agrupadores'], fields: agrupadorFields },
];

const resource = '/campos-customizados';
const kind = 'camposCustomizados';

/** The record kind a module's fields group by, from the module's `modulo`; none for other modules. */
const groupingByModule: Readonly<Record<string, { key: keyof AgrupadoresManifest; records: string }>> = {
  Produtos: { key: 'categoriasProdutos', records: 'products' },
  Contatos: { key: 'tiposContatos', records: 'contacts' },
};

function moduleOf(unit: DesiredUnit): string {
  return readName(unit.fields.modulo) || (unit.identity.split(pathSeparator)[0] ?? '');
}

/** A field as the manifest writes it, references as identities (when their kind was read). */
function fieldOf(module: LiveRecord, raw: Record<string, unknown>, scope: ReadScope): Record<string, unknown> {
  const tamanho = isPlainRecord(raw.tamanho) ? compact({ minimo: readInteger(raw.tamanho.minimo), maximo: readInteger(raw.tamanho.maximo) }) : undefined;
  const opcoes = Array.isArray(raw.opcoes) ? raw.opcoes.map((o: unknown) => readName(isPlainRecord(o) ? o.nome : undefined)) : undefined;
  const grouping = groupingByModule[readName(module.raw.modulo)];
  const groupIds = Array.isArray(raw.agrupadores) ? raw.agrupadores.map(readReferenceId).filter((id) => id !== undefined) : [];
  const categories = new Map((scope.earlier.get('categoriasProdutos') ?? []).map((c) => [c.id, c.identity]));
  const named = (id: number) => (grouping?.key === 'categoriasProdutos' ? (categories.get(id) ?? id) : nameReadOnlyReference(scope.earlier, 'tiposContatos', id));
  return compact({
    modulo: module.name,
    nome: readName(raw.nome),
    tipoCampo: nameReadOnlyReference(scope.earlier, 'tiposCamposCustomizados', readReferenceId(raw.tipoCampo)),
    situacao: readInteger(raw.situacao),
    placeholder: typeof raw.placeholder === 'string' ? raw.placeholder : undefined,
    obrigatorio: readBoolean(raw.obrigatorio),
    tamanho,
    opcoes,
    agrupadores: grouping && raw.agrupadores !== undefined ? { [grouping.key]: groupIds.map(named) } : undefined,
  });
}

function toLiveRecord(module: LiveRecord, id: number, raw: Record<string, unknown>, scope: ReadScope, detailLoaded: boolean): LiveRecord {
  const nome = readName(raw.nome);
  return {
    kind,
    id,
    identity: joinPath([module.name, nome]),
    name: nome,
    fields: fieldOf(module, raw, scope),
    // The module is known from the listing (a PUT does not send it); its `modulo` says what a replacement loses.
    raw: { ...raw, idModulo: module.id, moduloSistema: readName(module.raw.modulo) },
    detailLoaded,
  };
}

/** Whether the read must find every field that groups by a product category: one is being removed (ReadScope.removing). */
function seeksCategoryGroupings(scope: ReadScope): boolean {
  return (scope.removing?.get('categoriasProdutos') ?? []).length > 0;
}

const groupsByCategories = (module: LiveRecord) => groupingByModule[readName(module.raw.modulo)]?.key === 'categoriasProdutos';

async function readFields(client: ApiClient, scope: ReadScope): Promise<LiveRecord[]> {
  if (scope.byIds) return readFieldsById(client, scope, scope.byIds);
  const named = new Set(scope.desired.map(moduleOf));
  const seeking = seeksCategoryGroupings(scope);
  if (!scope.all && named.size === 0 && !seeking) return [];
  const modules = scope.earlier.get('modulosCamposCustomizados') ?? (await readNamedList(client, '/campos-customizados/modulos', kind, 'nome', false));
  const listed = await Promise.all(
    modules
      .filter((m) => scope.all || named.has(m.name) || (seeking && groupsByCategories(m)))
      .map(async (module) => {
        const path = `${resource}/modulos/${module.id}`;
        const rows = identifyListItems(await client.listAll<unknown>(path, undefined, { kind }), path);
        return rows.map(({ id, raw }) => toLiveRecord(module, id, raw, scope, false));
      }),
  );
  const records = listed.flat();
  const moduleById = new Map(modules.map((m) => [m.id, m]));
  // Every field a manifest sets but nome and situacao is in the detail only; so are the groupings
  // a removed category may be named in.
  const grouping = (r: LiveRecord) => {
    const module = moduleById.get(readInteger(r.raw.idModulo) ?? 0);
    return seeking && module !== undefined && groupsByCategories(module);
  };
  const wanted = scope.everyField ? records : [...new Set([...selectDetailReads(records, scope.desired, () => true, false, scope.detailIds), ...records.filter(grouping)])];
  const details = await fetchDetails(client, wanted.map((r) => r.id), (id) => `${resource}/${id}`, kind);
  return records.map((record) => {
    const detail = details.get(record.id);
    const module = moduleById.get(readInteger(record.raw.idModulo) ?? 0);
    return detail && module ? toLiveRecord(module, record.id, { ...record.raw, ...detail }, scope, true) : record;
  });
}

/**
 * The fields the scope's units pin, by their details alone (no list per module): the unit names
 * the module, which the detail does not carry.
 */
async function readFieldsById(client: ApiClient, scope: ReadScope, ids: ReadonlySet<number>): Promise<LiveRecord[]> {
  const modules = scope.earlier.get('modulosCamposCustomizados') ?? (await readNamedList(client, '/campos-customizados/modulos', kind, 'nome', false));
  const moduleOfId = new Map(scope.desired.filter((u) => u.tool.id !== undefined).map((u) => [u.tool.id, modules.find((m) => m.name === moduleOf(u))] as const));
  const details = await fetchDetails(client, [...ids], (id) => `${resource}/${id}`, kind);
  return [...details].flatMap(([id, detail]) => {
    const module = moduleOfId.get(id);
    return module ? [toLiveRecord(module, id, detail, scope, true)] : [];
  });
}

/**
 * What a read holds in full: every field that can name a record erpsync removes — those grouping by
 * product categories, with their details — when it sought them or read every field of every module.
 */
function wholeFields(scope: ReadScope, records: readonly LiveRecord[]): true | undefined {
  return seeksCategoryGroupings(scope) || (scope.all && records.every((r) => r.detailLoaded)) ? true : undefined;
}

/** Grouping records as ids: product categories by identity (created earlier in the run too), contact types by name or id. */
function groupingIds(agrupadores: unknown, context: WriteContext): { id: number | undefined }[] | undefined {
  if (!isPlainRecord(agrupadores)) return undefined;
  const categories = Array.isArray(agrupadores.categoriasProdutos) ? agrupadores.categoriasProdutos : [];
  const types = Array.isArray(agrupadores.tiposContatos) ? agrupadores.tiposContatos : [];
  return [
    ...categories.map((c: unknown) => ({ id: typeof c === 'string' ? requireId(context, 'categoriasProdutos', c) : readInteger(c) })),
    ...types.map((t: unknown) => ({ id: referenceId(context, 'tiposContatos', t) })),
  ];
}

/** Options by name; one the live record has keeps its id, so the values chosen from it stay. */
function optionsBody(opcoes: unknown, liveOptions: unknown): { id?: number; nome: string }[] | undefined {
  if (!Array.isArray(opcoes)) return undefined;
  const known = Array.isArray(liveOptions) ? liveOptions.filter(isPlainRecord) : [];
  return opcoes.map((nome: unknown) => {
    const id = readInteger(known.find((o) => readName(o.nome) === readName(nome))?.id);
    return { ...(id === undefined ? {} : { id }), nome: readName(nome) };
  });
}

/** The members POST and PUT share: the manifest's, over the live record's for what it leaves out. */
function editableBody(desired: Record<string, unknown>, context: WriteContext): Record<string, unknown> {
  const raw = context.live?.raw ?? {};
  const liveSize = isPlainRecord(raw.tamanho) ? raw.tamanho : {};
  const size = isPlainRecord(desired.tamanho) || isPlainRecord(raw.tamanho) ? { ...liveSize, ...(isPlainRecord(desired.tamanho) ? desired.tamanho : {}) } : undefined;
  return compact({
    nome: typeof desired.nome === 'string' ? normalizeName(desired.nome) : raw.nome,
    situacao: desired.situacao ?? raw.situacao,
    placeholder: desired.placeholder ?? raw.placeholder,
    obrigatorio: desired.obrigatorio ?? raw.obrigatorio,
    opcoes: optionsBody(desired.opcoes, raw.opcoes) ?? raw.opcoes,
    tamanho: size,
    agrupadores: groupingIds(desired.agrupadores, context) ?? (Array.isArray(raw.agrupadores) ? raw.agrupadores.map((a) => ({ id: readReferenceId(a) })) : undefined),
  });
}

async function createField(change: Change, context: WriteContext): Promise<{ id: number }> {
  const desired = change.desired ?? {};
  const body = {
    ...editableBody(desired, context),
    modulo: { id: requireId(context, 'modulosCamposCustomizados', readName(desired.modulo)) },
    tipoCampo: { id: referenceId(context, 'tiposCamposCustomizados', desired.tipoCampo) },
  };
  return postRecord(context.client, resource, kind, body);
}

async function updateField(change: Change, context: WriteContext): Promise<void> {
  await context.client.request({ method: 'PUT', path: `${resource}/${requireLiveId(change)}`, body: editableBody(change.desired ?? {}, context), kind });
}

async function patchSituacao(change: Change, context: WriteContext, situacaoValue: unknown): Promise<void> {
  await context.client.request({ method: 'PATCH', path: `${resource}/${requireLiveId(change)}/situacoes`, body: { situacao: situacaoValue }, kind });
}

/** `situacao` has its own PATCH; the rest is one PUT (which also carries the wanted situacao, so the order of the two is free). */
function splitFieldUpdate(changed: FieldChange[]): { action: Change['action']; fields: FieldChange[] }[] {
  const status = changed.filter((f) => f.path === 'situacao');
  const rest = changed.filter((f) => f.path !== 'situacao');
  return [...(rest.length > 0 ? [{ action: 'update' as const, fields: rest }] : []), ...(status.length > 0 ? [{ action: 'set-status' as const, fields: status }] : [])];
}

/** What a create gives the fields it leaves out (active, no placeholder, optional, no limits, no options, every record): export omits them. */
function exportField(record: LiveRecord): Record<string, unknown> {
  const { situacao: state, placeholder, obrigatorio, tamanho, opcoes, agrupadores, ...rest } = record.fields;
  const size = isPlainRecord(tamanho) ? compact({ minimo: tamanho.minimo === 0 ? undefined : tamanho.minimo, maximo: tamanho.maximo === 0 ? undefined : tamanho.maximo }) : {};
  const groups = isPlainRecord(agrupadores) ? Object.fromEntries(Object.entries(agrupadores).filter(([, list]) => Array.isArray(list) && list.length > 0)) : {};
  return compact({
    ...rest,
    situacao: state === situacaoCampoLabels.ativo ? undefined : state,
    placeholder: placeholder === '' ? undefined : placeholder,
    obrigatorio: obrigatorio === true ? true : undefined,
    tamanho: Object.keys(size).length > 0 ? size : undefined,
    opcoes: Array.isArray(opcoes) && opcoes.length > 0 ? opcoes : undefined,
    agrupadores: Object.keys(groups).length > 0 ? groups : undefined,
  });
}

/** Grouping records are a set: their order means nothing. */
function canonicalizeField(values: Record<string, unknown>): Record<string, unknown> {
  if (!isPlainRecord(values.agrupadores)) return values;
  const sorted = Object.fromEntries(Object.entries(values.agrupadores).map(([key, list]) => [key, Array.isArray(list) ? [...list].map(String).sort() : list]));
  return { ...values, agrupadores: sorted };
}

function describeLoss(record: LiveRecord): string {
  const records = groupingByModule[readName(record.raw.moduloSistema)]?.records ?? `${String(record.fields.modulo)} records`;
  return `the values stored in this field on ${records} are lost with it`;
}

export const camposCustomizados = defineKind({
  key: 'camposCustomizados',
  title: 'custom fields',
  resource,
  shape: 'list',
  recordSchema: defineListRecord(fields, {
    title: 'Custom field',
    description: "A custom field of a module's records, identified by modulo and nome.",
    identity: ['modulo', 'nome'],
    requiredUnlessAbsent: ['tipoCampo'],
  }),
  enums: [situacao.field],
  secretFields: [],
  nameField: 'nome',
  lengthLimits: camposCustomizadosLengthLimits,
  scopeField: 'modulo',
  references: [
    { path: ['modulo'], target: 'modulosCamposCustomizados', parent: false },
    { path: ['tipoCampo'], target: 'tiposCamposCustomizados', parent: false },
    // A removed category leaves the field, which stays: its name is taken out of the list.
    { path: ['agrupadores', 'categoriasProdutos', '*'], target: 'categoriasProdutos', parent: false, whenTargetRemoved: 'name-dropped' },
    { path: ['agrupadores', 'tiposContatos', '*'], target: 'tiposContatos', parent: false },
  ],
  readLive: readFields,
  wholeRead: wholeFields,
  canonicalize: canonicalizeField,
  // The list per module holds id, nome and situacao only.
  readBackDetail: (change) => change.fields.some((field) => !['nome', 'situacao'].includes(field.path.split('.')[0] ?? '')),
  readsById: true,
  splitUpdate: splitFieldUpdate,
  // Set on create only; PUT ignores nome, so a new name is a new field.
  immutableFields: ['modulo', 'tipoCampo', 'nome'],
  replacementLoss: describeLoss,
  retire: 'status',
  isRetired: (record) => record.fields.situacao === situacaoCampoLabels.inativo,
  retirementFields: (record) => [{ path: 'situacao', before: record.fields.situacao, after: situacaoCampoLabels.inativo }],
  canDelete: true,
  exportFields: exportField,
  execute: executeByAction('custom fields', {
    create: createField,
    update: updateField,
    'set-status': (change, context) => patchSituacao(change, context, change.fields.find((f) => f.path === 'situacao')?.after ?? change.desired?.situacao),
    retire: (change, context) => patchSituacao(change, context, situacaoCampoLabels.inativo),
    delete: deleteOperation(resource, kind),
  }),
});
