// The bench's peer: a competent hand-written sync script on the public SDK (`bling-erp-api` 5.8,
// through test/support/bling-sdk.ts), the kind a store's developer would write instead of
// erpsync. Its input is erpsync's loaded desired state (records with enum codes, references still
// names); everything else is its own: for each kind it lists every page once, lists once the
// records it must name by id (modules, actions, channels, natures, contact types), creates what is
// missing, else reads the record's detail and PUTs the merged record when a declared field
// differs; it moves the default payment method with PATCH …/padrao, retires or deletes what the
// manifests mark absent, and deletes what a pruned kind no longer declares, one request each.
// It never calls erpsync's planner or kinds, and it is not clever: no name filters, no batching
// beyond what the API's create bodies take (a logistics with its services, services in an array).
// Records it cannot handle (pins by id, carriers, moves the API refuses) make it throw.
import type { DesiredRecord, DesiredState } from '../src/model/desired.js';
import type { KindKey } from '../src/model/kinds.js';
import { openBlingSdk } from '../test/support/bling-sdk.js';
import type { BlingSdk, SendRequest } from '../test/support/bling-sdk.js';

type Row = Record<string, unknown> & { id: number };
type Fields = Record<string, unknown>;

interface Peer {
  sdk: BlingSdk;
  send: SendRequest;
  desired: DesiredState;
}

const pageSize = 100;
const separator = ' > ';

/** Syncs the account behind `token` at `baseUrl` to `desired`. Throws on the first failed request. */
export async function syncLikeAScript(desired: DesiredState, connection: { token: string; baseUrl: string }): Promise<void> {
  const peer: Peer = { ...openBlingSdk(connection.token, connection.baseUrl), desired };
  for (const records of desired.records.values()) {
    const pinned = records.find((r) => r.tool.id !== undefined);
    if (pinned) throw new Error(`the peer script does not follow pins by id (${pinned.kind} ${pinned.identity})`);
  }
  await syncPaymentMethods(peer);
  await syncTree(peer, incomeExpenseCategories(peer));
  const productCategories = await syncTree(peer, productCategoryTree(peer));
  await syncTree(peer, productGroupTree(peer));
  await syncSituationsAndTransitions(peer);
  await syncLogistics(peer);
  await syncWarehouses(peer);
  await syncNfseSettings(peer);
  await syncStoreCategories(peer, productCategories);
  await syncCustomFields(peer, productCategories);
}

// ─── Helpers of a plain script ──────────────────────────────────────────────────────────────

const dataOf = (response: unknown): unknown => (response as { data?: unknown } | null)?.data;
const rowsOf = (response: unknown): Row[] => (dataOf(response) as Row[] | undefined) ?? [];
const rowOf = (response: unknown): Row => dataOf(response) as Row;
const createdId = (response: unknown): number => rowOf(response).id;
const refId = (value: unknown): number => (value as { id?: number } | undefined)?.id ?? 0;
const cleanName = (name: unknown): string => String(name).normalize('NFC').trim();

async function listPages(fetchPage: (pagina: number) => Promise<unknown>): Promise<Row[]> {
  const rows: Row[] = [];
  for (let pagina = 1; ; pagina += 1) {
    const page = rowsOf(await fetchPage(pagina));
    rows.push(...page);
    if (page.length < pageSize) return rows;
  }
}

function isPlainObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether the live value differs from the declared one; undeclared members of objects are not compared. */
function differs(want: unknown, have: unknown): boolean {
  if (Array.isArray(want)) return !Array.isArray(have) || want.length !== have.length || want.some((w, i) => differs(w, have[i]));
  if (isPlainObject(want)) return !isPlainObject(have) || Object.entries(want).some(([key, value]) => differs(value, have[key]));
  return want !== have;
}

/** `base` with `over` laid on top, objects merged member by member (PUT replaces the whole record). */
function mergeDeep(base: Fields, over: Fields): Fields {
  const merged: Fields = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = merged[key];
    merged[key] = isPlainObject(value) && isPlainObject(current) ? mergeDeep(current, value) : value;
  }
  return merged;
}

