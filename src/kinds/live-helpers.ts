// Helpers the kind adapters share for reading and writing the account: lenient readers of API
// values (the service sometimes sends "123" for 123 and "true" for true), identities of tree
// records from their parent-id chain, the choice between listing every page and looking records
// up by name (readListOrSearch), the reads of lists and details, the id lookup of referenced
// records at write time, and the write operations several kinds share (single and bulk deletes).
// Kind-neutral: no endpoint, field name or quirk of a particular kind lives here; kinds pass
// theirs in.
import type { ApiClient } from '../api/client.js';
import { DEFAULT_PAGE_SIZE, judgePage } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import type { Query } from '../api/url.js';
import { ErpsyncError } from '../model/errors.js';
import { normalizeName, pathSeparator } from '../model/names.js';
import { isPlainRecord } from '../model/paths.js';
import type { Change } from '../model/plan.js';
import type { UnitKind } from '../model/kinds.js';
import type { DesiredUnit } from '../model/desired.js';
import type { KindAdapter, ReadScope, WriteContext, WriteResult } from './kind.js';
import { couldMatch, matchKeysOf } from './desired-units.js';
import type { LiveKey, MatchKeys } from './desired-units.js';
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

/** A list item with its id. */
export interface ListItem {
  id: number;
  raw: Record<string, unknown>;
}

/**
 * List items with their ids. An item without a usable id cannot be matched, updated or deleted,
 * and skipping it could make a plan create a duplicate, so it fails the read instead.
 */
