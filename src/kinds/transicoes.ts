// Situation transitions (/situacoes/transicoes): which situation of a module may follow which,
// the actions the move runs, and whether it is active. A kind of its own rather than a list
// under `situacoes`, because most transitions join built-in situations that no manifest declares.
// Identity: `modulo` + `de → para` (situations by name within the module). `de` and `para` refer
// to situations (created first; a situation's removal waits for its transitions' removals, and a
// transition cannot outlive them: it goes with a removed situation), and `acoes` to the module's
// actions (read-only acoesSituacoes, by descricao). There is no list of transitions: they are read
// per module (/situacoes/modulos/{id}/transicoes), only for the modules the manifests name or where
// a situation is removed. A transition between two built-in situations is the account's own —
// known from the module's situations, read here when no manifest made erpsync read them — never
// pruned, but changeable when a manifest names it. PUT replaces the whole record. No other
// kind's quirks here.
import type { ApiClient } from '../api/client.js';
import type { DesiredUnit } from '../model/desired.js';
import { ErpsyncError } from '../model/errors.js';
import type { LiveRecord } from '../model/live.js';
import { firstSegment, joinPath, lastSegment, normalizeName, pathSeparator } from '../model/names.js';
import type { Change } from '../model/plan.js';
import { defineKind } from './kind.js';
import type { ReadScope, WriteContext } from './kind.js';
import {
  compact,
  deleteOperation,
  executeByAction,
  identifyListItems,
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
import type { FieldTable, FieldTableEntry, ToolKeys } from './shared-schema.js';
import { defineListRecord, defineName, toolKeyFields } from './shared-schema.js';

export interface TransicaoManifest extends ToolKeys {
  modulo: string;
  de: string;
  para: string;
  acoes?: (string | number)[];
  ativo?: boolean;
}

const fields = {
  modulo: defineName('Name of the module of both situations, as /situacoes/modulos lists it (e.g. `Vendas`). Required.'),
  de: defineName('The situation the move starts from, by name within the module (e.g. `Em aberto`). Required.'),
  para: defineName('The situation the move leads to, by name within the module (e.g. `Em andamento`). Required.'),
  acoes: {
    type: 'array',
    items: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'integer', minimum: 1 }] },
    uniqueItems: true,
    description:
      "Actions the move runs, by descricao as /situacoes/modulos/{id}/acoes lists them for the module (e.g. `Lançar estoque`), or by id. Their order means nothing. None when omitted on creation.",
  },
  ativo: { type: 'boolean', description: 'Whether the transition is active. Active when omitted on creation.' },
  ...toolKeyFields,
} as const satisfies FieldTable<TransicaoManifest>;

export const transicaoFieldTables: readonly FieldTableEntry[] = [{ path: [], fields }];

const kind = 'transicoes';
const arrow = ' → ';

/** `de → para`: the name a transition is known by within its module (ends by name, as written or resolved). */
function nameOf(value: Record<string, unknown>): string {
  const end = (field: string) => (typeof value[field] === 'string' ? lastSegment(normalizeName(value[field])) : '');
  return `${end('de')}${arrow}${end('para')}`;
}

function moduleOf(unit: DesiredUnit): string {
  return readName(unit.fields.modulo) || (unit.identity.split(pathSeparator)[0] ?? '');
}

/**
 * The transitions of one module, in the manifest's shape: situations as `module > name` identities.
 * `builtIns` are the ids of the module's built-in situations (idHerdado 0): a transition between
 * two of them is the account's own.
 */
