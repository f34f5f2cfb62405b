// Custom logistics (/logisticas) with their services (/logisticas/servicos) nested in the same
// record: the manifest record, its schema and label table, the check that service codes are
// unique within a logistics, and two runtime adapters. `logisticas` owns the logistics
// itself (identity `descricao`; PUT carries only descricao and situacao, retire = situacao D);
// it never compares or sends `servicos`. `logisticasServicosAdapter` owns the services as units
// of their own, derived from each logistics' `servicos` list (identity `<logistics> > <codigo>`),
// read from the services list (which, unlike the logistics detail, also shows inactive ones) and
// written through /logisticas/servicos (or nested in the create of a new logistics, as the plan
// batches them: Change.carries). Services cannot be deleted through the API, only
// deactivated, so a service tombstone means `ativo: false`. A native integration (Correios …)
// belongs to the carrier and is never changed; its services are the account's own (never pruned),
// and the one change the API takes for them, switching one on or off, is planned for those a
// manifest names. No other kind's quirks here.
import type { ApiClient } from '../api/client.js';
import { ErpsyncError } from '../model/errors.js';
import { joinPath, normalizeName, pathSeparator } from '../model/names.js';
import type { Coded, EnsureValue, FieldTable, FieldTableEntry, ToolKeys } from './shared-schema.js';
import { defineEnum, defineListRecord, defineName, defineObject, toolKeyFields, erpsyncNameLimit } from './shared-schema.js';
import {
  compact,
  deleteOperation,
  executeByAction,
  identifyListItems,
  isPlainRecord,
  nameReadOnlyReference,
  postRecord,
  readBoolean,
  readInteger,
  readName,
  readNumber,
  readReferenceId,
  referenceId,
  requireId,
  requireLiveId,
} from './live-helpers.js';
import type { DesiredUnit, ManifestRecord } from '../model/desired.js';
import type { LiveRecord } from '../model/live.js';
import type { Change, FieldChange } from '../model/plan.js';
import { decimal } from '../model/field-types.js';
import { defineKind, defineNestedKind } from './kind.js';
import type { CheckFinding, ReadScope, WriteContext, LengthLimit } from './kind.js';

export const situacaoLogisticaLabels = { habilitada: 'H', desabilitada: 'D' } as const;

export interface TransportadorManifest {
  id: number;
}

export interface ServicoLogisticaManifest {
  id?: number;
  ensure?: EnsureValue;
  codigo: string;
  /** Required unless `ensure: absent` (so are freteItem and estimativaEntrega). */
  descricao?: string;
  freteItem?: number;
  estimativaEntrega?: number;
  aliases?: string[];
  ativo?: boolean;
  idCodigoServico?: string;
  /** The carrier contact: its name, its id, or `{ id }`. */
  transportador?: string | number | TransportadorManifest;
}

export interface LogisticaManifest extends ToolKeys {
  descricao: string;
  /** Required unless `ensure: absent`. */
  situacao?: Coded<typeof situacaoLogisticaLabels>;
  servicos?: ServicoLogisticaManifest[];
}

const situacao = defineEnum({
  path: ['situacao'],
  labels: situacaoLogisticaLabels,
  summary: 'Whether the logistics is enabled for orders (the API uses the letters H and D here). Required unless ensure is absent.',
});

const transportadorFields = {
  id: {
    type: 'integer',
    minimum: 1,
    description: 'Id of the carrier contact in the account (the same as writing the id alone).',
  },
} as const satisfies FieldTable<TransportadorManifest>;

/** The longest descricao the kind takes (docs/manifest.md, "Name lengths"). */
export const logisticasLengthLimits = { descricao: erpsyncNameLimit } as const satisfies Readonly<Record<string, LengthLimit>>;