function without(fields: Fields, keys: readonly string[]): Fields {
  return Object.fromEntries(Object.entries(fields).filter(([key]) => !keys.includes(key)));
}

function recordsOf(peer: Peer, kind: KindKey): readonly DesiredRecord[] {
  return peer.desired.records.get(kind) ?? [];
}

const isAbsent = (record: DesiredRecord): boolean => record.tool.ensure === 'absent';
const retires = (peer: Peer, kind: KindKey): boolean => peer.desired.policy.retireInsteadOfDelete.includes(kind);
const prunes = (peer: Peer, kind: KindKey): boolean => peer.desired.policy.prune.includes(kind) && peer.desired.declaredKinds.has(kind);

function refuseToPrune(peer: Peer, kind: KindKey): void {
  if (prunes(peer, kind)) throw new Error(`the peer script prunes only product categories and groups, not ${kind}`);
}

interface Matched {
  record: DesiredRecord;
  /** The live record of the same `descricao`, or of one of its previous names. */
  found: Row | undefined;
}

/** The declared records of a kind named by `descricao`, each with its live record (every page listed once). */
async function matchByDescription(peer: Peer, kind: KindKey, listPage: (pagina: number) => Promise<unknown>): Promise<Matched[]> {
  const records = recordsOf(peer, kind);
  if (records.length === 0) return [];
  refuseToPrune(peer, kind);
  const live = indexBy(await listPages(listPage), (row) => cleanName(row.descricao));
  return records.map((record) => ({ record, found: findUnderAnyName(live, record) }));
}

/** The live record (rows keyed by clean name) under the record's name or one of its previous names. */
function findUnderAnyName(rows: ReadonlyMap<string, Row>, record: DesiredRecord): Row | undefined {
  return [record.name, ...record.tool.previousNames].map((name) => rows.get(cleanName(name))).find((row) => row !== undefined);
}

function indexBy(rows: readonly Row[], key: (row: Row) => string): Map<string, Row> {
  return new Map(rows.map((row) => [key(row), row]));
}

function requireId(map: ReadonlyMap<string, number>, name: unknown, what: string): number {
  const id = map.get(cleanName(name));
  if (id === undefined) throw new Error(`the peer script found no ${what} named "${String(name)}"`);
  return id;
}

// ─── Payment methods ────────────────────────────────────────────────────────────────────────

/** The API keeps the acquirer's CNPJ as digits only. */
function paymentMethodFields(record: DesiredRecord): Fields {
  const fields = without(record.fields, ['padrao']);
  const card = fields.dadosCartao;
  if (isPlainObject(card) && typeof card.cnpjCredenciadora === 'string') {
    fields.dadosCartao = { ...card, cnpjCredenciadora: card.cnpjCredenciadora.replace(/\D/g, '') };
  }
  return fields;
}

async function syncPaymentMethods(peer: Peer): Promise<void> {
  const kind = 'formasPagamentos';
  const api = peer.sdk.formasDePagamento;
  const matched = await matchByDescription(peer, kind, (pagina) => api.get({ pagina, limite: pageSize }));
  // Present records first: a default moves onto its new holder before the old one may retire.
  for (const { record, found } of matched.filter((m) => !isAbsent(m.record))) {
    const fields = paymentMethodFields(record);
    let id: number;
    let padrao = 0;
    if (!found) {
      id = createdId(await api.create(fields as never));
    } else {
      id = found.id;
      const detail = rowOf(await api.find({ idFormaPagamento: id }));
      padrao = Number(detail.padrao);
      if (differs(fields, detail)) await api.update({ idFormaPagamento: id, ...mergeDeep(without(detail, ['id', 'fixa', 'padrao']), fields) } as never);
    }
    const wanted = record.fields.padrao;
    if (typeof wanted === 'number' && wanted !== 0 && wanted !== padrao) await peer.send('PATCH', `formas-pagamentos/${id}/padrao`, { padrao: wanted });
  }
  for (const { found } of matched.filter((m) => isAbsent(m.record))) {
    if (!found) continue;
    if (!retires(peer, kind)) await api.delete({ idFormaPagamento: found.id });
    else if (found.situacao !== 0) await peer.send('PATCH', `formas-pagamentos/${found.id}/situacao`, { situacao: 0 });
  }
}