function readModuleTransitions(module: LiveRecord, items: readonly unknown[], path: string, scope: ReadScope, builtIns: ReadonlySet<number>): LiveRecord[] {
  const situations = new Map((scope.earlier.get('situacoes') ?? []).map((s) => [s.id, s]));
  return identifyListItems(items, path).map(({ id, raw }): LiveRecord => {
    const end = (value: unknown) => {
      const ref = value as Record<string, unknown> | undefined;
      const situation = situations.get(readReferenceId(ref) ?? 0);
      return situation ? situation.identity : joinPath([module.name, readName(ref?.nome)]);
    };
    const de = end(raw.situacaoOrigem);
    const para = end(raw.situacaoDestino);
    const acoes = Array.isArray(raw.acoes) ? raw.acoes.map(readInteger).map((a) => nameReadOnlyReference(scope.earlier, 'acoesSituacoes', a)) : [];
    const builtIn = [raw.situacaoOrigem, raw.situacaoDestino].every((ref) => builtIns.has(readReferenceId(ref) ?? 0));
    const name = `${lastSegment(de)}${arrow}${lastSegment(para)}`;
    return {
      kind,
      id,
      identity: joinPath([module.name, name]),
      name,
      fields: compact({ modulo: module.name, de, para, acoes, ativo: readBoolean(raw.ativo) }),
      // The module is known from the listing only: a PUT needs it back.
      raw: { ...raw, idModuloSistema: module.id },
      ...(builtIn ? { accountDefault: 'pristine' as const } : {}),
      detailLoaded: true,
    };
  });
}

/** Whether a declared transition may be in the account: both its ends may be (unknown ends: yes). */
function mayBeLive(unit: DesiredUnit, scope: ReadScope): boolean {
  const end = (field: 'de' | 'para') => {
    const name = unit.fields[field];
    return typeof name !== 'string' || (scope.mayBeInAccount?.('situacoes', joinPath([moduleOf(unit), name])) ?? true);
  };
  return end('de') && end('para');
}

/**
 * The modules whose transitions a read lists, each whole: every module, or those where a declared
 * transition may exist and those of situations being removed (ReadScope.removing). A transition
 * between situations of which one is not in the account cannot be there either, so a new store's
 * transitions between its new situations need no read.
 */
function modulesListed(scope: ReadScope): true | Set<string> {
  if (scope.all) return true;
  const named = new Set(scope.desired.filter((unit) => mayBeLive(unit, scope)).map(moduleOf));
  for (const situation of scope.removing?.get('situacoes') ?? []) named.add(firstSegment(situation.identity));
  return named;
}

/**
 * The ids of a module's built-in situations, from the situations read before when they hold the
 * module, else from its list (/situacoes/modulos/{id}): a pruned kind reads every module, whatever
 * situations the manifests made erpsync read, and must know every module's own transitions.
 */
async function builtInSituations(client: ApiClient, module: LiveRecord, scope: ReadScope): Promise<Set<number>> {
  const read = (scope.earlier.get('situacoes') ?? []).filter((s) => firstSegment(s.identity) === module.name);
  if (read.length > 0) return new Set(read.filter((s) => s.system === 'built-in').map((s) => s.id));
  const path = `/situacoes/modulos/${module.id}`;
  const { data } = await client.request<unknown>({ method: 'GET', path, kind });
  if (!Array.isArray(data)) throw new ErpsyncError('API_ERROR', `GET ${path}: expected a list in \`data\``);
  return new Set(identifyListItems(data, path).filter(({ raw }) => (readInteger(raw.idHerdado) ?? 0) === 0).map(({ id }) => id));
}

async function readTransitions(client: ApiClient, scope: ReadScope): Promise<LiveRecord[]> {
  const listed = modulesListed(scope);
  if (listed !== true && listed.size === 0) return [];
  const modules = (scope.earlier.get('modulosSituacoes') ?? (await readNamedList(client, '/situacoes/modulos', kind, 'nome', false))).filter((m) => listed === true || listed.has(m.name));
  const lists = await Promise.all(
    modules.map(async (module) => {
      const path = `/situacoes/modulos/${module.id}/transicoes`;
      const [{ data }, builtIns] = await Promise.all([client.request<unknown>({ method: 'GET', path, kind }), builtInSituations(client, module, scope)]);
      if (!Array.isArray(data)) throw new ErpsyncError('API_ERROR', `GET ${path}: expected a list in \`data\``);
      return readModuleTransitions(module, data, path, scope, builtIns);
    }),
  );
  return lists.flat();
}

