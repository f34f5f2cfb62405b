// Helpers the kind adapters share for reading and writing the account: lenient readers of API
// values (the service sometimes sends "123" for 123 and "true" for true), identities of tree
// records from their parent-id chain, the choice of which live records deserve a detail GET,
// the id lookup of referenced records at write time, and the write operations several kinds
// share (single and bulk deletes). Kind-neutral: no endpoint, field name or quirk of a
// particular kind lives here; the kinds pass theirs in.
import type { ApiClient } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { ErpsyncError } from '../model/errors.js';
import { normalizeName, pathSeparator } from '../model/names.js';
import { isPlainRecord } from '../model/paths.js';
import type { Change } from '../model/plan.js';
import type { UnitKind } from '../model/kinds.js';
import type { DesiredUnit } from '../model/desired.js';
import type { KindAdapter, WriteContext, WriteResult } from './kind.js';
import type { LiveRecord } from '../model/live.js';

export { isPlainRecord } from '../model/paths.js';

/** A number, or a string holding one ("12", "-3.5"); anything else is unknown. */
export function readNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return undefined;
}

/** An integer read leniently, e.g. an id sent as a string. */
export function readInteger(value: unknown): number | undefined {
  const number = readNumber(value);
  return number !== undefined && Number.isInteger(number) ? number : undefined;
}

/** A boolean, or its usual spellings ("true", "false", 1, 0). */
export function readBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 1 || value === '1') return true;
  if (value === 'false' || value === 0 || value === '0') return false;
  return undefined;
}

/** A record's name as identities use it (NFC, trimmed); '' when the API sent none. */
export function readName(value: unknown): string {
  if (typeof value === 'string') return normalizeName(value);
  return typeof value === 'number' ? String(value) : '';
}

/** The id inside a reference object such as `{ id: 5, nome: "…" }`; 0 and absent mean "none". */
export function readReferenceId(value: unknown): number | undefined {
  const id = isPlainRecord(value) ? readInteger(value.id) : undefined;
  return id === undefined || id === 0 ? undefined : id;
}

/**
 * List items with their ids. An item without a usable id cannot be matched, updated or deleted,
 * and skipping it could make a plan create a duplicate, so it fails the read instead.
 */
export function identifyListItems(items: readonly unknown[], resource: string): { id: number; raw: Record<string, unknown> }[] {
  return items.map((item, index) => {
    const id = isPlainRecord(item) ? readInteger(item.id) : undefined;
    if (!isPlainRecord(item) || id === undefined) {
      throw new ErpsyncError('API_ERROR', `GET ${resource}: item ${index + 1} of the list has no numeric id`);
    }
    return { id, raw: item };
  });
}

/** The same fields without the undefined ones, so an unknown value is left out rather than compared. */
export function compact(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** `overlay` on top of `base`: objects merge key by key, anything else (arrays too) replaces. */
export function mergeRecords(base: Record<string, unknown>, overlay: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overlay)) {
    if (value === undefined) continue;
    const current = merged[key];
    merged[key] = isPlainRecord(value) && isPlainRecord(current) ? mergeRecords(current, value) : value;
  }
  return merged;
}

export interface TreeNode {
  id: number;
  name: string;
  /** undefined for a root. */
  parentId: number | undefined;
}

export interface TreePlace {
  /** Names from the root joined with the path separator. */
  identity: string;
  /** Identity of the parent; absent for a root. */
  parent?: string;
}

/**
 * Identities of tree records from their parent ids. A parent the list does not hold, or a loop
 * of parents (which the API should never produce), makes the record a root rather than failing
 * the whole read.
 */
export function placeInTree(nodes: readonly TreeNode[]): Map<number, TreePlace> {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const places = new Map<number, TreePlace>();
  const visiting = new Set<number>();
  const place = (node: TreeNode): TreePlace => {
    const known = places.get(node.id);
    if (known) return known;
    visiting.add(node.id);
    const parentNode = node.parentId === undefined ? undefined : byId.get(node.parentId);
    const parent = parentNode && !visiting.has(parentNode.id) ? place(parentNode).identity : undefined;
    visiting.delete(node.id);
    const result: TreePlace = parent === undefined ? { identity: node.name } : { identity: `${parent}${pathSeparator}${node.name}`, parent };
    places.set(node.id, result);
    return result;
  };
  for (const node of nodes) place(node);
  return places;
}

/** A listed record of a tree kind, placed in its tree. */
export interface TreeItem extends TreePlace {
  id: number;
  raw: Record<string, unknown>;
  name: string;
}

/** Lists a tree kind (every page) and places each record: identity = path of names from the root. */
export async function readTreeItems(
  client: ApiClient,
  resource: string,
  kind: UnitKind,
  nodeOf: (raw: Record<string, unknown>) => { name: string; parentId: number | undefined },
): Promise<TreeItem[]> {
  const listed = identifyListItems(await client.listAll<unknown>(resource, undefined, { kind }), resource).map((item) => ({ ...item, ...nodeOf(item.raw) }));
  const places = placeInTree(listed);
  return listed.map(({ id, raw, name }) => ({ id, raw, name, ...(places.get(id) ?? { identity: name }) }));
}

