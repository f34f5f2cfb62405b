// Custom situations (/situacoes): the manifest record, its schema, and the runtime adapter.
// Identity is the module's name (`modulo`, e.g. `Vendas`) plus `nome`; the base situation whose
// behaviour a custom one inherits is named by `herdado` (the API's `idHerdado`). There is no list
// of situations: they are read per module (`/situacoes/modulos/{id}`), and only for the modules
// the manifests name. Built-ins (idHerdado 0) are the account's own and never changed or deleted;
// colours compare without regard to case. No other kind's quirks here.
import type { ApiClient } from '../api/client.js';
import { ErpsyncError } from '../model/errors.js';
import { firstSegment, joinPath, normalizeName, pathSeparator } from '../model/names.js';
import { compact, deleteOperation, executeByAction, identifyListItems, postRecord, readInteger, readName, readNamedList, requireId, requireLiveId } from './live-helpers.js';
import type { FieldTable, FieldTableEntry, ToolKeys } from './shared-schema.js';
import { defineListRecord, defineName, toolKeyFields, erpsyncNameLimit } from './shared-schema.js';
import type { Change } from '../model/plan.js';
import type { DesiredUnit } from '../model/desired.js';
import type { LiveRecord } from '../model/live.js';
import { colour } from '../model/field-types.js';
import { defineKind } from './kind.js';
import type { ReadScope, WriteContext, LengthLimit } from './kind.js';

export interface SituacaoManifest extends ToolKeys {
  modulo: string;
  nome: string;
  /** Required unless `ensure: absent`. */
  herdado?: string;
  cor?: string;
}

/** The longest nome the kind takes (docs/manifest.md, "Name lengths"). */
export const situacoesLengthLimits = { nome: erpsyncNameLimit } as const satisfies Readonly<Record<string, LengthLimit>>;

const fields = {
  modulo: defineName(
    'Name of the module the situation belongs to, as /situacoes/modulos lists it (e.g. `Vendas`). Only modules that allow custom situations accept new ones. Required.',
  ),
  nome: defineName('Name of the situation; unique within its module and, with modulo, its identity. Required.', situacoesLengthLimits.nome),
  herdado: defineName(
    'Name of the built-in situation of the same module whose behaviour this one inherits (e.g. `Em aberto`, `Em andamento`, `Atendido`). Written to the API as idHerdado. Required unless ensure is absent.',
  ),
  cor: {
    type: 'string',
    pattern: '^#[0-9A-Fa-f]{6}$',
    description: 'Colour shown for the situation, `#RRGGBB`. Compared without regard to case, since the API changes it.',
  },
  ...toolKeyFields,
} as const satisfies FieldTable<SituacaoManifest>;

/**
 * The built-in situations of the Vendas module, as a real account lists them (reference/api-facts
 * §2.5, S8: ids 6…24, idHerdado 0); other modules' built-ins are not documented, so not listed.
 */
const vendasBuiltIns = ['Em aberto', 'Atendido', 'Cancelado', 'Em andamento', 'Venda Agenciada', 'Em digitação', 'Verificado'];

export const situacaoFieldTables: readonly FieldTableEntry[] = [{ path: [], fields }];


function expectList(data: unknown, path: string): unknown[] {
  if (!Array.isArray(data)) throw new ErpsyncError('API_ERROR', `GET ${path}: expected a list in \`data\``);
  return data;
}

function moduleNameOf(fields: Record<string, unknown>): string {
  return readName(fields.modulo);
}

/** The situations of one module, in the manifest's shape; `herdado` names the base situation by identity. */
function readModuleSituations(module: LiveRecord, items: readonly unknown[], path: string): LiveRecord[] {
  const rows = identifyListItems(items, path);
  const nameById = new Map(rows.map(({ id, raw }) => [id, readName(raw.nome)]));
  return rows.map(({ id, raw }): LiveRecord => {
    const nome = readName(raw.nome);
    const idHerdado = readInteger(raw.idHerdado) ?? 0;
    const baseName = idHerdado === 0 ? undefined : nameById.get(idHerdado);
    return {
      kind: 'situacoes',
      id,
      identity: joinPath([module.name, nome]),
      name: nome,
      fields: compact({
        modulo: module.name,
        nome,
        herdado: baseName === undefined ? undefined : joinPath([module.name, baseName]),
        cor: typeof raw.cor === 'string' ? raw.cor : undefined,
      }),
      // The module is known from the listing only (the situation itself does not carry it);
      // keeping it here gives updates the full body the API replaces the record with.
      raw: { ...raw, idModuloSistema: module.id },
      ...(idHerdado === 0 ? { system: 'built-in' as const } : {}),
      detailLoaded: true,
    };
  });
}