export function identifyListItems(items: readonly unknown[], resource: string): ListItem[] {
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

/** Whether a change writes any of these top-level fields (a create writes every field it shows). */
export function writesAnyField(change: Pick<Change, 'fields'>, fields: readonly string[]): boolean {
  return change.fields.some((field) => fields.includes(field.path.split('.')[0] ?? ''));
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

/** The live record of a list item of a read-only kind named by `nameField`. */
export function namedRecordOf(kind: UnitKind, nameField: string): (item: ListItem) => LiveRecord {
  return ({ id, raw }) => {
    const name = readName(raw[nameField]);
    return { kind, id, identity: name, name, fields: { [nameField]: name }, raw, detailLoaded: true };
  };
}

/** Every item of a short read-only list (`/canais-venda` …), named by `nameField`. */
export async function readNamedList(client: ApiClient, resource: string, kind: UnitKind, nameField: string, paged = true): Promise<LiveRecord[]> {
  const rows = paged ? await client.listAll<unknown>(resource, undefined, { kind }) : await readList(client, resource, kind);
  return identifyListItems(rows, resource).map(namedRecordOf(kind, nameField));
}

/** One GET of a list endpoint (a page, a filtered page, or an unpaged list): its items. */
async function readList(client: ApiClient, resource: string, kind: UnitKind, query?: Query): Promise<unknown[]> {
  const { data } = await client.request<unknown>({ method: 'GET', path: resource, kind, ...(query ? { query } : {}) });
  if (!Array.isArray(data)) throw new ErpsyncError('API_ERROR', `GET ${resource}: expected a list in \`data\``);
  return data;
}

/** How readListOrSearch finds a flat kind's records by name (identity = the name, no scope, no tree). */
export interface NameSearch {
  resource: string;
  kind: UnitKind;
  /** The list's query parameter that filters by name (`descricao`). */
  nameFilter: string;
  /** The member of a list item that holds the name. */
  nameField: string;
  /**
   * The list item a detail stands for (the detail without its detail-only members), so a record
   * found by its pinned id is the same raw record, and fingerprint, as when it is listed: a saved
   * plan compares them. Absent: the detail holds exactly what the list does.
   */
  listItemOf?(detail: Record<string, unknown>): Record<string, unknown>;
  /**
   * Filters whose lists together hold every record, for a list that leaves some out when asked
   * without them (warehouses: `situacao` defaults to active). Each list and each name lookup is
   * read once per partition. Absent: the list without filters holds every record.
   */
  partitions?: readonly Query[];
}

/**
 * What a read must find: the match keys of the desired units, or, for a read-only kind, the
 * identities manifests name (ReadScope.named, which holds a re-check's identities too).
 */
export function soughtKeys(scope: ReadScope): MatchKeys[] {
  if (scope.named) return [...scope.named].map((identity) => ({ identity, previousIdentities: [], anyParentNames: [] }));
  return scope.desired.map((unit) => matchKeysOf(unit, false));
}

/**
 * The list items of a flat kind a read needs, by whichever is cheaper: every page of the list, or
 * one request per record sought (the name filter; a pinned id by GET /<resource>/{id}).
 *
 * The cheaper one depends on the account's size, which nobody knows in advance, so the choice is
 * made online, as in ski rental: reading a page is renting (one request, and it may settle several
 * records), looking the k records sought up is buying (k requests). After each full page p, once
 * k ≤ p + 1 (what renting has cost plus the next page reaches the price of buying), it buys.
 * Whatever the account holds, that costs at most about twice the cheaper strategy (2k − 1 against
 * k, or the whole list plus k against the whole list): 1 to 3 records sought over a 1,000-record
 * account take 2 to 5 requests instead of 11. A list that ends first (a short page) was read
 * whole; a read that seeks nothing sends nothing.
 *
 * Every record sought is looked up, those a page read already settled too: a name found on an
 * early page may have a twin on a page not read, and two live records of one identity must reach
 * the planner, which refuses to choose (duplicate-live-records), as they would from a full list.
 *
 * Safe whatever the filter matches (undocumented): its answers are matched here by identity as a
 * list read would match them, extras ignored; and a record it does not return is not taken as
 * absent — a narrower server match could miss `Pix ` or another Unicode form of a name our
 * identity rules (NFC, trimmed) hold equal. So when any record is still unsettled after the
 * lookups, the rest of the list is read: a planned create, a rename to a free name, the absence a
 * saved plan re-checks, always rest on the complete list. A record counts as settled only under
 * its pinned id or its current identity; a previous name loses to the identity, so it settles
 * nothing, and is not looked up (without the identity the rest of the list is read anyway).
 */
export async function readListOrSearch(client: ApiClient, search: NameSearch, sought: readonly MatchKeys[], all: boolean): Promise<ListItem[]> {
  const partitions = search.partitions ?? [{}];
  if (all) {
    // By id: a service that ignored the filter, or a record that changed situation between the
    // reads, would otherwise show one record twice, as two live records of one identity.
    const items = new Map<number, ListItem>();
    for (const filter of partitions) {
      for (const item of identifyListItems(await client.listAll<unknown>(search.resource, filter, { kind: search.kind }), search.resource)) items.set(item.id, item);
    }
    return [...items.values()];
  }
  if (sought.length === 0) return [];
  const found = collectSettling(search, sought);
  const walks = partitions.map((filter) => walkPages(client, search, filter));
  for (const pages of walks) while (!pages.ended() && !lookingUpPays(sought.length, pages.read())) found.addPage(await pages.next());
  // A partition read to its end holds no more; the others are searched.
  const open = walks.filter((pages) => !pages.ended());
  if (open.length === 0) return found.items();
  // One lookup per identity or pinned id (two units may share one), settled or not (see above).
  const lookups = new Map(sought.map((keys) => [keys.id === undefined ? `name ${keys.identity}` : `id ${keys.id}`, keys]));
  for (const keys of lookups.values()) {
    if (keys.id !== undefined) found.addAnswers(await lookUpId(client, search, keys.id));
    else for (const pages of open) found.addAnswers(await lookUpName(client, search, keys.identity, pages.filter));
  }
  for (const pages of open) while (found.unsettled().length > 0 && !pages.ended()) found.addPage(await pages.next());
  return found.items();
}

/** The ski-rental threshold: after at least one full page, k lookups cost no more than the pages read plus the next. */
function lookingUpPays(unsettled: number, pagesRead: number): boolean {
  return pagesRead > 0 && unsettled <= pagesRead + 1;
}

/** The items read so far, and which sought records they settle (see readListOrSearch). */
function collectSettling(search: NameSearch, sought: readonly MatchKeys[]) {
  const items = new Map<number, ListItem>();
  const settling = sought.map((keys): MatchKeys => ({ ...keys, previousIdentities: [], anyParentNames: [] }));
  const unsettled = new Set(settling);
  const keyOf = ({ id, raw }: ListItem): LiveKey => {
    const name = readName(raw[search.nameField]);
    return { id, identity: name, name };
  };
  const add = (item: ListItem) => {
    if (!items.has(item.id)) items.set(item.id, item);
    for (const keys of unsettled) if (couldMatch(keyOf(item), keys)) unsettled.delete(keys);
  };
  return {
    items: () => [...items.values()],
    unsettled: () => [...unsettled],
    addPage: (page: readonly ListItem[]) => page.forEach(add),
    /** A lookup's answers: only those a sought record matches (a loose filter returns others too). */
    addAnswers: (answers: readonly ListItem[]) => answers.filter((item) => settling.some((keys) => couldMatch(keyOf(item), keys))).forEach(add),
  };
}

/** The list read page by page, from the first; ended once a page is short. */
function walkPages(client: ApiClient, search: NameSearch, filter: Query) {
  let read = 0;
  let ended = false;
  let previous: string | undefined;
  return {
    filter,
    read: () => read,
    ended: () => ended,
    async next(): Promise<ListItem[]> {
      read += 1;
      const rows = await readList(client, search.resource, search.kind, { ...filter, pagina: read, limite: DEFAULT_PAGE_SIZE });
      // A list that does not page (ApiClient.listAll judges pages the same way) is complete at once.
      const { verdict, serialized } = judgePage(rows, DEFAULT_PAGE_SIZE, previous);
      previous = serialized;
      ended = verdict !== 'more';
      if (verdict === 'over-limit' || verdict === 'repeated-page') {
        client.noteList({ path: search.resource, kind: search.kind, reason: verdict, records: rows.length, limit: DEFAULT_PAGE_SIZE });
        if (verdict === 'repeated-page') return [];
      }
      return identifyListItems(rows, search.resource);
    },
  };
}

/** The first page the name filter answers (a full page that misses the record leaves it unsettled). */
async function lookUpName(client: ApiClient, search: NameSearch, name: string, filter: Query): Promise<ListItem[]> {
  const rows = await readList(client, search.resource, search.kind, { ...filter, [search.nameFilter]: name, pagina: 1, limite: DEFAULT_PAGE_SIZE });
  return identifyListItems(rows, search.resource);
}

/** The record under a pinned id, as its list item; none when the id is unknown (404). */
async function lookUpId(client: ApiClient, search: NameSearch, id: number): Promise<ListItem[]> {
  try {
    const { data } = await client.request<unknown>({ method: 'GET', path: `${search.resource}/${id}`, kind: search.kind });
    if (!isPlainRecord(data)) throw new ErpsyncError('API_ERROR', `GET ${search.resource}/${id}: expected an object in \`data\``);
    return identifyListItems([search.listItemOf?.(data) ?? data], search.resource);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return [];
    throw error;
  }
}
