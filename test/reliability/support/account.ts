// Facts about an emulated account read straight from emulator.snapshot(), written independently of
// erpsync's adapters so the checks do not trust the code they check: every record's natural
// identity, duplicate identities, and the records a run changed although its plan did not list them.
import { isDeepStrictEqual } from 'node:util';
import type { EmulatorState } from '../../../src/emulator/index.js';
import type { Plan } from '../../../src/model/plan.js';

/** The snapshot's record lists and the plan's unit kind each one holds. */
const collections = {
  formasPagamentos: 'formasPagamentos',
  categoriasReceitasDespesas: 'categoriasReceitasDespesas',
  categoriasProdutos: 'categoriasProdutos',
  gruposProdutos: 'gruposProdutos',
  situacoes: 'situacoes',
  logisticas: 'logisticas',
  servicosLogisticas: 'logisticasServicos',
  depositos: 'depositos',
  transicoes: 'transicoes',
  categoriasLojas: 'categoriasLojas',
  camposCustomizados: 'camposCustomizados',
} as const;

type Collection = keyof typeof collections;

interface AccountRecord {
  collection: Collection;
  /** Unit kind as plans name it. */
  kind: string;
  id: number;
  /** Natural key as plans show it: a path of names joined by ` > `. */
  identity: string;
  value: unknown;
}

const clean = (name: string): string => name.normalize('NFC').trim();

function treePath<T extends { id: number }>(records: readonly T[], name: (r: T) => string, parentOf: (r: T) => number): (r: T) => string {
  const byId = new Map(records.map((r) => [r.id, r]));
  return (record) => {
    const names: string[] = [];
    const seen = new Set<number>();
    for (let at: T | undefined = record; at && !seen.has(at.id); at = byId.get(parentOf(at))) {
      seen.add(at.id);
      names.unshift(clean(name(at)));
    }
    return names.join(' > ');
  };
}

