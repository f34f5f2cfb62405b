// A fleet parses its shared base once: every store after the first reuses the parse, and applies
// its own variables and overlay to it. The result for each store must be exactly what parsing it
// alone gives — records, digest, policy, diagnostics — including a store whose overlay replaces
// base records and one whose variables make a base record invalid. Alone means also with every
// kind checked whole: the stores' records that duplicate, tombstone, name or are named by shared
// ones, and a kind's own whole-set check, give what checking against the shared records gives.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/load-manifests.js';
import { forgetParsedFiles, readManifestFileOnce } from '../../src/manifest/parse-once.js';
import { shareAcrossLoads } from '../../src/manifest/shared-kinds.js';

const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-parse-once-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}

write('base/grupos.yaml', 'version: 1\ngruposProdutos:\n  - nome: Revenda\n  - nome: Loja ${LOJA}\n');
write('base/formas.yaml', 'version: 1\nformasPagamentos:\n  - descricao: Pix\n    tipoPagamento: pix-dinamico\n    finalidade: recebimentos\n    destino: caixa-e-bancos\n    taxas:\n      aliquota: ${TAXA:-0}\n');
// Without variables: gathered once and shared by every store.
write('base/categorias.yaml', 'version: 1\ncategoriasProdutos:\n  - descricao: Cabelos\n  - descricao: Shampoos\n    categoriaPai: Cabelos\n  - descricao: Coloração\n    categoriaPai: Tintas\n  - descricao: Escovas\n');
write('base/lojas.yaml', 'version: 1\ncategoriasLojas:\n  - loja: Loja Virtual\n    categoriaProduto: Condicionadores\n    descricao: Condicionadores\n    codigo: "7"\n');
// A kind whose own check reads the whole set (one default warehouse).
write('base/depositos.yaml', 'version: 1\ndepositos:\n  - descricao: Central\n    padrao: true\n');
// With a variable, after the shared categories in the same layer: a store's value can duplicate one of them.
write('base/extra.yaml', 'version: 1\ncategoriasProdutos:\n  - descricao: ${EXTRA:-Extra}\n');
write('lojas/a/overlay.yaml', 'version: 1\ngruposProdutos:\n  - nome: Só da A\n');
write('lojas/b/overlay.yaml', 'version: 1\nformasPagamentos:\n  - descricao: Pix\n    tipoPagamento: pix-estatico\n    finalidade: recebimentos\n    destino: caixa-e-bancos\n');
write('lojas/c/overlay.yaml', 'version: 1\n');
// A child of a shared category, named by a shared store link.
write('lojas/d/overlay.yaml', 'version: 1\ncategoriasProdutos:\n  - descricao: Condicionadores\n    categoriaPai: Cabelos\n');
// A tombstone over a shared category (its shared child then names a parent no record declares).
write('lojas/e/overlay.yaml', 'version: 1\ncategoriasProdutos:\n  - descricao: Cabelos\n    ensure: absent\n');
// The parent a shared category names, declared by this store only.
write('lojas/f/overlay.yaml', 'version: 1\ncategoriasProdutos:\n  - descricao: Tintas\n');
// A name close to a shared store link's unknown category, and a link of its own to a misspelt shared category (Cabelo).
write('lojas/i/overlay.yaml', 'version: 1\ncategoriasProdutos:\n  - descricao: Condicionador\ncategoriasLojas:\n  - loja: Loja Virtual\n    categoriaProduto: Cabelo\n    descricao: Cabelo\n    codigo: "8"\n');
write('lojas/h/overlay.yaml', 'version: 1\ndepositos:\n  - descricao: Loja ${LOJA}\n    padrao: true\n');
// The same identity as a shared record within the overlay's layer: replaced once, a duplicate within the layer.
write('lojas/g/overlay.yaml', 'version: 1\ncategoriasProdutos:\n  - descricao: Shampoos\n    categoriaPai: Cabelos\n  - descricao: Extra\n  - descricao: Extra\n');

const stores = {
  a: { env: { LOJA: 'A' }, overlay: 'lojas/a' },
  b: { env: { LOJA: 'B', TAXA: '1.5', EXTRA: 'cabelos' }, overlay: 'lojas/b' },
  // A rate that is not a number: the shared base gives this store (only) an error.
  c: { env: { LOJA: 'C', TAXA: 'muita' }, overlay: 'lojas/c' },
  // A duplicate of a shared category in the base's own layer.
  d: { env: { LOJA: 'D', EXTRA: 'Escovas' }, overlay: 'lojas/d' },
  e: { env: { LOJA: 'E' }, overlay: 'lojas/e' },
  f: { env: { LOJA: 'F' }, overlay: 'lojas/f' },
  g: { env: { LOJA: 'G' }, overlay: 'lojas/g' },
  // A second default warehouse: the kind's own check sees the shared one beside it.
  h: { env: { LOJA: 'H' }, overlay: 'lojas/h' },
  i: { env: { LOJA: 'I' }, overlay: 'lojas/i' },
} as const;
const storeNames = Object.keys(stores) as (keyof typeof stores)[];

