// Warehouses (/depositos): the manifest record, its schema and the adapter. Identity `descricao`.
// The list holds all four fields, so no detail is read; a small manifest over many warehouses finds
// its records by `descricao=` (readListOrSearch). The list shows active warehouses unless asked for
// `situacao=0`, so both are asked for. POST and PUT take all four, required
// (PUT replaces: the merged full record is sent). There is no DELETE: a warehouse leaves by
// retirement (situacao 0), whatever the policy says, and the plan shows it as a retire. One
// warehouse is the default (padrao): making another one the default takes it from the old holder
// in the same PUT, so the old holder's padrao false is not drift to plan; the default itself is the
// account's own to a prune, which never retires it. No other kind's quirks here.
import type { ApiClient } from '../api/client.js';
import type { DesiredUnit, ManifestRecord } from '../model/desired.js';
import type { LiveRecord } from '../model/live.js';
import type { Change, FieldChange } from '../model/plan.js';
import { defineKind } from './kind.js';
import type { CheckFinding, LengthLimit, ReadScope, WriteContext } from './kind.js';
import { compact, executeByAction, fetchDetails, postRecord, readBoolean, readInteger, readListOrSearch, readName, requireLiveId, soughtKeys } from './live-helpers.js';
import type { NameSearch } from './live-helpers.js';
import type { Coded, FieldTable, FieldTableEntry, ToolKeys } from './shared-schema.js';
import { defineEnum, defineListRecord, defineName, toolKeyFields } from './shared-schema.js';

export const situacaoDepositoLabels = { ativo: 1, inativo: 0 } as const;

export interface DepositoManifest extends ToolKeys {
  descricao: string;
  situacao?: Coded<typeof situacaoDepositoLabels>;
  padrao?: boolean;
  desconsiderarSaldo?: boolean;
}

const situacao = defineEnum({
  path: ['situacao'],
  labels: situacaoDepositoLabels,
  summary: 'Whether the warehouse is in use. A warehouse cannot be deleted: `inativo` (or ensure: absent) retires it. Active when omitted on creation.',
});

/**
 * The longest descricao the kind takes (docs/manifest.md, "Name lengths"): the size Bling documents for
 * a warehouse's descricao, String(120) (API v2 help, "PUT deposito/{idDeposito}").
 */
export const depositosLengthLimits = {
  descricao: { maxLength: 120, source: "Bling's documented size of a warehouse's descricao, String(120)" },
} as const satisfies Readonly<Record<string, LengthLimit>>;

const fields = {
  descricao: defineName('Name of the warehouse (depósito); identifies the record. Required.', depositosLengthLimits.descricao),
  situacao: situacao.schema,
  padrao: {
    type: 'boolean',
    description:
      'When true, this is the default warehouse. The account has exactly one: setting it here takes it from the warehouse that had it (not drift on that one). At most one record may set it.',
  },
  desconsiderarSaldo: { type: 'boolean', description: "When true, the warehouse's stock does not count in the product's available balance." },
  ...toolKeyFields,
} as const satisfies FieldTable<DepositoManifest>;

export const depositoFieldTables: readonly FieldTableEntry[] = [{ path: [], fields }];

const resource = '/depositos';
const kind = 'depositos';

/** One default at most: the account keeps only one, so two would flip on every apply. */
export function checkDepositos(records: readonly ManifestRecord[]): CheckFinding[] {
  const defaults = records.filter((record) => record.value.padrao === true && record.value.ensure !== 'absent');
  return defaults.slice(1).map((record) => ({
    severity: 'error' as const,
    code: 'multiple-defaults',
    message: `padrao: true is already set on \`${String(defaults[0]?.value.descricao)}\` at ${defaults[0]?.file ?? ''}#${defaults[0]?.pointer ?? ''}; the account keeps one default warehouse`,
    hint: 'keep padrao: true on one warehouse only',
    record,
    path: ['padrao'],
  }));
}

/** Found by name (`descricao=`) or by pinned id when that is cheaper than listing (readListOrSearch); the detail is the list item. */
// A read that missed a retired warehouse would plan a twin of it.
const search: NameSearch = { resource, kind, nameFilter: 'descricao', nameField: 'descricao', partitions: [{ situacao: 1 }, { situacao: 0 }] };