// ─── Trees: income/expense categories, product categories, product groups ────────────────────

interface TreeKind {
  kind: KindKey;
  list(): Promise<Row[]>;
  nameOf(row: Row): string;
  parentOf(row: Row): number;
  detail(id: number): Promise<Row>;
  create(record: DesiredRecord, parentId: number): Promise<number>;
  /** Whether the record (its detail read) must be written to match; throws for a change the API cannot make. */
  needsUpdate(record: DesiredRecord, detail: Row, parentId: number): boolean;
  update(record: DesiredRecord, detail: Row, parentId: number): Promise<void>;
  remove(id: number): Promise<void>;
}

/** Every live record's path of names from its root. */
function livePaths(tree: TreeKind, rows: readonly Row[]): Map<number, string> {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const paths = new Map<number, string>();
  const pathOf = (row: Row, depth: number): string => {
    const known = paths.get(row.id);
    if (known !== undefined) return known;
    const parent = byId.get(tree.parentOf(row));
    const name = cleanName(tree.nameOf(row));
    const path = parent && depth < 64 ? `${pathOf(parent, depth + 1)}${separator}${name}` : name;
    paths.set(row.id, path);
    return path;
  };
  for (const row of rows) pathOf(row, 0);
  return paths;
}

/**
 * Walks the declared records parents first, matching each by its parent's id and its name (or a
 * previous name); returns every path of the kind (declared and live) with its id, for references.
 */
async function syncTree(peer: Peer, tree: TreeKind): Promise<Map<string, number>> {
  const records = recordsOf(peer, tree.kind);
  if (records.length === 0 && !peer.desired.declaredKinds.has(tree.kind)) return new Map();
  const rows = await tree.list();
  const ids = new Map([...livePaths(tree, rows)].map(([id, path]) => [path, id]));
  const byParentAndName = indexBy(rows, (row) => `${tree.parentOf(row)}/${cleanName(tree.nameOf(row))}`);
  // Records matched or removed here; pruning takes the rest.
  const settled = new Set<number>();
  const depth = (record: DesiredRecord) => record.identity.split(separator).length;
  for (const record of [...records].sort((a, b) => depth(a) - depth(b))) {
    const segments = record.identity.split(separator);
    const parentPath = segments.slice(0, -1).join(separator);
    const parentId = parentPath === '' ? 0 : requireId(ids, parentPath, `parent of ${record.identity}`);
    const found = [record.name, ...record.tool.previousNames].map((n) => byParentAndName.get(`${parentId}/${cleanName(n)}`)).find(Boolean);
    if (found) settled.add(found.id);
    if (isAbsent(record)) {
      if (found) await tree.remove(found.id);
      continue;
    }
    if (!found) {
      ids.set(record.identity, await tree.create(record, parentId));
      continue;
    }
    ids.set(record.identity, found.id);
    const detail = await tree.detail(found.id);
    if (tree.needsUpdate(record, detail, parentId)) await tree.update(record, detail, parentId);
  }
  if (prunes(peer, tree.kind)) await pruneTree(tree, rows, settled);
  return ids;
}

/** Deletes the live records no manifest declares, deepest first (a parent with children cannot go). */
async function pruneTree(tree: TreeKind, rows: readonly Row[], settled: ReadonlySet<number>): Promise<void> {
  const paths = livePaths(tree, rows);
  const depthOf = (row: Row) => (paths.get(row.id) ?? '').split(separator).length;
  const doomed = rows.filter((row) => !settled.has(row.id)).sort((a, b) => depthOf(b) - depthOf(a));
  for (const row of doomed) await tree.remove(row.id);
}

