// A fleet parses its shared base once: every store after the first reuses the parse, and applies
// its own variables and overlay to it. The result for each store must be exactly what parsing it
// alone gives — records, digest, policy, diagnostics — including a store whose overlay replaces
// base records and one whose variables make a base record invalid.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/load-manifests.js';
import { forgetParsedFiles } from '../../src/manifest/parse-once.js';

const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-parse-once-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}

write('base/grupos.yaml', 'version: 1\ngruposProdutos:\n  - nome: Revenda\n  - nome: Loja ${LOJA}\n');
write('base/formas.yaml', 'version: 1\nformasPagamentos:\n  - descricao: Pix\n    tipoPagamento: pix-dinamico\n    finalidade: recebimentos\n    destino: caixa-e-bancos\n    taxas:\n      aliquota: ${TAXA:-0}\n');
// Without variables: gathered once and shared by every store.
write('base/categorias.yaml', 'version: 1\ncategoriasProdutos:\n  - descricao: Cabelos\n  - descricao: Shampoos\n    categoriaPai: Cabelos\n');
write('lojas/a/overlay.yaml', 'version: 1\ngruposProdutos:\n  - nome: Só da A\n');
write('lojas/b/overlay.yaml', 'version: 1\nformasPagamentos:\n  - descricao: Pix\n    tipoPagamento: pix-estatico\n    finalidade: recebimentos\n    destino: caixa-e-bancos\n');
write('lojas/c/overlay.yaml', 'version: 1\n');

const stores = {
  a: { env: { LOJA: 'A' }, overlay: 'lojas/a' },
  b: { env: { LOJA: 'B', TAXA: '1.5' }, overlay: 'lojas/b' },
  // A rate that is not a number: the shared base gives this store (only) an error.
  c: { env: { LOJA: 'C', TAXA: 'muita' }, overlay: 'lojas/c' },
} as const;

const load = async (store: keyof typeof stores) => settle(await loadManifests(['base', stores[store].overlay], { cwd: dir, env: {}, variables: stores[store].env, layers: true }));

/** Functions (each record's `locate`) compared by what they answer for the record itself and a field. */
function settle(value: unknown): unknown {
  if (typeof value === 'function') return [(value as (p: unknown[]) => unknown)([]), (value as (p: unknown[]) => unknown)(['nome'])];
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [k, settle(v)]));
  if (value instanceof Set || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(settle);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, settle(v)]));
}

type Loaded = { desired?: { records: Map<string, { fields: unknown }[]> }; diagnostics: { severity: string; position?: { file: string } }[] };

describe('shared manifests parsed once per fleet', () => {
  it('gives every store what parsing it alone gives', async () => {
    const alone = new Map<string, Loaded>();
    for (const store of ['a', 'b', 'c'] as const) {
      forgetParsedFiles();
      alone.set(store, (await load(store)) as Loaded);
    }
    forgetParsedFiles();
    for (const round of [1, 2]) {
      for (const store of ['c', 'b', 'a'] as const) expect(await load(store), `${store}, round ${round}`).toEqual(alone.get(store));
    }
    expect(alone.get('a')?.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(alone.get('a')?.desired?.records.get('gruposProdutos')?.map((r) => r.fields)).toEqual([{ nome: 'Revenda' }, { nome: 'Loja A' }, { nome: 'Só da A' }]);
    expect(alone.get('c')?.desired).toBeUndefined();
    expect(alone.get('c')?.diagnostics.some((d) => d.severity === 'error' && d.position?.file === 'base/formas.yaml')).toBe(true);
  });

  it('gathers a file without variables once: every store holds the same values, frozen', async () => {
    forgetParsedFiles();
    const raw = async (store: keyof typeof stores) => loadManifests(['base', stores[store].overlay], { cwd: dir, env: {}, variables: stores[store].env, layers: true });
    const [a, b] = [await raw('a'), await raw('b')];
    const valuesOf = (loaded: typeof a) => loaded.desired?.records.get('categoriasProdutos')?.map((r) => r.source.value) ?? [];
    expect(valuesOf(a)).toHaveLength(2);
    valuesOf(a).forEach((value, i) => expect(value).toBe(valuesOf(b)[i]));
    expect(valuesOf(a).every((value) => Object.isFrozen(value))).toBe(true);
    // A file with variables is each store's own.
    expect(a.desired?.records.get('gruposProdutos')?.[1]?.source.value).not.toBe(b.desired?.records.get('gruposProdutos')?.[1]?.source.value);
  });

  it('parses a file again when its bytes change', async () => {
    forgetParsedFiles();
    await load('a');
    write('base/grupos.yaml', 'version: 1\ngruposProdutos:\n  - nome: Atacado\n');
    const after = (await load('a')) as Loaded;
    expect(after.desired?.records.get('gruposProdutos')?.map((r) => r.fields)).toEqual([{ nome: 'Atacado' }, { nome: 'Só da A' }]);
  });
});
