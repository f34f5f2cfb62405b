// Bulk deletes end to end over real HTTP: a prune of product groups and income/expense categories
// sends one DELETE per hundred records of a wave (children in earlier requests than their
// parents), removes exactly the records the plan shows (never the default chart), costs what the
// plan's cost line says, reports each record's own outcome when the service keeps some, and
// takes a resend whose records the lost first attempt already deleted as done.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator, RequestLogEntry } from '../../src/emulator/index.js';
import { buildSeed } from '../../src/emulator/seed.js';
import { allocateId } from '../../src/emulator/state.js';
import { bulkDeleteIdsPerRequest } from '../../src/kinds/live-helpers.js';
import type { Plan } from '../../src/model/plan.js';
import { runCli } from '../support/run-cli.js';
import { applyOnce, loadDesiredOrThrow, planNow } from '../reliability/support/pipeline.js';

const pruneBoth = 'version: 1\npolicy:\n  prune: [gruposProdutos, categoriasReceitasDespesas]\n  maxDeletes: 1000\ngruposProdutos: []\ncategoriasReceitasDespesas: []\n';
const groupsPath = '/grupos-produtos';
const categoriesPath = '/categorias/receitas-despesas';

let dir: string;
let emulator: Emulator;
const defaultChart = buildSeed('fresh').categoriasReceitasDespesas.map((c) => c.id);