function listRecords(state: EmulatorState): AccountRecord[] {
  const out: AccountRecord[] = [];
  const add = (collection: Collection, id: number, identity: string, value: unknown) =>
    out.push({ collection, kind: collections[collection], id, identity, value });

  for (const r of state.formasPagamentos) add('formasPagamentos', r.id, clean(r.descricao), r);
  const income = treePath(state.categoriasReceitasDespesas, (r) => r.descricao, (r) => r.idCategoriaPai);
  for (const r of state.categoriasReceitasDespesas) add('categoriasReceitasDespesas', r.id, income(r), r);
  const products = treePath(state.categoriasProdutos, (r) => r.descricao, (r) => r.idCategoriaPai);
  for (const r of state.categoriasProdutos) add('categoriasProdutos', r.id, products(r), r);
  const groups = treePath(state.gruposProdutos, (r) => r.nome, (r) => r.idGrupoPai);
  for (const r of state.gruposProdutos) add('gruposProdutos', r.id, groups(r), r);
  const modules = new Map(state.modulos.map((m) => [m.id, m.nome]));
  for (const r of state.situacoes) add('situacoes', r.id, `${clean(modules.get(r.idModuloSistema) ?? `#${r.idModuloSistema}`)} > ${clean(r.nome)}`, r);
  for (const r of state.logisticas) add('logisticas', r.id, clean(r.descricao), r);
  const logistics = new Map(state.logisticas.map((l) => [l.id, l.descricao]));
  for (const r of state.servicosLogisticas) add('servicosLogisticas', r.id, `${clean(logistics.get(r.idLogistica) ?? `#${r.idLogistica}`)} > ${clean(r.codigo)}`, r);
  for (const r of state.depositos) add('depositos', r.id, clean(r.descricao), r);
  const situationName = new Map(state.situacoes.map((s) => [s.id, clean(s.nome)]));
  for (const r of state.transicoes) {
    const module = clean(modules.get(r.idModuloSistema) ?? `#${r.idModuloSistema}`);
    add('transicoes', r.id, `${module} > ${situationName.get(r.idSituacaoOrigem) ?? '?'} → ${situationName.get(r.idSituacaoDestino) ?? '?'}`, r);
  }
  const channels = new Map(state.canaisVenda.map((c) => [c.id, clean(c.descricao)]));
  const categoryPath = new Map(state.categoriasProdutos.map((c) => [c.id, products(c)]));
  for (const r of state.categoriasLojas) add('categoriasLojas', r.id, `${channels.get(r.idLoja) ?? `#${r.idLoja}`} > ${categoryPath.get(r.idCategoriaProduto) ?? '?'}`, r);
  const fieldModules = new Map(state.modulosCamposCustomizados.map((m) => [m.id, clean(m.nome)]));
  for (const r of state.camposCustomizados) add('camposCustomizados', r.id, `${fieldModules.get(r.idModulo) ?? `#${r.idModulo}`} > ${clean(r.nome)}`, r);
  return out;
}

/** `kind "identity" ×n` for every identity more than one record of a kind carries. */
export function findDuplicates(state: EmulatorState): string[] {
  const counts = new Map<string, number>();
  for (const r of listRecords(state)) {
    const key = `${r.kind} "${r.identity}"`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].filter(([, n]) => n > 1).map(([key, n]) => `${key} ×${n}`);
}

/**
 * Everything that differs between two snapshots and that none of the plans accounts for: a
 * record changed or deleted that no change acts on, a record created that no create declares,
 * a change to records erpsync never manages. Tolerated are the service's own effects that take
 * nothing away: `padrao` moving off other payment methods or warehouses when a plan sets a default
 * (DESIGN §2: not drift), and `idGrupoDre` following a category's parent when the plan regroups or
 * moves an ancestor. What the service removes or orphans with a removal (a situation's
 * transitions, a category's store links) is not tolerated: a plan shows it as changes of its own.
 */
export function findChangesOutsidePlan(before: EmulatorState, after: EmulatorState, plans: readonly Plan[]): string[] {
  const changes = plans.flatMap((p) => p.changes).filter((c) => c.action !== 'blocked');
  const touched = new Set(changes.filter((c) => c.liveId !== undefined).map((c) => `${c.kind}:${c.liveId}`));
  const deletable = new Set(changes.filter((c) => c.action === 'delete').map((c) => `${c.kind}:${c.liveId}`));
  const creatable = new Set(changes.filter((c) => c.action === 'create').map((c) => `${c.kind}:${c.key}`));
  const movesDefault = changes.some((c) => c.kind === 'formasPagamentos' && (c.fields.some((f) => f.path === 'padrao') || Number(c.desired?.padrao ?? 0) !== 0));
  const movesWarehouse = changes.some((c) => c.kind === 'depositos' && c.desired?.padrao === true);
  const regrouped = new Set(
    changes.filter((c) => c.kind === 'categoriasReceitasDespesas' && c.fields.some((f) => f.path === 'grupoDRE' || f.path === 'categoriaPai')).map((c) => c.liveId),
  );
  const followsRegroupedAncestor = (id: number): boolean =>
    [before, after].some((state) => ancestorIds(state.categoriasReceitasDespesas, id).some((ancestor) => regrouped.has(ancestor)));
  const problems: string[] = [];

  const afterById = new Map(listRecords(after).map((r) => [`${r.kind}:${r.id}`, r]));
  const beforeIds = new Set<string>();
  for (const record of listRecords(before)) {
    const key = `${record.kind}:${record.id}`;
    beforeIds.add(key);
    const now = afterById.get(key);
    if (!now) {
      if (!deletable.has(key)) problems.push(`${record.kind} "${record.identity}" (id ${record.id}) was deleted without a delete in the plan`);
      continue;
    }
    if (touched.has(key) || isDeepStrictEqual(now.value, record.value)) continue;
    if (movesDefault && record.kind === 'formasPagamentos' && equalBut(now.value, record.value, 'padrao')) continue;
    if (movesWarehouse && record.kind === 'depositos' && equalBut(now.value, record.value, 'padrao')) continue;
    if (record.kind === 'categoriasReceitasDespesas' && followsRegroupedAncestor(record.id) && equalBut(now.value, record.value, 'idGrupoDre')) continue;
    problems.push(`${record.kind} "${record.identity}" (id ${record.id}) changed without a change in the plan`);
  }
  for (const [key, record] of afterById) {
    if (beforeIds.has(key)) continue;
    if (!creatable.has(`${record.kind}:${record.identity}`)) problems.push(`${record.kind} "${record.identity}" (id ${record.id}) was created without a create in the plan`);
  }

  if (!changes.some((c) => c.kind === 'configuracoesNfse') && !isDeepStrictEqual(before.nfseConfiguracoes, after.nfseConfiguracoes)) {
    problems.push('configuracoesNfse changed without a change in the plan');
  }
  for (const key of ['modulos', 'emUso'] as const) {
    if (!isDeepStrictEqual(before[key], after[key])) problems.push(`${key} changed, and erpsync never manages it`);
  }
  if (!movesDefault && before.idFormaPagamentoFiado !== after.idFormaPagamentoFiado) problems.push('the on-credit default moved without a plan setting a default');
  return problems;
}

/**
 * References that name a record the account does not have (what a removal orphans when the
 * service keeps the referrer): store links and custom fields' product-category groupings naming a
 * category that is gone, transitions naming a situation that is gone.
 */
export function findDanglingReferences(state: EmulatorState): string[] {
  const categories = new Set(state.categoriasProdutos.map((c) => c.id));
  const situations = new Set(state.situacoes.map((s) => s.id));
  const byCategory = new Set(state.modulosCamposCustomizados.filter((m) => m.modulo === 'Produtos').map((m) => m.id));
  return [
    ...state.categoriasLojas.filter((l) => !categories.has(l.idCategoriaProduto)).map((l) => `categoriasLojas ${l.id} names product category ${l.idCategoriaProduto}, which is gone`),
    ...state.camposCustomizados
      .filter((f) => byCategory.has(f.idModulo))
      .flatMap((f) => f.agrupadores.filter((a) => !categories.has(a.id)).map((a) => `camposCustomizados ${f.id} groups by product category ${a.id}, which is gone`)),
    ...state.transicoes
      .flatMap((t) => [t.idSituacaoOrigem, t.idSituacaoDestino].filter((id) => !situations.has(id)).map((id) => `transicoes ${t.id} names situation ${id}, which is gone`)),
  ];
}

/** The records a plan deletes that are still there: after an apply of all of it, none. */
export function findDeletesNotMade(after: EmulatorState, plans: readonly Plan[]): string[] {
  const present = new Set(listRecords(after).map((r) => `${r.kind}:${r.id}`));
  return plans
    .flatMap((p) => p.changes)
    .filter((c) => c.action === 'delete' && present.has(`${c.kind}:${c.liveId}`))
    .map((c) => `${c.kind} "${c.key}" (id ${String(c.liveId)}) was to be deleted and is still there`);
}

function equalBut(a: unknown, b: unknown, field: string): boolean {
  return isDeepStrictEqual({ ...(a as object), [field]: null }, { ...(b as object), [field]: null });
}

function ancestorIds(records: readonly { id: number; idCategoriaPai: number }[], id: number): number[] {
  const byId = new Map(records.map((r) => [r.id, r]));
  const out: number[] = [];
  for (let parent = byId.get(id)?.idCategoriaPai; parent && !out.includes(parent); parent = byId.get(parent)?.idCategoriaPai) out.push(parent);
  return out;
}