const servicoFields = {
  id: {
    type: 'integer',
    minimum: 1,
    description: 'Tool key. Id of the live service this entry manages, to pin it when its codigo changed outside erpsync.',
  },
  ensure: {
    enum: ['present', 'absent'],
    description:
      'Tool key. `absent` deactivates the service (ativo false): the API has no way to delete a logistics service.',
  },
  codigo: defineName('Service code; identifies the service within its logistics and must be unique there. Required.'),
  descricao: defineName('Name of the service as shown on orders and labels. Required unless ensure is absent.'),
  freteItem: {
    type: 'number',
    minimum: 0,
    description: 'Freight in BRL charged for each item of an order. Required unless ensure is absent.',
  },
  estimativaEntrega: {
    type: 'integer',
    minimum: 0,
    description: 'Delivery estimate in business days. Required unless ensure is absent.',
  },
  aliases: {
    type: 'array',
    items: { type: 'string', minLength: 1 },
    uniqueItems: true,
    description: 'Other names marketplaces and integrations use for this service. An empty list when omitted on creation.',
  },
  ativo: { type: 'boolean', description: 'Whether the service is active. Inactive services are hidden from new orders.' },
  idCodigoServico: {
    type: 'string',
    minLength: 1,
    description: 'Id of the service code in the carrier integration (a string in the API, even when it looks numeric).',
  },
  transportador: {
    anyOf: [
      { type: 'string', minLength: 1 },
      { type: 'integer', minimum: 1 },
      defineObject(transportadorFields, { required: ['id'] }),
    ],
    description: 'Carrier of the service: the contact by its nome as /contatos lists it (e.g. `Transportadora Expressa Ltda`), or by id (`123` or `{ id: 123 }`).',
  },
} as const satisfies FieldTable<ServicoLogisticaManifest>;

const servicoSchema = defineListRecord(servicoFields, {
  title: 'Logistics service',
  description: 'A service of the logistics, identified by codigo.',
  identity: ['codigo'],
  requiredUnlessAbsent: ['descricao', 'freteItem', 'estimativaEntrega'],
});

const fields = {
  descricao: defineName('Name of the logistics; identifies the record. Required.', logisticasLengthLimits.descricao),
  situacao: situacao.schema,
  servicos: {
    type: 'array',
    items: servicoSchema,
    description:
      'Services of this logistics. Services the manifest leaves out are left alone unless policy.prune lists logisticas (then they are retired); a service is retired with `ensure: absent` or `ativo: false`.',
  },
  ...toolKeyFields,
} as const satisfies FieldTable<LogisticaManifest>;

export const logisticaFieldTables: readonly FieldTableEntry[] = [
  { path: [], fields },
  { path: ['servicos', '*'], fields: servicoFields },
  { path: ['servicos', '*', 'transportador'], fields: transportadorFields },
];

/** A service code must name one service of its logistics: it is how services are matched. */
export function checkLogisticas(records: readonly ManifestRecord[]): CheckFinding[] {
  const findings: CheckFinding[] = [];
  for (const record of records) {
    const services = record.value.servicos;
    if (!Array.isArray(services)) continue;
    const firstIndexByCode = new Map<string, number>();
    services.forEach((service: unknown, index) => {
      const code = typeof service === 'object' && service !== null ? (service as Record<string, unknown>).codigo : undefined;
      if (typeof code !== 'string') return;
      const normalized = code.normalize('NFC').trim();
      const firstIndex = firstIndexByCode.get(normalized);
      if (firstIndex === undefined) {
        firstIndexByCode.set(normalized, index);
        return;
      }
      findings.push({
        severity: 'error',
        code: 'duplicate-service-code',
        message: `service codigo "${normalized}" is already used by servicos/${firstIndex} of this logistics`,
        hint: 'give each service of a logistics its own codigo, or merge the two entries',
        record,
        path: ['servicos', index, 'codigo'],
      });
    });
  }
  return findings;
}


/** The id the API answers a create with: `{id}`, or for services a list of `{id}`. */
function readSituacao(value: unknown): string | undefined {
  return value === 'H' || value === 'D' ? value : undefined;
}