afterEach(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Tree {
  /** Names of roots, and of children as `parent > name` (parents listed first). */
  groups: readonly string[];
  categories: readonly string[];
  inUse?: readonly string[];
}

/** A fresh account with these own groups and categories (ids of 11 digits, as real ones), and the manifest that prunes them all. */
async function openAccount(tree: Tree): Promise<Map<string, number>> {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-bulk-'));
  const state = buildSeed('fresh');
  const ids = new Map<string, number>();
  const place = (kind: 'group' | 'category', name: string): { id: number; parent: number } => {
    const id = allocateId(state);
    ids.set(`${kind}:${name}`, id);
    const at = name.lastIndexOf(' > ');
    return { id, parent: at < 0 ? 0 : (ids.get(`${kind}:${name.slice(0, at)}`) ?? 0) };
  };
  for (const name of tree.groups) {
    const { id, parent } = place('group', name);
    state.gruposProdutos.push({ id, nome: name.split(' > ').at(-1) ?? name, idGrupoPai: parent });
  }
  for (const name of tree.categories) {
    const { id, parent } = place('category', name);
    state.categoriasReceitasDespesas.push({ id, idCategoriaPai: parent, descricao: name.split(' > ').at(-1) ?? name, tipo: 1, idGrupoDre: 1, situacao: 1 });
  }
  state.emUso.push(...(tree.inUse ?? []).map((key) => ids.get(key) ?? 0));
  const seed = path.join(dir, 'seed.json');
  writeFileSync(seed, JSON.stringify(state));
  writeFileSync(path.join(dir, 'm.yaml'), pruneBoth);
  emulator = await createEmulator({ seed, rateLimit: 0 });
  return ids;
}

/** Read, plan and apply `m.yaml` in-process, as `erpsync apply` does; the requests it sent. */
async function applyPrune(): Promise<{ plan: Plan; log: readonly RequestLogEntry[]; applied: number; failed: number }> {
  emulator.clearLog();
  const { plan, result, error } = await applyOnce(emulator, await loadDesiredOrThrow(['m.yaml'], dir, {}));
  if (!plan || !result) throw new Error(`the apply did not run: ${String(error)}`);
  return { plan, log: emulator.requestLog(), applied: result.applied, failed: result.failed };
}

/** The ids each DELETE of `resource` named, in the order sent (a single DELETE names one, in its path). */
function deletedIdsPerRequest(log: readonly RequestLogEntry[], resource: string): number[][] {
  return log
    .filter((e) => e.method === 'DELETE' && (e.path === resource || e.path.startsWith(`${resource}/`)))
    .map((e) => (e.path === resource ? new URLSearchParams(e.query).getAll(e.query.split('=')[0] ?? '').map(Number) : [Number(e.path.slice(resource.length + 1))]));
}

const names = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix} ${String(i + 1).padStart(3, '0')}`);

describe('bulk deletes', () => {
  it('prunes N records of each kind with ceil(N / size) DELETEs, the cost line exact, the default chart kept', async () => {
    const count = 130;
    const ids = await openAccount({ groups: names('Grupo', count), categories: names('Categoria', count) });
    const { plan, log, applied, failed } = await applyPrune();
    expect([applied, failed]).toEqual([2 * count, 0]);
    const requests = Math.ceil(count / bulkDeleteIdsPerRequest);
    const sentGroups = deletedIdsPerRequest(log, groupsPath);
    const sentCategories = deletedIdsPerRequest(log, categoriesPath);
    expect([sentGroups.length, sentCategories.length]).toEqual([requests, requests]);
    expect(sentGroups.flat().sort()).toEqual([...ids].filter(([k]) => k.startsWith('group:')).map(([, id]) => id).sort());
    expect(sentCategories.flat().sort()).toEqual([...ids].filter(([k]) => k.startsWith('category:')).map(([, id]) => id).sort());
    // A full request of 11-digit ids stays far below the 8 KB request line servers commonly allow.
    expect(Math.max(...log.map((e) => e.path.length + e.query.length))).toBeLessThan(4096);
    const state = emulator.snapshot();
    expect(state.gruposProdutos).toEqual([]);
    expect(state.categoriasReceitasDespesas.map((c) => c.id).sort()).toEqual([...defaultChart].sort());
    const { reads, writes, verifyReads = 0 } = plan.cost;
    expect(writes).toBe(2 * requests);
    expect(log).toHaveLength(reads + writes + verifyReads);
    expect((await planNow(emulator, await loadDesiredOrThrow(['m.yaml'], dir, {}))).changes.filter((c) => c.action !== 'blocked')).toEqual([]);
  });

  it('deletes children in an earlier request than their parents, which the strict emulator requires', async () => {
    const tree = ['A', 'A > B', 'A > B > C', 'A > D', 'E', 'E > F', 'G'];
    const ids = await openAccount({ groups: tree, categories: tree });
    const { plan, log, applied, failed } = await applyPrune();
    expect([applied, failed]).toEqual([2 * tree.length, 0]);
    for (const [resource, kind] of [[groupsPath, 'group'], [categoriesPath, 'category']] as const) {
      const sent = deletedIdsPerRequest(log, resource);
      const requestOf = (name: string) => sent.findIndex((request) => request.includes(ids.get(`${kind}:${name}`) ?? 0));
      for (const name of tree.filter((n) => n.includes(' > '))) expect(requestOf(name), name).toBeLessThan(requestOf(name.slice(0, name.lastIndexOf(' > '))));
      // One request per wave: leaves (C, D, F, G), then B and E, then A.
      expect(sent.map((request) => request.length)).toEqual([4, 2, 1]);
    }
    expect(plan.cost.writes).toBe(6);
    expect(emulator.snapshot().gruposProdutos).toEqual([]);
  });

  it('reports exactly the records the service kept as failed, the others as applied, and exits 1', async () => {
    const groups = names('Grupo', 5);
    const categories = names('Categoria', 5);
    // The first group leads its request; the third category rides in another's.
    const inUse = ['group:Grupo 001', 'category:Categoria 003'];
    const ids = await openAccount({ groups, categories, inUse });
    const env = { BLING_ACCESS_TOKEN: emulator.token, ERPSYNC_BASE_URL: emulator.baseUrl, ERPSYNC_RATE: '1000', ERPSYNC_LOCK_DIR: path.join(dir, '.locks') };
    const run = await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(1);
    const failedLines = run.stdout.split('\n').filter((line) => line.trimStart().startsWith('failed'));
    expect(failedLines).toHaveLength(2);
    expect(failedLines.join('\n')).toMatch(/Grupo 001.*still in the account when read back/);
    expect(failedLines.join('\n')).toMatch(/Categoria 003.*still in the account when read back/);
    expect(run.stdout).toContain('Apply: 8 applied, 2 failed');
    const state = emulator.snapshot();
    expect(state.gruposProdutos.map((g) => g.id)).toEqual([ids.get('group:Grupo 001')]);
    expect(state.categoriasReceitasDespesas.filter((c) => !defaultChart.includes(c.id)).map((c) => c.id)).toEqual([ids.get('category:Categoria 003')]);
    // One DELETE per kind, and each met alerts: the five ids of each are read back.
    const writes = emulator.requestLog().filter((e) => e.method !== 'GET' || /\/\d+$/.test(e.path));
    expect(writes.map((e) => `${e.method} ${e.path.replace(/\/\d+$/, '/{id}')}`).sort()).toEqual(
      [`DELETE ${groupsPath}`, `DELETE ${categoriesPath}`, ...Array<string>(5).fill(`GET ${groupsPath}/{id}`), ...Array<string>(5).fill(`GET ${categoriesPath}/{id}`)].sort(),
    );
  });

  it('takes a resent bulk DELETE whose records the lost first attempt deleted as done', async () => {
    await openAccount({ groups: names('Grupo', 3), categories: [] });
    emulator.setFaults({ schedule: [{ method: 'DELETE', path: groupsPath, nth: 1, fault: 'reset-after' }] });
    const run = await applyOnce(emulator, await loadDesiredOrThrow(['m.yaml'], dir, {}));
    expect(run.error).toBeUndefined();
    expect([run.result?.applied, run.result?.failed]).toEqual([3, 0]);
    const deletes = emulator.requestLog().filter((e) => e.method === 'DELETE' || /^\/grupos-produtos\/\d+$/.test(e.path));
    // The first attempt committed and lost its answer; the resend finds nothing left to delete, and the read-back proves it.
    expect(deletes.map((e) => `${e.method} ${e.status}${e.fault ? ` ${e.fault}` : ''}`)).toEqual(['DELETE 204 reset-after', 'DELETE 200', 'GET 404', 'GET 404', 'GET 404']);
    expect(emulator.snapshot().gruposProdutos).toEqual([]);
  });
});