function incomeExpenseCategories(peer: Peer): TreeKind {
  // Pruning would need to tell the account's default chart from the store's own categories.
  refuseToPrune(peer, 'categoriasReceitasDespesas');
  const api = peer.sdk.categoriasReceitasDespesas;
  const bodyOf = (record: DesiredRecord, parentId: number, detail?: Row): Fields => ({
    descricao: record.name,
    tipo: record.fields.tipo,
    idCategoriaPai: parentId,
    // A PUT without grupoDRE resets it; the read side calls it idGrupoDre.
    grupoDRE: record.fields.grupoDRE ?? detail?.idGrupoDre ?? 1,
  });
  return {
    kind: 'categoriasReceitasDespesas',
    list: () => listPages((pagina) => api.get({ pagina, limite: pageSize })),
    nameOf: (row) => String(row.descricao),
    parentOf: (row) => Number(row.idCategoriaPai ?? 0),
    detail: async (id) => rowOf(await api.find({ idCategoria: id })),
    create: async (record, parentId) => createdId(await peer.send('POST', 'categorias/receitas-despesas', bodyOf(record, parentId))),
    needsUpdate: (record, detail, parentId) =>
      cleanName(detail.descricao) !== record.name ||
      detail.tipo !== record.fields.tipo ||
      Number(detail.idCategoriaPai) !== parentId ||
      (record.fields.grupoDRE !== undefined && parentId === 0 && detail.idGrupoDre !== record.fields.grupoDRE),
    update: async (record, detail, parentId) => {
      await peer.send('PUT', `categorias/receitas-despesas/${detail.id}`, bodyOf(record, parentId, detail));
    },
    remove: async (id) => {
      await peer.send('DELETE', `categorias/receitas-despesas/${id}`);
    },
  };
}

function productCategoryTree(peer: Peer): TreeKind {
  const api = peer.sdk.categoriasProdutos;
  return {
    kind: 'categoriasProdutos',
    list: () => listPages((pagina) => api.get({ pagina, limite: pageSize })),
    nameOf: (row) => String(row.descricao),
    parentOf: (row) => refId(row.categoriaPai),
    detail: async (id) => rowOf(await api.find({ idCategoriaProduto: id })),
    create: async (record, parentId) =>
      createdId(await api.create({ descricao: record.name, ...(parentId ? { categoriaPai: { id: parentId } } : {}) } as never)),
    needsUpdate: (record, detail, parentId) => {
      if (refId(detail.categoriaPai) !== parentId) throw new Error(`the API cannot move product category ${record.identity}`);
      return cleanName(detail.descricao) !== record.name;
    },
    update: async (record, detail) => {
      await api.update({ idCategoriaProduto: detail.id, descricao: record.name } as never);
    },
    remove: async (id) => {
      await api.delete({ idCategoriaProduto: id });
    },
  };
}

function productGroupTree(peer: Peer): TreeKind {
  const api = peer.sdk.gruposDeProdutos;
  const bodyOf = (record: DesiredRecord, parentId: number) => ({ nome: record.name, ...(parentId ? { grupoProdutoPai: { id: parentId } } : {}) });
  return {
    kind: 'gruposProdutos',
    list: () => listPages((pagina) => api.get({ pagina, limite: pageSize })),
    nameOf: (row) => String(row.nome),
    parentOf: (row) => refId(row.grupoProdutoPai),
    detail: async (id) => rowOf(await api.find({ idGrupoProduto: id })),
    create: async (record, parentId) => createdId(await api.create(bodyOf(record, parentId) as never)),
    needsUpdate: (record, detail, parentId) => cleanName(detail.nome) !== record.name || refId(detail.grupoProdutoPai) !== parentId,
    update: async (record, detail, parentId) => {
      await api.update({ idGrupoProduto: detail.id, ...bodyOf(record, parentId) } as never);
    },
    remove: async (id) => {
      await api.delete({ idGrupoProduto: id });
    },
  };
}

// ─── Situations and their transitions ────────────────────────────────────────────────────────