/** The live record of a tree item, with the manifest-shaped fields its kind reads. */
export function treeRecord(
  kind: UnitKind,
  item: TreeItem,
  fields: Record<string, unknown>,
  extra: { detailLoaded: boolean; system?: LiveRecord['system'] },
): LiveRecord {
  return {
    kind,
    id: item.id,
    identity: item.identity,
    name: item.name,
    fields: compact(fields),
    raw: item.raw,
    ...(extra.system ? { system: extra.system } : {}),
    ...(item.parent === undefined ? {} : { parent: item.parent }),
    detailLoaded: extra.detailLoaded,
  };
}

/** The id a create answered with: `{ data: { id } }`, or the first item when `data` is an array. */
export function createdId(data: unknown, what: string): number {
  const first = Array.isArray(data) ? (data[0] as unknown) : data;
  const id = isPlainRecord(first) ? readInteger(first.id) : undefined;
  if (id === undefined) throw new ErpsyncError('API_ERROR', `${what}: the answer carries no id`);
  return id;
}

/** POSTs a new record and returns the id the API answered with. */
export async function postRecord(client: ApiClient, resource: string, kind: UnitKind, body: unknown): Promise<{ id: number }> {
  const { data } = await client.request<unknown>({ method: 'POST', path: resource, body, kind });
  return { id: createdId(data, `POST ${resource}`) };
}

export type ChangeOperation = (change: Change, context: WriteContext) => Promise<WriteResult | void>;

/**
 * An adapter's execute() from its operations per action. The planner only plans actions a kind
 * declares, so a missing one (or a blocked change reaching execution) is a bug upstream.
 */
export function executeByAction(what: string, operations: Partial<Record<Change['action'], ChangeOperation>>): KindAdapter['execute'] {
  return async (change, context) => {
    const operation = operations[change.action];
    if (!operation) throw new ErpsyncError('INTERNAL', `${change.id}: ${what} have no ${change.action} operation`);
    return (await operation(change, context)) ?? {};
  };
}

/** DELETE of the record a change acts on. */
export function deleteOperation(resource: string, kind: UnitKind): ChangeOperation {
  return async (change, context) => {
    try {
      await context.client.request({ method: 'DELETE', path: `${resource}/${requireLiveId(change)}`, kind });
    } catch (error) {
      // A DELETE whose answer was lost is sent again, and the record it removed then answers 404.
      if (error instanceof ApiError && error.status === 404 && error.attempts > 1) return;
      throw error;
    }
  };
}

/**
 * Ids one bulk DELETE takes (WriteBatching.deletesPerRequest). They travel in the query string,
 * about 31 bytes each (`idsGruposProdutos[]=` and an id of up to 11 digits), and servers and
 * proxies commonly cap a request line near 8 KB (nginx's 8k header buffer, Apache's
 * LimitRequestLine 8190). 100 ids make about 3.1 KB, under half that cap whatever sits in front
 * of the service; twice as many would save one request per 200 deletes, and double the read-back
 * of a request that meets an alert.
 */
export const bulkDeleteIdsPerRequest = 100;

/**
 * Deletes of a kind the API also deletes in bulk (`DELETE resource?param[]=…`). A change the
 * plan made carry others (Change.carries) sends ONE bulk DELETE with every id; a change alone
 * sends its own DELETE resource/{id} (deleteOperation).
 * The bulk answer is 204 when every record went, or 200 `{data:{alertas:[ErrorResponse…]}}`.
 * Whether an alert names its record is undocumented, so no alert is tied to an id: when the
 * answer has alerts, or refuses the request as a whole (400, or 404, which a resend whose records
 * the lost first attempt deleted may meet), every id of the request is read back (GET
 * resource/{id}: 404 = deleted). The records still there fail with the answer's words, the rest
 * are deleted — whoever removed them, they are gone as the plan wanted, which is how a resend's
 * "not found" counts as done. That read-back happens only on such an answer: the plan's cost line
 * counts the one DELETE.
 */
export function bulkDeleteOperation(resource: string, idsParam: string, kind: UnitKind): ChangeOperation {
  const deleteOne = deleteOperation(resource, kind);
  return async (change, context) => {
    const carried = (context.carried ?? []).map((c) => c.change);
    if (carried.length === 0) return deleteOne(change, context);
    const batch = [change, ...carried];
    const ids = batch.map(requireLiveId);
    const problem = await sendBulkDelete(context.client, resource, kind, { [idsParam]: ids });
    if (problem === undefined) return {};
    const kept = await readBackKept(context.client, resource, kind, ids);
    const why = `still in the account when read back after its bulk delete, which answered: ${problem}`;
    const carriedFailures = Object.fromEntries(carried.filter((c) => kept.has(requireLiveId(c))).map((c) => [c.id, why]));
    return { ...(kept.has(requireLiveId(change)) ? { refused: why } : {}), carriedFailures };
  };
}