function readLogistics({ id, raw }: { id: number; raw: Record<string, unknown> }): LiveRecord {
  const descricao = readName(raw.descricao);
  return {
    kind: 'logisticas',
    id,
    identity: descricao,
    name: descricao,
    fields: compact({ descricao, situacao: readSituacao(raw.situacao) }),
    raw,
    ...(readBoolean(raw.integracaoNativa) === true ? { system: 'native' as const } : {}),
    detailLoaded: false,
  };
}

/**
 * The list holds every field the manifest manages (descricao, situacao); services are read by
 * their own adapter, so no detail GET is ever needed here. Reverse logistics (an integration's)
 * are in the unfiltered list by the documented reading of `logisticasReversas` and missing from it
 * by the other, so they are asked for by the filter whenever it matters: a read of every record (a
 * prune, drift, export), which marks them so that nothing removes them unasked, and a manifest
 * naming a logistics the list lacks, which must not become a twin of a reverse one.
 */
async function readLogisticas(client: ApiClient, scope: ReadScope): Promise<LiveRecord[]> {
  const listed = identifyListItems(await client.listAll<unknown>('/logisticas', undefined, { kind: 'logisticas' }), '/logisticas');
  const names = new Set(listed.map((item) => readName(item.raw.descricao)));
  const ids = new Set(listed.map((item) => item.id));
  const missing = scope.desired.some((unit) => (unit.tool.id !== undefined ? !ids.has(unit.tool.id) : !names.has(unit.identity)));
  if (!scope.all && !missing) return listed.map(readLogistics);
  const readReverse = () => client.listAll<unknown>('/logisticas', { logisticasReversas: true }, { kind: 'logisticas' });
  // A read-back of written logistics finds them all in the list and does not ask again.
  const reverse = identifyListItems(await (scope.lookup ? scope.lookup(readReverse) : readReverse()), '/logisticas');
  const reverseIds = new Set(reverse.map((item) => item.id));
  const all = [...listed, ...reverse.filter((item) => !ids.has(item.id))].sort((a, b) => a.id - b.id);
  return all.map((item) => {
    const record = readLogistics(item);
    return reverseIds.has(item.id) && !record.system ? { ...record, accountDefault: 'pristine' as const } : record;
  });
}

/** PUT /logisticas/{id} takes exactly these two fields, both required; POST takes them too. */
function logisticsBody(raw: Record<string, unknown>, desired: Record<string, unknown>): Record<string, unknown> {
  return {
    descricao: typeof desired.descricao === 'string' ? normalizeName(desired.descricao) : raw.descricao,
    situacao: desired.situacao ?? raw.situacao,
  };
}

const executeLogistics = executeByAction('logistics', {
  async create(change, context) {
    // The services the plan put in this create (Change.carries) ride in its `servicos`: one
    // request for the logistics and all of them. The answer names only the logistics' id.
    const servicos = (context.carried ?? []).map(({ change: service }) => serviceBody({}, service.desired ?? {}, context));
    const body = compact({ ...logisticsBody({}, change.desired ?? {}), servicos: servicos.length > 0 ? servicos : undefined });
    return postRecord(context.client, '/logisticas', 'logisticas', body);
  },
  async update(change, { client, live }) {
    const body = logisticsBody(live?.raw ?? {}, change.desired ?? {});
    await client.request({ method: 'PUT', path: `/logisticas/${requireLiveId(change)}`, body, kind: 'logisticas' });
  },
  async retire(change, { client, live }) {
    const body = logisticsBody(live?.raw ?? {}, { situacao: 'D' });
    await client.request({ method: 'PUT', path: `/logisticas/${requireLiveId(change)}`, body, kind: 'logisticas' });
  },
  delete: deleteOperation('/logisticas', 'logisticas'),
});


const serviceToolKeys = new Set(['id', 'ensure']);