async function syncSituationsAndTransitions(peer: Peer): Promise<void> {
  const situations = recordsOf(peer, 'situacoes');
  const transitions = recordsOf(peer, 'transicoes');
  if (situations.length + transitions.length === 0) return;
  refuseToPrune(peer, 'situacoes');
  refuseToPrune(peer, 'transicoes');
  const modules = new Map(rowsOf(await peer.sdk.situacoesModulos.getModules()).map((m) => [cleanName(m.nome), m.id]));
  const inModule = (records: readonly DesiredRecord[], name: string) => records.filter((r) => cleanName(r.fields.modulo) === name);
  for (const name of new Set([...situations, ...transitions].map((r) => cleanName(r.fields.modulo)))) {
    const idModuloSistema = requireId(modules, name, 'situation module');
    const live = rowsOf(await peer.sdk.situacoesModulos.getModuleSituations({ idModuloSistema }));
    const ids = await syncSituations(peer, idModuloSistema, live, inModule(situations, name).filter((r) => !isAbsent(r)));
    await syncTransitions(peer, idModuloSistema, ids, inModule(transitions, name));
    // A situation goes after the transitions that use it.
    for (const record of inModule(situations, name).filter(isAbsent)) {
      const id = ids.get(record.name);
      if (id !== undefined) await peer.sdk.situacoes.delete({ idSituacao: id });
    }
  }
}

/** Creates and updates the module's declared situations; returns every situation of the module by name. */
async function syncSituations(peer: Peer, idModuloSistema: number, live: readonly Row[], records: readonly DesiredRecord[]): Promise<Map<string, number>> {
  const api = peer.sdk.situacoes;
  const builtIns = new Map(live.filter((s) => s.idHerdado === 0).map((s) => [cleanName(s.nome), s.id]));
  const byName = indexBy(live, (s) => cleanName(s.nome));
  const ids = new Map(live.map((s) => [cleanName(s.nome), s.id]));
  for (const record of records) {
    const idHerdado = requireId(builtIns, record.fields.herdado, 'built-in situation');
    const cor = typeof record.fields.cor === 'string' ? record.fields.cor : undefined;
    const found = findUnderAnyName(byName, record);
    if (!found) {
      ids.set(record.name, createdId(await api.create({ idModuloSistema, nome: record.name, idHerdado, ...(cor ? { cor } : {}) } as never)));
      continue;
    }
    ids.set(record.name, found.id);
    const detail = rowOf(await api.find({ idSituacao: found.id }));
    // Colours come back in another case than they were sent.
    const colourDiffers = cor !== undefined && cor.toLowerCase() !== String(detail.cor).toLowerCase();
    if (cleanName(detail.nome) !== record.name || detail.idHerdado !== idHerdado || colourDiffers) {
      await api.update({ idSituacao: found.id, nome: record.name, idHerdado, cor: cor ?? detail.cor } as never);
    }
  }
  return ids;
}

async function syncTransitions(peer: Peer, idModuloSistema: number, situations: ReadonlyMap<string, number>, records: readonly DesiredRecord[]): Promise<void> {
  if (records.length === 0) return;
  const api = peer.sdk.situacoesTransicoes;
  const live = rowsOf(await peer.sdk.situacoesModulos.getModuleTransitions({ idModuloSistema }));
  const actions = new Map<string, number>();
  for (const action of rowsOf(await peer.sdk.situacoesModulos.getModuleActions({ idModuloSistema }))) {
    actions.set(cleanName(action.nome), action.id);
    actions.set(cleanName(action.descricao), action.id);
  }
  for (const record of records) {
    const origem = requireId(situations, record.fields.de, 'situation');
    const destino = requireId(situations, record.fields.para, 'situation');
    const found = live.find((t) => refId(t.situacaoOrigem) === origem && refId(t.situacaoDestino) === destino);
    if (isAbsent(record)) {
      if (found) await api.delete({ idTransicao: found.id });
      continue;
    }
    const declared = record.fields.acoes as unknown[] | undefined;
    const acoes = declared?.map((name) => requireId(actions, name, 'action'));
    const ativo = (record.fields.ativo as boolean | undefined) ?? true;
    const body = { modulo: { id: idModuloSistema }, situacaoOrigem: { id: origem }, situacaoDestino: { id: destino } };
    if (!found) {
      await api.create({ ...body, ativo, acoes: acoes ?? [] } as never);
      continue;
    }
    const detail = rowOf(await api.find({ idTransicao: found.id }));
    const sorted = (ids: readonly unknown[]) => [...ids].map(Number).sort((a, b) => a - b);
    const liveActions = (detail.acoes as number[] | undefined) ?? [];
    if (detail.ativo !== ativo || (acoes !== undefined && differs(sorted(acoes), sorted(liveActions)))) {
      await api.update({ idTransicao: found.id, ...body, ativo, acoes: acoes ?? liveActions } as never);
    }
  }
}