async function readWarehouses(client: ApiClient, scope: ReadScope): Promise<LiveRecord[]> {
  // By id: the detail is the list item, and one GET per record beats a list per partition.
  const listed = scope.byIds
    ? [...(await fetchDetails(client, [...scope.byIds], (id) => `${resource}/${id}`, kind))].map(([id, raw]) => ({ id, raw }))
    : await readListOrSearch(client, search, soughtKeys(scope), scope.all);
  return listed.map(({ id, raw }): LiveRecord => {
    const descricao = readName(raw.descricao);
    return {
      kind,
      id,
      identity: descricao,
      name: descricao,
      fields: compact({ descricao, situacao: readInteger(raw.situacao), padrao: readBoolean(raw.padrao), desconsiderarSaldo: readBoolean(raw.desconsiderarSaldo) }),
      raw,
      // The account cannot be without a default warehouse: a prune passes over the one that is (a tombstone still reaches it).
      ...(readBoolean(raw.padrao) === true ? { accountDefault: 'holds-default' as const } : {}),
      detailLoaded: true,
    };
  });
}

/** The full body POST and PUT require: the live record, the manifest on top, create defaults under both. */
function warehouseBody(live: Record<string, unknown>, desired: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { situacao: situacaoDepositoLabels.ativo, padrao: false, desconsiderarSaldo: false, ...compact(live), ...compact(desired) };
  return { descricao: merged.descricao, situacao: merged.situacao, padrao: merged.padrao, desconsiderarSaldo: merged.desconsiderarSaldo };
}

async function putWarehouse(change: Change, context: WriteContext, desired: Record<string, unknown>): Promise<void> {
  const body = warehouseBody(context.live?.fields ?? {}, desired);
  await context.client.request({ method: 'PUT', path: `${resource}/${requireLiveId(change)}`, body, kind });
}

/** The old default's padrao false follows from another warehouse's PUT with padrao true. */
function defaultMovesAway(difference: FieldChange, unit: DesiredUnit, units: readonly DesiredUnit[]): boolean {
  if (difference.path !== 'padrao' || difference.before !== true || difference.after !== false) return false;
  return units.some((other) => other !== unit && other.tool.ensure === 'present' && other.fields.padrao === true);
}

/** What a create gives a field it leaves out: export omits those values. */
function exportWarehouse(record: LiveRecord): Record<string, unknown> {
  const { situacao: state, padrao, desconsiderarSaldo, ...rest } = record.fields;
  return compact({
    ...rest,
    situacao: state === situacaoDepositoLabels.ativo ? undefined : state,
    padrao: padrao === true ? true : undefined,
    desconsiderarSaldo: desconsiderarSaldo === true ? true : undefined,
  });
}

export const depositos = defineKind({
  key: 'depositos',
  title: 'warehouses',
  resource,
  shape: 'list',
  recordSchema: defineListRecord(fields, {
    title: 'Warehouse',
    description: 'A warehouse (depósito), identified by descricao. Warehouses are never deleted, only retired (situacao inativo).',
    identity: ['descricao'],
    requiredUnlessAbsent: [],
  }),
  enums: [situacao.field],
  secretFields: [],
  nameField: 'descricao',
  lengthLimits: depositosLengthLimits,
  references: [],
  checkRecords: checkDepositos,
  // The API needs all four fields: a create fills the ones a manifest leaves out, and shows them.
  createFields: (fields) => warehouseBody({}, fields),
  settlesBy: defaultMovesAway,
  readLive: readWarehouses,
  retire: 'status',
  isRetired: (record) => record.fields.situacao === situacaoDepositoLabels.inativo,
  retirementFields: (record) => [{ path: 'situacao', before: record.fields.situacao, after: situacaoDepositoLabels.inativo }],
  canDelete: false,
  readsById: true,
  exportFields: exportWarehouse,
  execute: executeByAction('warehouses', {
    create: (change, { client }) => postRecord(client, resource, kind, warehouseBody({}, change.desired ?? {})),
    update: (change, context) => putWarehouse(change, context, change.desired ?? {}),
    retire: (change, context) => putWarehouse(change, context, { situacao: situacaoDepositoLabels.inativo }),
  }),
});