/** The service units a desired logistics declares in `servicos`. */
function deriveServices(parent: DesiredUnit): DesiredUnit[] {
  const entries = Array.isArray(parent.fields.servicos) ? (parent.fields.servicos as unknown[]) : [];
  return entries.flatMap((entry, index): DesiredUnit[] => {
    if (!isPlainRecord(entry) || typeof entry.codigo !== 'string') return [];
    const codigo = normalizeName(entry.codigo);
    const id = readInteger(entry.id);
    return [
      {
        kind: 'logisticasServicos',
        identity: joinPath([parent.identity, codigo]),
        name: codigo,
        parent: parent.identity,
        fields: Object.fromEntries(Object.entries(entry).filter(([key]) => !serviceToolKeys.has(key))),
        tool: { ...(id === undefined ? {} : { id }), ensure: entry.ensure === 'absent' ? 'absent' : 'present', protect: false, previousNames: [] },
        locate: (path) => parent.locate(['servicos', index, ...path]),
      },
    ];
  });
}

function readAliases(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((alias): alias is string => typeof alias === 'string') : undefined;
}

/**
 * A service as the manifest writes it; an empty carrier (id 0) or service-code id is left out.
 * The carrier is the contact's name when contacts were read (a manifest names one), else its id.
 */
function serviceFields(row: Record<string, unknown>, earlier: ReadScope['earlier'] = new Map()): Record<string, unknown> {
  const carrier = readReferenceId(row.transportador);
  const codeId = typeof row.idCodigoServico === 'number' ? String(row.idCodigoServico) : row.idCodigoServico;
  return compact({
    codigo: readName(row.codigo),
    descricao: readName(row.descricao),
    freteItem: readNumber(row.freteItem),
    estimativaEntrega: readInteger(row.estimativaEntrega),
    aliases: readAliases(row.aliases),
    ativo: readBoolean(row.ativo),
    idCodigoServico: typeof codeId === 'string' && codeId !== '' ? codeId : undefined,
    transportador: nameReadOnlyReference(earlier, 'contatos', carrier),
  });
}

/**
 * Whether the services a run needs may be in the account. Services of a logistics the account
 * lacks cannot be there, so when every declared logistics — tombstones too, whose removal must
 * know what sits inside — and every declared service's logistics is one the account lacks (a new
 * store), there is nothing to find. A pinned service, or one whose logistics is unknown (a saved
 * plan's re-check), is always looked for.
 */
function mayHaveServices(scope: ReadScope): boolean {
  const parents = [...(scope.parents ?? []).map((unit) => unit.identity), ...scope.desired.map((unit) => unit.parent)];
  if (parents.length === 0 || scope.desired.some((unit) => unit.tool.id !== undefined)) return true;
  return parents.some((parent) => parent === undefined || (scope.mayBeInAccount?.('logisticas', parent) ?? true));
}

async function readServices(client: ApiClient, scope: ReadScope): Promise<LiveRecord[]> {
  if (!scope.all && !mayHaveServices(scope)) return [];
  const parents = new Map((scope.earlier.get('logisticas') ?? []).map((record) => [record.id, record]));
  // One walk of the services list gives every service of every logistics, inactive ones
  // included; the logistics detail would cost a request per logistics and hide inactive ones.
  const rows = await client.listAll<unknown>('/logisticas/servicos', undefined, { kind: 'logisticasServicos' });
  return identifyListItems(rows, '/logisticas/servicos').flatMap(({ id, raw }): LiveRecord[] => {
    const parent = parents.get(readReferenceId(raw.logistica) ?? 0);
    // A service of a logistics that was not read (a reverse one the list left out) has no identity here.
    if (!parent) return [];
    const fields = serviceFields(raw, scope.earlier);
    const codigo = String(fields.codigo);
    return [
      {
        kind: 'logisticasServicos',
        id,
        identity: joinPath([parent.identity, codigo]),
        name: codigo,
        parent: parent.identity,
        fields,
        raw,
        // A native carrier's services are its own, but they switch on and off like any other; a
        // reverse logistics' services are its integration's, removed only when a manifest asks.
        ...(parent.system === 'native' || parent.accountDefault === 'pristine' ? { accountDefault: 'pristine' as const } : parent.system ? { system: parent.system } : {}),
        detailLoaded: true,
      },
    ];
  });
}