/** The module a desired unit lives in: its `modulo`, else the first segment of its identity (a unit rebuilt from a saved plan's removal has no fields). */
function moduleOfUnit(unit: DesiredUnit): string {
  return moduleNameOf(unit.fields) || (unit.identity.split(pathSeparator)[0] ?? '');
}

/** The modules whose situations a read lists, each whole: every module, or those of the desired situations and of situations being removed (a base may be named within the module). */
function modulesListed(scope: ReadScope): true | Set<string> {
  if (scope.all) return true;
  const named = new Set(scope.desired.map(moduleOfUnit));
  for (const situation of scope.removing?.get('situacoes') ?? []) named.add(firstSegment(situation.identity));
  return named;
}

async function readSituations(client: ApiClient, scope: ReadScope): Promise<LiveRecord[]> {
  const listed = modulesListed(scope);
  if (listed !== true && listed.size === 0) return [];
  // Read as a read-only kind when a manifest names a module (always, for a desired situation).
  const modules = scope.earlier.get('modulosSituacoes') ?? (await readNamedList(client, '/situacoes/modulos', 'situacoes', 'nome', false));
  const chosen = listed === true ? modules : modules.filter((module) => listed.has(module.name));
  const lists = await Promise.all(
    chosen.map(async (module) => {
      const path = `/situacoes/modulos/${module.id}`;
      const { data } = await client.request<unknown>({ method: 'GET', path, kind: 'situacoes' });
      return readModuleSituations(module, expectList(data, path), path);
    }),
  );
  return lists.flat();
}

/** The API fields a manifest sets, references turned into ids. */
function writableFields(desired: Record<string, unknown>, context: WriteContext): Record<string, unknown> {
  return compact({
    nome: typeof desired.nome === 'string' ? normalizeName(desired.nome) : undefined,
    idHerdado: typeof desired.herdado === 'string' ? requireId(context, 'situacoes', desired.herdado) : undefined,
    cor: desired.cor,
  });
}

async function createSituation(change: Change, context: WriteContext): Promise<{ id: number }> {
  const desired = change.desired ?? {};
  const idModuloSistema = requireId(context, 'modulosSituacoes', moduleNameOf(desired));
  return postRecord(context.client, '/situacoes', 'situacoes', { idModuloSistema, ...writableFields(desired, context) });
}

async function updateSituation(change: Change, context: WriteContext): Promise<void> {
  const id = requireLiveId(change);
  const raw = context.live?.raw ?? {};
  const body = {
    ...compact({ idModuloSistema: readInteger(raw.idModuloSistema), nome: raw.nome, idHerdado: readInteger(raw.idHerdado), cor: raw.cor }),
    ...writableFields(change.desired ?? {}, context),
  };
  await context.client.request({ method: 'PUT', path: `/situacoes/${id}`, body, kind: 'situacoes' });
}

export const situacoes = defineKind({
  key: 'situacoes',
  title: 'situations',
  resource: '/situacoes',
  shape: 'list',
  recordSchema: defineListRecord(fields, {
    title: 'Situation',
    description: 'A custom situation (situação) of a module, identified by modulo and nome.',
    identity: ['modulo', 'nome'],
    requiredUnlessAbsent: ['herdado'],
  }),
  enums: [],
  secretFields: [],
  nameField: 'nome',
  lengthLimits: situacoesLengthLimits,
  scopeField: 'modulo',
  accountRecords: vendasBuiltIns.map((nome) => joinPath(['Vendas', nome])),
  references: [
    { path: ['modulo'], target: 'modulosSituacoes', parent: false },
    { path: ['herdado'], target: 'situacoes', parent: false },
  ],
  readLive: readSituations,
  // A module's situations are listed whole: the read holds every situation of the modules it listed.
  wholeRead: (scope) => modulesListed(scope),
  // The API stores custom colours lower-case whatever was sent, and built-ins upper-case.
  fieldTypes: { cor: colour },
  // A situation cannot move to another module; a different module is a different situation.
  immutableFields: ['modulo'],
  retire: 'none',
  canDelete: true,
  execute: executeByAction('situations', { create: createSituation, update: updateSituation, delete: deleteOperation('/situacoes', 'situacoes') }),

});