// ─── Logistics and their services ────────────────────────────────────────────────────────────

const toolKeys = ['ensure', 'id', 'protect', 'previousNames'];

function serviceBody(service: Fields): Fields {
  if (service.transportador !== undefined) throw new Error('the peer script does not look carriers up by name');
  return { aliases: [], freteItem: 0, estimativaEntrega: 0, ...without(service, toolKeys) };
}

async function syncLogistics(peer: Peer): Promise<void> {
  const kind = 'logisticas';
  const api = peer.sdk.logisticas;
  for (const { record, found } of await matchByDescription(peer, kind, (pagina) => api.get({ pagina, limite: pageSize }))) {
    const services = (record.fields.servicos as Fields[] | undefined) ?? [];
    if (isAbsent(record)) {
      if (found && !retires(peer, kind)) await api.delete({ idLogistica: found.id });
      else if (found && found.situacao !== 'D') await api.update({ idLogistica: found.id, descricao: found.descricao, situacao: 'D' } as never);
      continue;
    }
    const situacao = (record.fields.situacao as string | undefined) ?? 'H';
    if (!found) {
      const servicos = services.filter((s) => s.ensure !== 'absent').map(serviceBody);
      await api.create({ descricao: record.name, situacao, servicos } as never);
      continue;
    }
    // The SDK's find drops listarServicosInativos, without which retired services do not show.
    const detail = rowOf(await peer.send('GET', `logisticas/${found.id}`, undefined, { listarServicosInativos: true }));
    if (cleanName(detail.descricao) !== record.name || detail.situacao !== situacao) {
      await api.update({ idLogistica: found.id, descricao: record.name, situacao } as never);
    }
    await syncServices(peer, found.id, services, (detail.servicos as Row[] | undefined) ?? []);
  }
}

async function syncServices(peer: Peer, idLogistica: number, services: readonly Fields[], live: readonly Row[]): Promise<void> {
  const api = peer.sdk.logisticasServicos;
  const byCode = indexBy(live, (s) => String(s.codigo));
  const missing: Fields[] = [];
  for (const service of services) {
    const found = byCode.get(String(service.codigo));
    if (service.ensure === 'absent') {
      if (found?.ativo === true) await api.changeSituation({ idLogisticaServico: found.id, ativo: false });
      continue;
    }
    if (!found) {
      missing.push(serviceBody(service));
      continue;
    }
    const wanted = { ...without(service, toolKeys), ativo: true };
    if (differs(wanted, found)) {
      const current = without(found, ['id', 'logistica', 'transportador']);
      await api.update({ idLogisticaServico: found.id, ...current, ...wanted } as never);
    }
  }
  if (missing.length > 0) await api.create({ logistica: { id: idLogistica }, servicos: missing } as never);
}

// ─── Warehouses ──────────────────────────────────────────────────────────────────────────────

async function syncWarehouses(peer: Peer): Promise<void> {
  const api = peer.sdk.depositos;
  for (const { record, found } of await matchByDescription(peer, 'depositos', (pagina) => api.get({ pagina, limite: pageSize }))) {
    // Warehouses cannot be deleted: an absent one is retired.
    const fields = isAbsent(record) ? { situacao: 0 } : record.fields;
    if (!found) {
      if (!isAbsent(record)) await api.create({ situacao: 1, padrao: false, desconsiderarSaldo: false, ...fields } as never);
      continue;
    }
    const detail = rowOf(await api.find({ idDeposito: found.id }));
    if (differs(fields, detail)) await api.update({ idDeposito: found.id, ...mergeDeep(without(detail, ['id']), fields) } as never);
  }
}