const load = async (store: keyof typeof stores) => settle(await loadManifests(['base', stores[store].overlay], { cwd: dir, env: {}, variables: stores[store].env, layers: true }));

// A base whose records with variables sit among shared ones (in the middle of a list, in one of two
// documents), with a policy and records after them; and a file whose variable is outside its records.
write(
  'base2/categorias.yaml',
  'version: 1\ncategoriasProdutos:\n  - descricao: Cabelos\n  - descricao: Loja ${LOJA}\n    categoriaPai: Cabelos\n  - descricao: Shampoos\n    categoriaPai: ${PAI:-Cabelos}\n  - descricao: Escovas\n---\nversion: 1\ncategoriasProdutos:\n  - descricao: Pentes\n  - descricao: Tintas\n    categoriaPai: ${TOPO:-Cabelos}\ngruposProdutos:\n  - nome: Revenda\n  - nome: ${GRUPO:-Atacado}\n  - nome: Varejo\n',
);
write(
  'base2/formas.yaml',
  'version: 1\nformasPagamentos:\n  - descricao: Pix\n    tipoPagamento: pix-dinamico\n    finalidade: recebimentos\n    destino: caixa-e-bancos\n  - descricao: Boleto ${LOJA}\n    finalidade: recebimentos\n    destino: caixa-e-bancos\n    tipoPagamento: ${TIPO:-boleto}\n  - descricao: Dinheiro\n    tipoPagamento: dinheiro\n    finalidade: recebimentos\n    destino: caixa-e-bancos\n',
);
write('base2/policy.yaml', 'version: 1\npolicy:\n  maxDeletes: ${MAX:-5}\ndepositos:\n  - descricao: Central\n');
write('lojas/u/overlay.yaml', 'version: 1\ncategoriasProdutos:\n  - descricao: Escovas\n  - descricao: Cabelos\n');
write('lojas/none/overlay.yaml', 'version: 1\n');

const mixed = {
  p: { env: { LOJA: 'P' }, overlay: 'lojas/none' },
  // The store's group duplicates the shared one before it, in the same file.
  q: { env: { LOJA: 'Q', GRUPO: 'Revenda' }, overlay: 'lojas/none' },
  r: { env: { LOJA: 'R', PAI: 'Inexistente' }, overlay: 'lojas/none' },
  s: { env: { LOJA: 'S', TIPO: 'nao-existe' }, overlay: 'lojas/none' },
  // LOJA unset: an error at the record with the variable, on its own line.
  t: { env: {}, overlay: 'lojas/none' },
  // The overlay replaces a shared record and one after the store's record.
  u: { env: { LOJA: 'U' }, overlay: 'lojas/u' },
  // A shared record of the second document names the store's record as its parent.
  v: { env: { LOJA: 'V', TOPO: 'Loja V' }, overlay: 'lojas/none' },
  w: { env: { LOJA: 'W', MAX: '7', GRUPO: 'Revendа' }, overlay: 'lojas/none' },
} as const;
const mixedNames = Object.keys(mixed) as (keyof typeof mixed)[];
const loadMixed = async (store: keyof typeof mixed) => settle(await loadManifests(['base2', mixed[store].overlay], { cwd: dir, env: {}, variables: mixed[store].env, layers: true }));

/** Functions (each record's `locate`) compared by what they answer for the record itself and a field. */
function settle(value: unknown): unknown {
  if (typeof value === 'function') return [(value as (p: unknown[]) => unknown)([]), (value as (p: unknown[]) => unknown)(['nome'])];
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [k, settle(v)]));
  if (value instanceof Set || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(settle);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, settle(v)]));
}

type Loaded = { desired?: { records: Map<string, { fields: unknown }[]> }; diagnostics: { severity: string; position?: { file: string } }[] };

/**
 * Loads each store alone (nothing read or parsed before, nothing shared: every file and kind
 * checked whole), then all of them as one fleet, twice, in both orders: each must be what it was alone.
 */
async function expectEachAsAlone<S extends string>(names: readonly S[], loadStore: (store: S) => Promise<unknown>): Promise<Map<S, Loaded>> {
  const alone = new Map<S, Loaded>();
  shareAcrossLoads(false);
  for (const store of names) {
    forgetParsedFiles();
    alone.set(store, (await loadStore(store)) as Loaded);
  }
  shareAcrossLoads(true);
  forgetParsedFiles();
  for (const round of [1, 2]) {
    for (const store of [...names].reverse()) expect(await loadStore(store), `${store}, round ${round}`).toEqual(alone.get(store));
    for (const store of names) expect(await loadStore(store), `${store}, round ${round}, in order`).toEqual(alone.get(store));
  }
  return alone;
}