/** Sends one bulk DELETE; undefined when every record went, else what the answer said. */
async function sendBulkDelete(client: ApiClient, resource: string, kind: UnitKind, query: Record<string, number[]>): Promise<string | undefined> {
  try {
    const { data } = await client.request<unknown>({ method: 'DELETE', path: resource, query, kind });
    const alerts = isPlainRecord(data) && Array.isArray(data.alertas) ? (data.alertas as unknown[]) : [];
    return alerts.length === 0 ? undefined : describeAlerts(alerts);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 400 || error.status === 404)) {
      return `${error.status} ${error.description ?? error.apiMessage ?? ''}`.trim();
    }
    throw error;
  }
}

/** The texts of a bulk answer's alerts (ErrorResponse: `{ error: { message, description } }`), the first few. */
function describeAlerts(alerts: readonly unknown[]): string {
  const shown = 3;
  const texts = alerts.slice(0, shown).map((alert) => {
    const error = isPlainRecord(alert) && isPlainRecord(alert.error) ? alert.error : {};
    const text = [error.description, error.message].find((t): t is string => typeof t === 'string' && t.trim() !== '');
    return text ?? 'an alert without text';
  });
  const more = alerts.length > shown ? ` (and ${alerts.length - shown} more alert(s))` : '';
  return `${texts.join('; ')}${more}`;
}

/** The ids of these records still in the account: GET of each, 404 meaning deleted. */
async function readBackKept(client: ApiClient, resource: string, kind: UnitKind, ids: readonly number[]): Promise<Set<number>> {
  const kept = new Set<number>();
  for (const id of ids) {
    try {
      await client.request<unknown>({ method: 'GET', path: `${resource}/${id}`, kind });
      kept.add(id);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error;
    }
  }
  return kept;
}

/** Whether the unit's manifest sets any of these top-level fields. */
export function setsAnyField(unit: DesiredUnit, fields: readonly string[]): boolean {
  return fields.some((field) => unit.fields[field] !== undefined);
}

/** GETs `pathOf(id)` for each id, one after the other (the client paces them anyway). */
export async function fetchDetails(
  client: ApiClient,
  ids: readonly number[],
  pathOf: (id: number) => string,
  kind: string,
): Promise<Map<number, Record<string, unknown>>> {
  const details = new Map<number, Record<string, unknown>>();
  for (const id of ids) {
    const { data } = await client.request<unknown>({ method: 'GET', path: pathOf(id), kind });
    if (!isPlainRecord(data)) throw new ErpsyncError('API_ERROR', `GET ${pathOf(id)}: expected an object in \`data\``);
    details.set(id, data);
  }
  return details;
}

/** The id of a referenced record (read for the plan, or created earlier in this run). */
export function requireId(context: WriteContext, kind: UnitKind, identity: string): number {
  const id = context.resolveId(kind, identity);
  if (id === undefined) {
    throw new ErpsyncError('UNRESOLVED_REFERENCE', `${kind} \`${identity}\` has no id: it is not in the account and was not created in this run`);
  }
  return id;
}

/** The id of the live record a change acts on; only creates have none. */
export function requireLiveId(change: Change): number {
  if (change.liveId === undefined) throw new ErpsyncError('INTERNAL', `${change.id}: a ${change.action} change needs the id of a live record`);
  return change.liveId;
}

/**
 * A live reference to a read-only record, as the plan compares it: the target's identity when
 * that kind was read for this run (a manifest names one), else the id as the API gave it.
 */
export function nameReadOnlyReference(earlier: ReadonlyMap<UnitKind, readonly LiveRecord[]>, kind: UnitKind, id: number | undefined): string | number | undefined {
  if (id === undefined) return undefined;
  return earlier.get(kind)?.find((record) => record.id === id)?.identity ?? id;
}

/** The id to send for a reference that holds an identity (resolved through the run) or an id. */
export function referenceId(context: WriteContext, kind: UnitKind, value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  return typeof value === 'string' ? requireId(context, kind, value) : undefined;
}

/** Every item of a short read-only list (`/naturezas-operacoes` …), named by `nameField`. */
export async function readNamedList(client: ApiClient, resource: string, kind: UnitKind, nameField: string, paged = true): Promise<LiveRecord[]> {
  const rows = paged ? await client.listAll<unknown>(resource, undefined, { kind }) : await readUnpagedList(client, resource, kind);
  return identifyListItems(rows, resource).map(({ id, raw }) => {
    const name = readName(raw[nameField]);
    return { kind, id, identity: name, name, fields: { [nameField]: name }, raw, detailLoaded: true };
  });
}

async function readUnpagedList(client: ApiClient, resource: string, kind: UnitKind): Promise<unknown[]> {
  const { data } = await client.request<unknown>({ method: 'GET', path: resource, kind });
  if (!Array.isArray(data)) throw new ErpsyncError('API_ERROR', `GET ${resource}: expected a list in \`data\``);
  return data;
}