// ─── NFS-e settings (a singleton) ────────────────────────────────────────────────────────────

async function syncNfseSettings(peer: Peer): Promise<void> {
  const record = recordsOf(peer, 'configuracoesNfse')[0];
  if (!record) return;
  const want = structuredClone(record.fields);
  const basicas = want.basicas;
  if (isPlainObject(basicas) && basicas.naturezaOperacao !== undefined) {
    const natures = await listPages((pagina) => peer.sdk.naturezasDeOperacoes.get({ pagina, limite: pageSize }));
    basicas.naturezaOperacao = requireId(new Map(natures.map((n) => [cleanName(n.descricao), n.id])), basicas.naturezaOperacao, 'operation nature');
  }
  const answer = await peer.sdk.nfses.getConfigurations();
  // Documented without the `data` envelope; accepted either way.
  const live = (isPlainObject(dataOf(answer)) ? dataOf(answer) : answer) as Fields;
  const iss = isPlainObject(want.ISS) ? want.ISS : undefined;
  const liveTributos = ((live.ISS as Fields | undefined)?.tributos as Row[] | undefined) ?? [];
  // Tax entries are matched by CNAE; an entry sent without id is a new one.
  const tributos = ((iss?.tributos as Fields[] | undefined) ?? liveTributos).map((t) => {
    const match = liveTributos.find((l) => l.CNAE === t.CNAE);
    return match ? mergeDeep(match, t) : t;
  });
  const tributosDiffer = iss?.tributos !== undefined && (tributos.length !== liveTributos.length || tributos.some((t) => t.id === undefined || differs(t, liveTributos.find((l) => l.id === t.id))));
  if (!tributosDiffer && !differs(without(want, ['ISS']), live) && !differs(without(iss ?? {}, ['tributos']), live.ISS)) return;
  const merged = mergeDeep(live, want);
  await peer.send('PUT', 'nfse/configuracoes', { ...merged, ISS: { ...(merged.ISS as Fields), tributos } });
}

// ─── Store category links ────────────────────────────────────────────────────────────────────

/** A product category named by its path, or by its name when only one category has it. */
function productCategoryId(paths: ReadonlyMap<string, number>, reference: unknown): number {
  const name = cleanName(reference);
  const exact = paths.get(name);
  if (exact !== undefined) return exact;
  const matches = [...paths].filter(([path]) => path.split(separator).at(-1) === name);
  if (matches.length !== 1 || !matches[0]) throw new Error(`the peer script cannot tell which product category "${name}" is`);
  return matches[0][1];
}

async function syncStoreCategories(peer: Peer, productCategories: ReadonlyMap<string, number>): Promise<void> {
  const kind = 'categoriasLojas';
  const records = recordsOf(peer, kind);
  if (records.length === 0) return;
  refuseToPrune(peer, kind);
  const api = peer.sdk.categoriasLojas;
  const channels = await listPages((pagina) => peer.sdk.canaisDeVenda.get({ pagina, limite: pageSize }));
  const channelIds = new Map(channels.map((c) => [cleanName(c.descricao), c.id]));
  const links = await listPages((pagina) => api.get({ pagina, limite: pageSize }));
  for (const record of records) {
    const loja = { id: requireId(channelIds, record.fields.loja, 'sales channel') };
    const categoriaProduto = { id: productCategoryId(productCategories, record.fields.categoriaProduto) };
    const found = links.find((l) => refId(l.loja) === loja.id && refId(l.categoriaProduto) === categoriaProduto.id);
    if (isAbsent(record)) {
      if (found) await api.delete({ idCategoriaLoja: found.id });
      continue;
    }
    const body = { loja, categoriaProduto, descricao: record.fields.descricao, codigo: record.fields.codigo };
    if (!found) {
      await api.create(body as never);
      continue;
    }
    const detail = rowOf(await api.find({ idCategoriaLoja: found.id }));
    if (detail.descricao !== body.descricao || detail.codigo !== body.codigo) await api.update({ idCategoriaLoja: found.id, ...body } as never);
  }
}

