// The bench's workloads: what each one asks of an account, and the accounts they start from.
// Every workload names a manifest directory and an account seed; each measured run (erpsync's and
// the peer's) opens a new emulated account from that seed, so both tools start from the same state.
// Seeds other than a fresh account are built once here, by erpsync itself against an unthrottled
// emulator, and checked converged before they are saved.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { openAccount, planIsClean, runBuiltCli } from './measure.js';

export type WorkloadKey = 'bootstrap' | 'bootstrap-again' | 'large-changed' | 'large-unchanged' | 'change-mix';

export interface Workload {
  key: WorkloadKey;
  title: string;
  /** What the workload holds, for the report. */
  about: string;
  /** The manifest directory both tools sync to. */
  manifests: string;
  /** The account every run starts from: `fresh` or a seed file. */
  seed: string;
}

type Entry = Record<string, unknown>;

export const largeStoreRecords = 1_000;

/** Tree records: a tenth are roots, the rest hang under an earlier record (spread by the golden ratio), at most 4 deep. */
function tree(count: number, prefix: string, nameField: string, parentField: string): Entry[] {
  const entries: Entry[] = [];
  const depth: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const parent = i % 10 === 0 || i < 10 ? undefined : Math.floor(((i * 0.6180339887) % 1) * i);
    const parentDepth = parent === undefined ? 0 : (depth[parent] ?? 1);
    const underParent = parent !== undefined && parentDepth < 4;
    depth.push(underParent ? parentDepth + 1 : 1);
    entries.push({ [nameField]: `${prefix} ${i}`, ...(underParent ? { [parentField]: `${prefix} ${parent}` } : {}) });
  }
  return entries;
}

/**
 * A store of `records` records in the kinds both tools manage, shaped like a real one: a few dozen
 * payment methods (their detail carries fields the list lacks), income/expense categories under
 * the default chart, and the bulk in product categories and groups.
 */
export function buildLargeStore(records: number): Entry {
  const methods = Math.min(40, Math.round(records * 0.04));
  const income = Math.round(records * 0.2);
  const categories = Math.round((records - methods - income) / 2);
  const groups = records - methods - income - categories;
  const roots = [['Despesas administrativas', 'despesa'], ['Despesas comerciais', 'despesa'], ['Vendas de produtos', 'receita']] as const;
  return {
    version: 1,
    formasPagamentos: Array.from({ length: methods }, (_, i) => ({
      descricao: `Forma ${i}`,
      tipoPagamento: ['pix-dinamico', 'boleto', 'deposito-bancario', 'transferencia'][i % 4],
      finalidade: 'recebimentos',
      destino: i % 2 === 0 ? 'contas' : 'caixa-e-bancos',
      juros: (i % 5) / 2,
    })),
    categoriasReceitasDespesas: Array.from({ length: income }, (_, i) => {
      const [parent, tipo] = roots[i % roots.length] ?? roots[0];
      return { descricao: `Conta ${i}`, tipo, categoriaPai: parent };
    }),
    categoriasProdutos: tree(categories, 'Categoria', 'descricao', 'categoriaPai'),
    gruposProdutos: tree(groups, 'Grupo', 'nome', 'grupoProdutoPai'),
  };
}

/** 5% of the store changed: interest of some payment methods, and new records in the three trees; with a line saying so. */
export function changeLargeStore(store: Entry, records: number): { store: Entry; about: string } {
  const changed = structuredClone(store) as Record<string, Entry[]>;
  const changes = Math.round(records * 0.05);
  const updates = Math.min(Math.floor(changes * 0.4), changed.formasPagamentos?.length ?? 0);
  for (const method of (changed.formasPagamentos ?? []).slice(0, updates)) method.juros = Number(method.juros) + 1;
  const creates = changes - updates;
  const perTree = Math.floor(creates / 3);
  const extra = creates - perTree * 3;
  changed.categoriasReceitasDespesas?.push(...Array.from({ length: perTree + extra }, (_, i) => ({ descricao: `Conta nova ${i}`, tipo: 'despesa', categoriaPai: 'Despesas comerciais' })));
  changed.categoriasProdutos?.push(...Array.from({ length: perTree }, (_, i) => ({ descricao: `Categoria nova ${i}`, ...(i % 2 ? { categoriaPai: 'Categoria 0' } : {}) })));
  changed.gruposProdutos?.push(...Array.from({ length: perTree }, (_, i) => ({ nome: `Grupo novo ${i}`, ...(i % 2 ? { grupoProdutoPai: 'Grupo 0' } : {}) })));
  return { store: changed, about: `interest of ${updates} payment methods, ${creates} new records in the three trees` };
}

function writeManifest(dir: string, store: Entry): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'manifest.yaml'), stringify(store));
  return dir;
}

/** Edits one YAML file of a manifest directory (comments are not kept: the bench reads no comments). */
function editYaml(dir: string, file: string, edit: (doc: Record<string, Entry[]>) => void): void {
  const at = path.join(dir, file);
  const doc = parse(readFileSync(at, 'utf8')) as Record<string, Entry[]>;
  edit(doc);
  writeFileSync(at, stringify(doc));
}

function entryNamed(list: Entry[] | undefined, field: string, name: string): Entry {
  const entry = list?.find((e) => e[field] === name);
  if (!entry) throw new Error(`examples/loja-nova no longer declares ${name}; the change mix needs updating`);
  return entry;
}

/**
 * loja-nova a month on: the default payment method moves to boleto, logistics services are added
 * and one retired, a group, a product category and an income category are renamed (previousNames,
 * children following), a category is tombstoned, and pruning deletes a category and a group.
 */