describe('shared manifests parsed once per fleet', () => {
  it('gives every store what parsing it alone gives', async () => {
    const alone = await expectEachAsAlone(storeNames, load);
    expect(alone.get('a')?.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(alone.get('a')?.desired?.records.get('gruposProdutos')?.map((r) => r.fields)).toEqual([{ nome: 'Revenda' }, { nome: 'Loja A' }, { nome: 'Só da A' }]);
    expect(alone.get('c')?.desired).toBeUndefined();
    expect(alone.get('c')?.diagnostics.some((d) => d.severity === 'error' && d.position?.file === 'base/formas.yaml')).toBe(true);
    // What each store's own records do to the shared ones, as loading it alone tells it.
    const found = (store: keyof typeof stores, code: string, file: string) => alone.get(store)?.diagnostics.some((d) => (d as { code?: string }).code === code && d.position?.file === file);
    expect(found('a', 'unresolved-reference', 'base/lojas.yaml')).toBe(true);
    expect(found('d', 'unresolved-reference', 'base/lojas.yaml')).toBe(false);
    expect(found('d', 'duplicate-record', 'base/extra.yaml')).toBe(true);
    expect(found('b', 'near-duplicate', 'base/extra.yaml')).toBe(true);
    expect(found('e', 'overlay-replaces', 'base/categorias.yaml')).toBe(true);
    expect(found('a', 'unresolved-reference', 'base/categorias.yaml')).toBe(true);
    expect(found('f', 'unresolved-reference', 'base/categorias.yaml')).toBe(false);
    expect(found('g', 'overlay-replaces', 'base/categorias.yaml')).toBe(true);
    expect(found('g', 'duplicate-record', 'lojas/g/overlay.yaml')).toBe(true);
    expect(found('h', 'multiple-defaults', 'lojas/h/overlay.yaml')).toBe(true);
    expect(found('a', 'multiple-defaults', 'lojas/h/overlay.yaml')).toBe(false);
    // References across kinds: the hints name what the store itself declares, and what the fleet shares.
    const hintOf = (store: keyof typeof stores, file: string) => alone.get(store)?.diagnostics.find((d) => (d as { code?: string }).code === 'unresolved-reference' && d.position?.file === file) as { hint?: string } | undefined;
    expect(hintOf('i', 'base/lojas.yaml')?.hint).toContain('Condicionador');
    expect(hintOf('i', 'lojas/i/overlay.yaml')?.hint).toContain('Cabelos');
  });

  it('gathers a file without variables once: every store holds the same values, frozen', async () => {
    forgetParsedFiles();
    const raw = async (store: keyof typeof stores) => loadManifests(['base', stores[store].overlay], { cwd: dir, env: {}, variables: stores[store].env, layers: true });
    const [a, b] = [await raw('a'), await raw('b')];
    // The first four are base/categorias.yaml's; the fifth, base/extra.yaml's (with a variable).
    const sharedOf = (loaded: typeof a) => loaded.desired?.records.get('categoriasProdutos')?.slice(0, 4) ?? [];
    expect(sharedOf(a)).toHaveLength(4);
    sharedOf(a).forEach((record, i) => expect(record.source.value).toBe(sharedOf(b)[i]?.source.value));
    expect(sharedOf(a).every((record) => Object.isFrozen(record.source.value))).toBe(true);
    // Checked once for the fleet: the very desired records, frozen.
    sharedOf(a).forEach((record, i) => expect(record).toBe(sharedOf(b)[i]));
    expect(sharedOf(a).every((record) => Object.isFrozen(record) && Object.isFrozen(record.fields) && Object.isFrozen(record.tool))).toBe(true);
    // A file with variables is each store's own.
    expect(a.desired?.records.get('gruposProdutos')?.[1]?.source.value).not.toBe(b.desired?.records.get('gruposProdutos')?.[1]?.source.value);
  });

  it('gives every store what parsing it alone gives when its records with variables sit among shared ones', async () => {
    const alone = await expectEachAsAlone(mixedNames, loadMixed);
    const found = (store: keyof typeof mixed, code: string, file: string, line?: number) =>
      alone.get(store)?.diagnostics.some((d) => (d as { code?: string }).code === code && d.position?.file === file && (line === undefined || (d.position as { line?: number }).line === line));
    expect(alone.get('p')?.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    // In the order of the file, the store's record among the shared ones.
    expect(alone.get('p')?.desired?.records.get('categoriasProdutos')?.map((r) => (r.fields as { descricao: string }).descricao)).toEqual(['Cabelos', 'Loja P', 'Shampoos', 'Escovas', 'Pentes', 'Tintas']);
    expect(alone.get('p')?.desired?.records.get('gruposProdutos')?.map((r) => r.fields)).toEqual([{ nome: 'Revenda' }, { nome: 'Atacado' }, { nome: 'Varejo' }]);
    expect(found('q', 'duplicate-record', 'base2/categorias.yaml', 17)).toBe(true);
    expect(found('r', 'unresolved-reference', 'base2/categorias.yaml', 7)).toBe(true);
    expect(found('s', 'invalid-value', 'base2/formas.yaml', 10)).toBe(true);
    expect(found('t', 'undeclared-variable', 'base2/categorias.yaml', 4)).toBe(true);
    expect(found('u', 'overlay-replaces', 'base2/categorias.yaml', 8)).toBe(true);
    expect(found('u', 'overlay-replaces', 'base2/categorias.yaml', 3)).toBe(true);
    expect(found('v', 'unresolved-reference', 'base2/categorias.yaml')).toBe(false);
    expect((alone.get('w')?.desired as { policy?: { maxDeletes: number } } | undefined)?.policy?.maxDeletes).toBe(7);
  });

  it("shares the records before a file's first record with variables, and checks them once", async () => {
    forgetParsedFiles();
    const raw = async (store: keyof typeof mixed) => loadManifests(['base2', mixed[store].overlay], { cwd: dir, env: {}, variables: mixed[store].env, layers: true });
    const [p, w] = [await raw('p'), await raw('w')];
    const groups = (loaded: typeof p) => loaded.desired?.records.get('gruposProdutos') ?? [];
    // Revenda comes before the record with a variable: one desired record for the fleet, frozen.
    expect(groups(p)[0]).toBe(groups(w)[0]);
    expect(Object.isFrozen(groups(p)[0])).toBe(true);
    // The record with the variable, and the one after it, are each store's own.
    expect(groups(p)[1]).not.toBe(groups(w)[1]);
    expect(groups(p)[2]?.source.value).not.toBe(groups(w)[2]?.source.value);
  });

  it('reports what surrounds the records with variables once, where it is', async () => {
    write('base3/grupos.yaml', 'version: 2\ngruposProduto:\n  - nome: Atacado\ngruposProdutos:\n  - nome: Revenda\n  - nome: Loja ${LOJA}\n    extra: 1\n');
    const load3 = async (loja: string) => settle(await loadManifests(['base3'], { cwd: dir, env: {}, variables: { LOJA: loja } }));
    shareAcrossLoads(false);
    forgetParsedFiles();
    const alone = (await load3('X')) as Loaded;
    shareAcrossLoads(true);
    forgetParsedFiles();
    await load3('Y');
    expect(await load3('X')).toEqual(alone);
    const codes = alone.diagnostics.map((d) => `${(d as { code?: string }).code}@${(d.position as { line?: number } | undefined)?.line}`);
    expect(codes).toEqual(['invalid-value@1', 'unknown-kind@2', 'unknown-field@7']);
  });

  it('reads a file again whenever its stat changed, or it was written in the last two seconds', () => {
    forgetParsedFiles();
    const file = path.join(dir, 'reads/grupos.yaml');
    const hourAgo = new Date(Date.now() - 3_600_000);
    const read = () => Buffer.from(readManifestFileOnce(file, 'reads/grupos.yaml', []) ?? []).toString();
    write('reads/grupos.yaml', 'version: 1\ngruposProdutos:\n  - nome: Aaa\n');
    // Just written: the stat may not tell the next write of the same size apart.
    expect(read()).toContain('Aaa');
    write('reads/grupos.yaml', 'version: 1\ngruposProdutos:\n  - nome: Bbb\n');
    expect(read()).toContain('Bbb');
    // Settled: the same bytes are given again, unread.
    utimesSync(file, hourAgo, hourAgo);
    const first = readManifestFileOnce(file, 'reads/grupos.yaml', []);
    expect(readManifestFileOnce(file, 'reads/grupos.yaml', [])).toBe(first);
    // Rewritten with the same size and its old times put back: its change time still tells.
    write('reads/grupos.yaml', 'version: 1\ngruposProdutos:\n  - nome: Ccc\n');
    utimesSync(file, hourAgo, hourAgo);
    expect(read()).toContain('Ccc');
  });

  it('parses a file again when its bytes change', async () => {
    forgetParsedFiles();
    await load('a');
    write('base/grupos.yaml', 'version: 1\ngruposProdutos:\n  - nome: Atacado\n');
    const after = (await load('a')) as Loaded;
    expect(after.desired?.records.get('gruposProdutos')?.map((r) => r.fields)).toEqual([{ nome: 'Atacado' }, { nome: 'Só da A' }]);
  });
});