/** The strict body of a service create or update: required fields always present, right types. */
function serviceBody(base: Record<string, unknown>, desired: Record<string, unknown>, context: WriteContext): Record<string, unknown> {
  const merged = { ...base, ...compact(desired) };
  return compact({
    descricao: merged.descricao,
    codigo: merged.codigo,
    aliases: merged.aliases ?? [],
    ativo: merged.ativo,
    freteItem: merged.freteItem,
    estimativaEntrega: merged.estimativaEntrega,
    idCodigoServico: merged.idCodigoServico,
    transportador: carrierOf(merged.transportador, context),
  });
}

async function postData(client: ApiClient, path: string, kind: string, body: unknown): Promise<unknown> {
  return (await client.request<unknown>({ method: 'POST', path, body, kind })).data;
}

/** The ids of a services create: `data` is a list of `{id}`, one per service sent, in order. */
function createdIds(data: unknown, sent: number): (number | undefined)[] {
  const list = Array.isArray(data) ? data : [data];
  if (list.length !== sent) throw new ErpsyncError('API_ERROR', `POST /logisticas/servicos: ${sent} service(s) sent, ${list.length} id(s) answered`);
  return list.map((item) => (isPlainRecord(item) ? readInteger(item.id) : undefined));
}

/** The carrier as the API takes it, `{ id }`, from a name, an id or `{ id }`. */
function carrierOf(value: unknown, context: WriteContext): { id: number | undefined } | undefined {
  const carrier = isPlainRecord(value) ? value.id : value;
  return carrier === undefined ? undefined : { id: referenceId(context, 'contatos', carrier) };
}

/** The logistics a service key sits in: everything before its last segment (the codigo). */
function parentIdentityOf(key: string): string {
  const at = key.lastIndexOf(pathSeparator);
  return at < 0 ? key : key.slice(0, at);
}

const executeService = executeByAction('logistics services', {
  async create(change, context) {
    // The plan may batch the creates of one logistics (Change.carries): the API takes an array
    // and answers with one id per service, in the order sent.
    const logistica = { id: requireId(context, 'logisticas', parentIdentityOf(change.key)) };
    const batch = [change, ...(context.carried ?? []).map((c) => c.change)];
    const body = { logistica, servicos: batch.map((c) => serviceBody({}, c.desired ?? {}, context)) };
    const ids = createdIds(await postData(context.client, '/logisticas/servicos', 'logisticasServicos', body), batch.length);
    const carriedIds: Record<string, number> = {};
    batch.forEach((c, i) => {
      const id = ids[i];
      if (i > 0 && id !== undefined) carriedIds[c.id] = id;
    });
    return { ...(ids[0] === undefined ? {} : { id: ids[0] }), carriedIds };
  },
  async update(change, context) {
    const { client, live } = context;
    const body = serviceBody(live ? serviceFields(live.raw) : {}, change.desired ?? {}, context);
    await client.request({ method: 'PUT', path: `/logisticas/servicos/${requireLiveId(change)}`, body, kind: 'logisticasServicos' });
  },
  async 'set-status'(change, { client }) {
    await switchService(client, requireLiveId(change), change.fields.find((f) => f.path === 'ativo')?.after === true);
  },
  async retire(change, { client }) {
    await switchService(client, requireLiveId(change), false);
  },
});

async function switchService(client: ApiClient, id: number, ativo: boolean): Promise<void> {
  // The spec puts the switch under the logistics root, with the service's id.
  await client.request({ method: 'PATCH', path: `/logisticas/${id}/situacoes`, body: { ativo }, kind: 'logisticasServicos' });
}