export function writeChangeMix(example: string, dir: string): string {
  cpSync(example, dir, { recursive: true });
  editYaml(dir, 'financeiro.yaml', (doc) => {
    delete entryNamed(doc.formasPagamentos, 'descricao', 'Pix').padrao;
    entryNamed(doc.formasPagamentos, 'descricao', 'Boleto bancário').padrao = 'padrao';
    Object.assign(entryNamed(doc.categoriasReceitasDespesas, 'descricao', 'Marketing de influenciadores'), { descricao: 'Marketing digital', previousNames: ['Marketing de influenciadores'] });
    Object.assign(entryNamed(doc.categoriasReceitasDespesas, 'descricao', 'Certificado digital'), { ensure: 'absent' });
  });
  editYaml(dir, 'logistica.yaml', (doc) => {
    const own = entryNamed(doc.logisticas, 'descricao', 'Entrega própria').servicos as Entry[];
    Object.assign(entryNamed(own, 'codigo', 'MOTO-AGENDADA'), { ensure: 'absent' });
    own.push({ codigo: 'MOTO-NOTURNA', descricao: 'Motoboy noturno', freteItem: 6, estimativaEntrega: 1 });
    const pickup = entryNamed(doc.logisticas, 'descricao', 'Retirada na loja').servicos as Entry[];
    pickup.push({ codigo: 'RETIRADA-DRIVE', descricao: 'Retirada no drive-thru', freteItem: 0, estimativaEntrega: 1 });
  });
  editYaml(dir, 'produtos.yaml', (doc) => {
    Object.assign(entryNamed(doc.categoriasProdutos, 'descricao', 'Cabelos'), { descricao: 'Cabelo e barba', previousNames: ['Cabelos'] });
    doc.categoriasProdutos = (doc.categoriasProdutos ?? []).filter((c) => c.descricao !== 'Perfumaria');
    Object.assign(entryNamed(doc.gruposProdutos, 'nome', 'Revenda'), { nome: 'Parceiros', previousNames: ['Revenda'] });
    for (const group of doc.gruposProdutos ?? []) if (group.grupoProdutoPai === 'Revenda') group.grupoProdutoPai = 'Parceiros';
    doc.gruposProdutos = (doc.gruposProdutos ?? []).filter((g) => g.nome !== 'Linha Mar Aberto');
  });
  return dir;
}

/** Applies `manifests` with erpsync to an account opened from `seed`, unthrottled, and saves the account as a seed. */
export async function buildAccountSeed(seed: string, manifests: string, file: string, env: NodeJS.ProcessEnv): Promise<string> {
  const account = await openAccount(seed, 0);
  try {
    const applied = await runBuiltCli(['apply', manifests, '--auto-approve'], { ...account.env, ...env, ERPSYNC_RATE: '100000' }, account.dir);
    if (applied.code !== 0) throw new Error(`building the seed ${path.basename(file)} failed (exit ${applied.code}): ${applied.stderr.slice(0, 2000)}`);
    if (!(await planIsClean(account, manifests, env))) throw new Error(`the seed ${path.basename(file)} did not converge`);
    writeFileSync(file, JSON.stringify(account.emulator.snapshot()));
    return file;
  } finally {
    await account.close();
  }
}

/**
 * `writes` records created on a fresh account, in the large store's kinds and shape: issue 23's
 * "300-write apply" beside a neighbour, for `bench:fleet` (not one of the peer bench's workloads).
 */
export function writeCreatesWorkload(workDir: string, writes: number): Pick<Workload, 'title' | 'manifests' | 'seed'> {
  return { title: `${writes} records created on a fresh account`, manifests: writeManifest(path.join(workDir, `creates-${writes}`), buildLargeStore(writes)), seed: 'fresh' };
}

/** Writes the manifests and builds the seeds of every workload under `workDir`. */
export async function prepareWorkloads(example: string, workDir: string, env: NodeJS.ProcessEnv): Promise<Workload[]> {
  const large = buildLargeStore(largeStoreRecords);
  const largeBase = writeManifest(path.join(workDir, 'large-base'), large);
  const changed = changeLargeStore(large, largeStoreRecords);
  const largeChanged = writeManifest(path.join(workDir, 'large-changed'), changed.store);
  const changeMix = writeChangeMix(example, path.join(workDir, 'change-mix'));
  const bootstrapped = await buildAccountSeed('fresh', example, path.join(workDir, 'loja-nova.seed.json'), env);
  const largeSeed = await buildAccountSeed('fresh', largeBase, path.join(workDir, 'large.seed.json'), env);
  const thousand = largeStoreRecords.toLocaleString('en-US');
  const sizes = Object.entries(large).filter(([, list]) => Array.isArray(list)).map(([kind, list]) => `${(list as unknown[]).length} ${kind}`).join(', ');
  return [
    { key: 'bootstrap', title: '`examples/loja-nova` on a fresh account', about: 'every kind erpsync manages, on a new account', manifests: example, seed: 'fresh' },
    { key: 'bootstrap-again', title: 'the same again, nothing to change', about: 'the account erpsync left after the bootstrap', manifests: example, seed: bootstrapped },
    { key: 'large-changed', title: `${thousand} records, 5% changed`, about: `${sizes} (trees up to 4 deep); 5% changed: ${changed.about}`, manifests: largeChanged, seed: largeSeed },
    { key: 'large-unchanged', title: `${thousand} records, nothing to change`, about: `the same ${thousand} records, as the account holds them`, manifests: largeBase, seed: largeSeed },
    {
      key: 'change-mix',
      title: 'change mix on loja-nova',
      about: 'on the bootstrapped account: the default payment method moves, 2 logistics services added and 1 retired, 3 renames (previousNames, children following), 1 tombstone and 2 prunes',
      manifests: changeMix,
      seed: bootstrapped,
    },
  ];
}