/** The full body POST and PUT take: situations and actions as ids, the record's module kept. */
/** Actions are a set of names: their order means nothing. */
function canonicalizeTransition(fields: Record<string, unknown>): Record<string, unknown> {
  return Array.isArray(fields.acoes) ? { ...fields, acoes: [...fields.acoes].map(String).sort() } : fields;
}

function transitionBody(desired: Record<string, unknown>, context: WriteContext): Record<string, unknown> {
  const live = context.live;
  const situation = (field: 'de' | 'para', liveField: string) =>
    typeof desired[field] === 'string' ? { id: requireId(context, 'situacoes', desired[field]) } : { id: readReferenceId(live?.raw[liveField]) };
  const acoes = Array.isArray(desired.acoes) ? desired.acoes.map((a) => referenceId(context, 'acoesSituacoes', a)) : (live?.raw.acoes ?? []);
  const moduleId = readInteger(live?.raw.idModuloSistema);
  return compact({
    ...(moduleId === undefined ? {} : { modulo: { id: moduleId } }),
    situacaoOrigem: situation('de', 'situacaoOrigem'),
    situacaoDestino: situation('para', 'situacaoDestino'),
    acoes,
    ativo: desired.ativo ?? readBoolean(live?.raw.ativo) ?? true,
  });
}

async function updateTransition(change: Change, context: WriteContext): Promise<void> {
  await context.client.request({ method: 'PUT', path: `/situacoes/transicoes/${requireLiveId(change)}`, body: transitionBody(change.desired ?? {}, context), kind });
}

/** What a create gives the fields it leaves out (no actions, active): export omits them. */
function exportTransition(record: LiveRecord): Record<string, unknown> {
  const { acoes, ativo, ...rest } = record.fields;
  return compact({ ...rest, acoes: Array.isArray(acoes) && acoes.length > 0 ? acoes : undefined, ativo: ativo === false ? false : undefined });
}

export const transicoes = defineKind({
  key: 'transicoes',
  title: 'situation transitions',
  resource: '/situacoes/transicoes',
  shape: 'list',
  recordSchema: defineListRecord(fields, {
    title: 'Situation transition',
    description: 'A transition between two situations of a module (de → para), identified by modulo, de and para.',
    identity: ['modulo', 'de', 'para'],
    requiredUnlessAbsent: [],
  }),
  enums: [],
  secretFields: [],
  nameField: 'de',
  composeName: nameOf,
  scopeField: 'modulo',
  references: [
    { path: ['modulo'], target: 'modulosSituacoes', parent: false },
    { path: ['de'], target: 'situacoes', parent: false, scope: ['modulo'] },
    { path: ['para'], target: 'situacoes', parent: false, scope: ['modulo'] },
    { path: ['acoes', '*'], target: 'acoesSituacoes', parent: false, scope: ['modulo'] },
  ],
  readLive: readTransitions,
  // A module's transitions are listed whole: the read holds every transition of the modules it listed.
  wholeRead: (scope) => modulesListed(scope),
  // Actions are a set: their order means nothing.
  canonicalize: canonicalizeTransition,
  // A create sends the actions and the switch even when a manifest leaves them out (none, on).
  createFields: (fields) => ({ ...canonicalizeTransition(fields), acoes: canonicalizeTransition(fields).acoes ?? [], ativo: fields.ativo ?? true }),
  // Another module, or other ends, is another transition.
  immutableFields: ['modulo', 'de', 'para'],
  retire: 'none',
  canDelete: true,
  exportFields: exportTransition,
  execute: executeByAction('situation transitions', {
    create: (change, context) => postRecord(context.client, '/situacoes/transicoes', kind, transitionBody(change.desired ?? {}, context)),
    update: updateTransition,
    delete: deleteOperation('/situacoes/transicoes', kind),
  }),
});