// ─── Custom fields ───────────────────────────────────────────────────────────────────────────

interface FieldLookups {
  productCategories: ReadonlyMap<string, number>;
  contactTypes: ReadonlyMap<string, number>;
}

/** The editable body of a custom field; options keep the ids of those already there. */
function customFieldBody(record: DesiredRecord, lookups: FieldLookups, detail?: Row): Fields {
  const { fields } = record;
  const grouping = (fields.agrupadores as Record<string, unknown[]> | undefined) ?? {};
  const agrupadores = [
    ...(grouping.categoriasProdutos ?? []).map((path) => productCategoryId(lookups.productCategories, path)),
    ...(grouping.tiposContatos ?? []).map((name) => requireId(lookups.contactTypes, name, 'contact type')),
  ].map((id) => ({ id }));
  const liveOptions = (detail?.opcoes as Row[] | undefined) ?? [];
  const opcoes = ((fields.opcoes as string[] | undefined) ?? []).map((nome) => {
    const kept = liveOptions.find((o) => o.nome === nome);
    return kept ? { id: kept.id, nome } : { nome };
  });
  return {
    nome: record.fields.nome,
    situacao: fields.situacao ?? 1,
    placeholder: fields.placeholder ?? '',
    obrigatorio: fields.obrigatorio ?? false,
    opcoes,
    tamanho: { minimo: 0, maximo: 0, ...(fields.tamanho as Fields | undefined) },
    agrupadores,
  };
}

function customFieldDiffers(body: Fields, detail: Row): boolean {
  const names = (options: unknown) => ((options as Row[] | undefined) ?? []).map((o) => o.nome);
  const groupers = (list: unknown) => ((list as Row[] | undefined) ?? []).map((a) => a.id).sort();
  return (
    differs(without(body, ['nome', 'opcoes', 'agrupadores']), detail) ||
    differs(names(body.opcoes), names(detail.opcoes)) ||
    differs(groupers(body.agrupadores), groupers(detail.agrupadores))
  );
}

async function syncCustomFields(peer: Peer, productCategories: ReadonlyMap<string, number>): Promise<void> {
  const kind = 'camposCustomizados';
  const records = recordsOf(peer, kind);
  if (records.length === 0) return;
  refuseToPrune(peer, kind);
  const api = peer.sdk.camposCustomizados;
  const modules = new Map(rowsOf(await api.getModules()).map((m) => [cleanName(m.nome), m.id]));
  const types = new Map(rowsOf(await api.getTypes()).map((t) => [cleanName(t.nome), t.id]));
  const groupsByContact = records.some((r) => (r.fields.agrupadores as Fields | undefined)?.tiposContatos !== undefined);
  const contactTypes = groupsByContact ? new Map(rowsOf(await peer.sdk.contatosTipos.get()).map((t) => [cleanName(t.descricao), t.id])) : new Map<string, number>();
  const lookups = { productCategories, contactTypes };
  for (const name of new Set(records.map((r) => cleanName(r.fields.modulo)))) {
    const idModulo = requireId(modules, name, 'custom-field module');
    const live = indexBy(await listPages((pagina) => api.findByModule({ idModulo, pagina, limite: pageSize } as never)), (f) => cleanName(f.nome));
    for (const record of records.filter((r) => cleanName(r.fields.modulo) === name)) {
      const found = live.get(record.name);
      if (isAbsent(record)) {
        if (found) await api.delete({ idCampoCustomizado: found.id });
        continue;
      }
      if (!found) {
        const tipoCampo = { id: requireId(types, record.fields.tipoCampo, 'custom-field type') };
        await api.create({ ...customFieldBody(record, lookups), modulo: { id: idModulo }, tipoCampo } as never);
        continue;
      }
      const detail = rowOf(await api.find({ idCampoCustomizado: found.id }));
      const body = customFieldBody(record, lookups, detail);
      if (customFieldDiffers(body, detail)) await api.update({ idCampoCustomizado: found.id, ...body } as never);
    }
  }
}