/**
 * A native carrier's service (an account default here) takes only the on/off switch; its other
 * fields belong to the carrier, so a change to them is blocked. Custom services take one PUT.
 */
function splitServiceUpdate(fields: FieldChange[], live?: LiveRecord): { action: Change['action']; fields: FieldChange[] }[] {
  if (live?.accountDefault === undefined) return [{ action: 'update', fields }];
  const ativo = fields.filter((f) => f.path === 'ativo');
  const rest = fields.filter((f) => f.path !== 'ativo');
  return [...(ativo.length > 0 ? [{ action: 'set-status' as const, fields: ativo }] : []), ...(rest.length > 0 ? [{ action: 'blocked' as const, fields: rest }] : [])];
}

/** A service as a manifest declares it: the empty alias list and `ativo: true` are what a create gets. */
function exportService(record: LiveRecord): Record<string, unknown> {
  const { aliases, ativo, ...rest } = record.fields;
  return compact({ ...rest, aliases: Array.isArray(aliases) && aliases.length > 0 ? aliases : undefined, ativo: ativo === false ? false : undefined });
}

/** Aliases are a set of names (their order means nothing); the carrier by name or id compares by what it names. */
function canonicalizeService(fields: Record<string, unknown>): Record<string, unknown> {
  const aliases = readAliases(fields.aliases);
  const carrier = isPlainRecord(fields.transportador) ? { transportador: fields.transportador.id } : {};
  return { ...fields, ...(aliases ? { aliases: [...aliases].sort() } : {}), ...carrier };
}

const logisticasServicos = defineNestedKind({
  kind: 'logisticasServicos',
  field: 'servicos',
  deriveDesired: deriveServices,
  readLive: readServices,
  // The carrier by name or id: `{ id }` and the id alone are the same (references resolve both).
  references: [
    { path: ['transportador'], target: 'contatos', parent: false },
    { path: ['transportador', 'id'], target: 'contatos', parent: false },
  ],
  canonicalize: canonicalizeService,
  // Freight is money: compared at cents.
  fieldTypes: { freteItem: decimal(2) },
  // The body always carries aliases (serviceBody): none, when a manifest leaves them out.
  createFields: (fields) => {
    const canonical = canonicalizeService(fields);
    return { ...canonical, aliases: canonical.aliases ?? [] };
  },
  splitUpdate: splitServiceUpdate,
  retire: 'status',
  isRetired: (record) => record.fields.ativo === false,
  retirementFields: (record) => [{ path: 'ativo', before: record.fields.ativo, after: false }],
  canDelete: false,
  // The services POST takes an array: creates ride in their logistics' create, or go together per logistics.
  batching: { createsInParent: true, createsPerRequest: 50 },
  exportFields: exportService,
  execute: executeService,
});

export const logisticas = defineKind({
  key: 'logisticas',
  title: 'logistics',
  resource: '/logisticas',
  shape: 'list',
  recordSchema: defineListRecord(fields, {
    title: 'Logistics',
    description:
      'A custom logistics (logística personalizada) with its services, identified by descricao. Integrated carriers are not managed.',
    identity: ['descricao'],
    requiredUnlessAbsent: ['situacao'],
  }),
  enums: [situacao.field],
  secretFields: [],
  nameField: 'descricao',
  lengthLimits: logisticasLengthLimits,
  references: [],
  checkRecords: checkLogisticas,
  readLive: readLogisticas,
  // Services are units of logisticasServicos: comparing the list here would double every change.
  canonicalize: (fields) => {
    const { servicos: _services, ...rest } = fields;
    return rest;
  },
  retire: 'status',
  isRetired: (record) => record.fields.situacao === 'D',
  retirementFields: (record) => [{ path: 'situacao', before: record.fields.situacao, after: 'D' }],
  canDelete: true,
  execute: executeLogistics,
  nested: [logisticasServicos],
});
