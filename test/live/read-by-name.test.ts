// Reads that choose between listing every page and the name filters (kinds/live-helpers
// readListOrSearch), over real HTTP against 1,000-record accounts, in both emulator modes: strict
// answers a filter only with the exact stored value, lenient with any loose match. Whatever the
// filter matches, a small manifest reads a few requests, a name the filter does not find is looked
// for in the whole list before anything is created, and reads that need every record list them all.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/apply/apply-plan.js';
import { findStalePreconditions } from '../../src/apply/check-stale.js';
import { recheckRequest, verifyRequest } from '../../src/apply/read-requests.js';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator, EmulatorMode, EmulatorState } from '../../src/emulator/index.js';
import { readListOrSearch } from '../../src/kinds/live-helpers.js';
import { naturezasOperacoes } from '../../src/kinds/naturezas-operacoes.js';
import { registry } from '../../src/kinds/registry.js';
import { fetchLive } from '../../src/live/fetch-live.js';
import type { Plan } from '../../src/model/plan.js';
import { isActionable } from '../../src/model/plan.js';
import { call } from '../emulator/http-client.js';
import { openClient, planFor, readForManifest } from '../reliability/support/pipeline.js';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const methods = '/formas-pagamentos';
const warehouses = '/depositos';

/** A fresh account grown to 1,000 payment methods and 1,000 warehouses, every 20th retired (ids in creation order). */
async function openLargeAccount(mode: EmulatorMode, edit: (state: EmulatorState) => void = () => {}): Promise<{ emulator: Emulator; dir: string }> {
  const template = await createEmulator({ seed: 'fresh', rateLimit: 0 });
  const state = template.snapshot();
  await template.close();
  // Copies of the seeded `Boleto bancário` (tipoPagamento 15, finalidade 3, destino 1), which the manifests below declare.
  const boleto = state.formasPagamentos.find((m) => m.descricao === 'Boleto bancário');
  if (!boleto) throw new Error('the fresh seed has no Boleto bancário');
  for (let i = state.formasPagamentos.length + 1; i <= 1000; i += 1) {
    state.formasPagamentos.push({ ...boleto, taxas: { ...boleto.taxas }, id: state.nextId++, descricao: `Forma ${String(i).padStart(4, '0')}` });
  }
  for (let i = state.depositos.length + 1; i <= 1000; i += 1) {
    state.depositos.push({ id: state.nextId++, descricao: `Depósito ${String(i).padStart(4, '0')}`, situacao: i % 20 === 0 ? 0 : 1, padrao: false, desconsiderarSaldo: false });
  }
  edit(state);
  const dir = mkdtempSync(join(tmpdir(), 'erpsync-read-by-name-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'seed.json'), JSON.stringify(state));
  const emulator = await createEmulator({ seed: join(dir, 'seed.json'), rateLimit: 0, mode });
  cleanups.push(() => emulator.close());
  return { emulator, dir };
}

const method = (descricao: string, extra = '') => `  - { descricao: "${descricao}", tipoPagamento: 15, finalidade: 3, destino: 1${extra} }\n`;
const warehouse = (descricao: string, extra = '') => `  - { descricao: "${descricao}"${extra} }\n`;

/** Reads the account for the manifest and plans, counting what reading each resource sent. */
async function planManifest(emulator: Emulator, dir: string, yaml: string) {
  const { desired, client, live } = await readForManifest(emulator, dir, yaml, (close) => cleanups.push(close));
  const plan = planFor(desired, live, emulator);
  return { plan, live, client, log: readLog(emulator) };
}

/** The GETs sent, split into list requests (pages and filters) and detail requests, per resource. */
function readLog(emulator: Emulator) {
  const gets = emulator.requestLog().filter((e) => e.method === 'GET');
  const lists = (resource: string) => gets.filter((e) => e.path === resource).map((e) => e.query);
  const details = (resource: string) => gets.filter((e) => e.path.startsWith(`${resource}/`)).map((e) => e.path);
  const pages = (resource: string, filter = '') => lists(resource).filter((q) => !q.includes('descricao=') && q.includes(filter)).map((q) => Number(new URLSearchParams(q).get('pagina')));
  return { lists, details, pages };
}

const actionable = (plan: Plan) => plan.changes.filter(isActionable).map((c) => `${c.action} ${c.key}`);
const everyPage = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];

describe.each(['strict', 'lenient'] as EmulatorMode[])('reads by name over a 1,000-record account (%s mode)', (mode) => {
  it('finds 3 declared payment methods with at most 5 list requests and plans no change', async () => {
    const { emulator, dir } = await openLargeAccount(mode);
    const { plan, live, log } = await planManifest(emulator, dir, `formasPagamentos:\n${method('Forma 0150')}${method('Forma 0520')}${method('Forma 0910')}`);
    expect(actionable(plan)).toEqual([]);
    expect(log.lists(methods).length).toBeLessThanOrEqual(5);
    // destino is required and only the detail holds it: one detail per declared method, as when listing.
    expect(log.details(methods)).toHaveLength(3);
    expect(live.readsByKind?.get('formasPagamentos')).toBe(log.lists(methods).length + 3);
  });

  it('finds 3 declared warehouses, a retired one among them, with at most 6 requests and plans no change', async () => {
    const { emulator, dir } = await openLargeAccount(mode);
    const { plan, log } = await planManifest(emulator, dir, `depositos:\n${warehouse('Depósito 0151')}${warehouse('Depósito 0520', ', situacao: inativo')}${warehouse('Depósito 0913')}`);
    expect(actionable(plan)).toEqual([]);
    // The list leaves retired warehouses out unless asked: 2 pages of the active ones, the one short
    // page of the retired ones, then 3 lookups among the active ones (the retired were read whole).
    expect(log.pages(warehouses, 'situacao=1')).toEqual([1, 2]);
    expect(log.pages(warehouses, 'situacao=0')).toEqual([1]);
    expect(log.lists(warehouses).length + log.details(warehouses).length).toBeLessThanOrEqual(6);
  });

  it('reactivates a retired warehouse the manifest declares active instead of creating its twin', async () => {
    const { emulator, dir } = await openLargeAccount(mode);
    const yaml = `depositos:\n${warehouse('Depósito 0020', ', situacao: ativo')}`;
    const first = await planManifest(emulator, dir, yaml);
    expect(actionable(first.plan)).toEqual(['update Depósito 0020']);
    const result = await applyPlan(first.plan, { client: first.client, adapters: registry.units, live: first.live });
    expect(result.failed).toBe(0);
    expect(emulator.snapshot().depositos.filter((d) => d.descricao === 'Depósito 0020').map((d) => d.situacao)).toEqual([1]);
    expect(actionable((await planManifest(emulator, dir, yaml)).plan)).toEqual([]);
  });

  it('looks for a name the filter does not find in the whole list, creates it once, and plans nothing after', async () => {
    const { emulator, dir } = await openLargeAccount(mode);
    const yaml = `formasPagamentos:\n${method('Forma 0150')}${method('Forma 0910')}${method('Forma nova')}`;
    const first = await planManifest(emulator, dir, yaml);
    expect(first.log.pages(methods)).toEqual(everyPage);
    expect(actionable(first.plan)).toEqual(['create Forma nova']);
    const result = await applyPlan(first.plan, { client: first.client, adapters: registry.units, live: first.live });
    expect(result.failed).toBe(0);
    expect(emulator.requestLog().filter((e) => e.method === 'POST').map((e) => e.path)).toEqual([methods]);
    const second = await planManifest(emulator, dir, yaml);
    expect(actionable(second.plan)).toEqual([]);
    expect(emulator.snapshot().formasPagamentos.filter((m) => m.descricao === 'Forma nova')).toHaveLength(1);
  });

  it('matches a live name that differs only by surrounding blanks or Unicode form, never duplicating it', async () => {
    const { emulator, dir } = await openLargeAccount(mode, (state) => {
      const rename = (from: string, to: string) => Object.assign(state.formasPagamentos.find((m) => m.descricao === from) ?? {}, { descricao: to });
      rename('Forma 0600', 'Forma 0600 ');
      rename('Forma 0700', 'Cafe\u0301 0700');
      rename('Forma 0800', ' Forma 0800');
    });
    const { plan, log } = await planManifest(emulator, dir, `formasPagamentos:\n${method('Forma 0600')}${method('Café 0700')}${method('Forma 0800')}`);
    expect(actionable(plan)).toEqual([]);
    // The narrow filter misses all three, so the list is read on until the last of them (page 8);
    // the loose one finds them.
    if (mode === 'strict') expect(log.pages(methods)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    else expect(log.lists(methods).length).toBeLessThanOrEqual(5);
  });

  it('sees a twin of a name found on an early page, so the plan refuses to choose as it does after a full list', async () => {
    const { emulator, dir } = await openLargeAccount(mode, (state) => {
      Object.assign(state.formasPagamentos.find((m) => m.descricao === 'Forma 0950') ?? {}, { descricao: 'Forma 0020' });
    });
    const { desired, live } = await readForManifest(emulator, dir, `formasPagamentos:\n${method('Forma 0020')}`, (close) => cleanups.push(close));
    // Found on page 1, then looked up by name all the same: one page and one lookup, not 11 pages.
    expect(readLog(emulator).lists(methods)).toHaveLength(2);
    expect(() => planFor(desired, live, emulator)).toThrow(/duplicate-live-records|2 formasPagamentos records named `Forma 0020`/);
  });

  it('finds a record renamed from a previous name, and one pinned by id with a single GET', async () => {
    const { emulator, dir } = await openLargeAccount(mode);
    const renamed = await planManifest(emulator, dir, `formasPagamentos:\n${method('Forma renomeada', ', previousNames: ["Forma 0700"]')}${method('Forma 0150')}`);
    expect(actionable(renamed.plan)).toEqual(['update Forma renomeada']);
    expect(renamed.plan.changes[0]?.reason).toBe('rename');
    const pinnedId = emulator.snapshot().formasPagamentos.find((m) => m.descricao === 'Forma 0800')?.id ?? 0;
    const pinned = await planManifest(emulator, dir, `formasPagamentos:\n${method('Forma 0800', `, id: ${pinnedId}`)}${method('Forma 0910')}`);
    expect(actionable(pinned.plan)).toEqual([]);
    expect(pinned.log.details(methods).filter((path) => path === `${methods}/${pinnedId}`)).toHaveLength(1);
    expect(pinned.log.lists(methods).length + pinned.log.details(methods).length).toBe(4);
  });

  it('lists every page when every record is needed: a pruned kind, drift and export', async () => {
    const { emulator, dir } = await openLargeAccount(mode);
    const pruned = await planManifest(emulator, dir, `policy:\n  prune: [depositos]\n  maxDeletes: 1000\ndepositos:\n${warehouse('Depósito 0150')}`);
    expect(pruned.log.pages(warehouses, 'situacao=1')).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(pruned.log.pages(warehouses, 'situacao=0')).toEqual([1]);
    expect(pruned.log.lists(warehouses)).toHaveLength(11);
    expect(pruned.live.records.get('depositos')).toHaveLength(1000);
    const client = openClient(emulator);
    cleanups.push(() => client.close());
    emulator.clearLog();
    // Drift and export read with every kind complete (and export with every field).
    const live = await fetchLive(client, registry.units, { kinds: ['formasPagamentos'], desired: new Map(), complete: () => true });
    expect(live.records.get('formasPagamentos')).toHaveLength(1000);
    expect(readLog(emulator).pages(methods)).toEqual(everyPage);
  });

  it('reads a record that two partitions both return once, whole list or search', async () => {
    const { emulator } = await openLargeAccount(mode);
    const client = openClient(emulator);
    cleanups.push(() => client.close());
    // Without `situacao` the service lists the active warehouses, as `situacao=1` does: overlapping partitions.
    const overlapping = { resource: warehouses, kind: 'depositos' as const, nameFilter: 'descricao', nameField: 'descricao', partitions: [{}, { situacao: 1 }] };
    const everyOne = await readListOrSearch(client, overlapping, [], true);
    expect(everyOne).toHaveLength(950);
    expect(new Set(everyOne.map((item) => item.id)).size).toBe(950);
    const sought = await readListOrSearch(client, overlapping, [{ identity: 'Depósito 0151', previousIdentities: [], anyParentNames: [] }], false);
    expect(sought.filter((item) => item.raw.descricao === 'Depósito 0151')).toHaveLength(1);
  });

  it('re-checks a saved plan: records found by name or id compare equal, and a name taken since is seen', async () => {
    const { emulator, dir } = await openLargeAccount(mode);
    const pinnedId = emulator.snapshot().formasPagamentos.find((m) => m.descricao === 'Forma 0800')?.id ?? 0;
    // A tombstone relies on its record as listed (no detail): re-read by id, it must compare as the list item.
    const tombstone = '  - { descricao: "Forma 0300", ensure: absent }\n';
    const yaml = `formasPagamentos:\n${method('Forma 0150', ', juros: 2')}${method('Forma 0800', `, id: ${pinnedId}, juros: 3`)}${method('Forma nova')}${tombstone}`;
    const { plan, client } = await planManifest(emulator, dir, yaml);
    expect(actionable(plan).sort()).toEqual(['create Forma nova', 'delete Forma 0300', 'update Forma 0150', 'update Forma 0800']);
    const recheck = async (): Promise<string[]> => findStalePreconditions(plan, await fetchLive(client, registry.units, recheckRequest(plan, registry.units)));
    emulator.clearLog();
    expect(await recheck()).toEqual([]);
    // The absence the create relies on is checked against the whole list, not the filter's answer.
    expect(readLog(emulator).pages(methods)).toEqual(everyPage);
    // Someone adds the name the plan creates, in a form only the whole list shows under a narrow filter.
    const added = await call(emulator, 'POST', methods, { body: { descricao: 'Forma nova ', tipoPagamento: 15, finalidade: 3, destino: 1 } });
    expect(added.status).toBe(201);
    expect((await recheck()).join('\n')).toContain('"Forma nova" now exists');
  });

  it('predicts what apply sends for a payment method read by name', async () => {
    const { emulator, dir } = await openLargeAccount(mode);
    const { plan, live, client } = await planManifest(emulator, dir, `formasPagamentos:\n${method('Forma 0910', ', juros: 2')}`);
    emulator.clearLog();
    const result = await applyPlan(plan, { client, adapters: registry.units, live });
    expect(result.failed).toBe(0);
    // The read-back after the write, as the apply workflow sends it.
    const ids = new Map(result.outcomes.map(({ change, outcome }) => [change.id, outcome.status === 'applied' ? (outcome.id ?? change.liveId) : undefined]));
    await fetchLive(client, registry.units, verifyRequest(plan, registry.units, live, (change) => ids.get(change.id)));
    const sent = live.reads + emulator.requestLog().length;
    const predicted = plan.cost.reads + plan.cost.writes + (plan.cost.verifyReads ?? 0);
    expect(sent).toBe(predicted);
    expect(emulator.snapshot().formasPagamentos.find((m) => m.descricao === 'Forma 0910')?.juros).toBe(2);
  });
});

describe('operation natures named by a manifest', () => {
  it('are looked up by descricao over a long list, and a name the filter misses is found in the whole list', async () => {
    const { emulator } = await openLargeAccount('strict', (state) => {
      for (let i = 1; i <= 150; i += 1) state.naturezasOperacoes.push({ id: state.nextId++, situacao: 1, padrao: 0, descricao: `Natureza ${i}` });
      Object.assign(state.naturezasOperacoes.find((n) => n.descricao === 'Natureza 120') ?? {}, { descricao: 'Natureza 120 ' });
    });
    const client = openClient(emulator);
    cleanups.push(() => client.close());
    const read = async (named: string[]): Promise<string[]> => {
      emulator.clearLog();
      const records = await naturezasOperacoes.readLive(client, { desired: [], all: false, earlier: new Map(), named: new Set(named) });
      return records.filter((r) => named.includes(r.identity)).map((r) => r.identity);
    };
    expect(await read(['Natureza 140'])).toEqual(['Natureza 140']);
    expect(readLog(emulator).lists('/naturezas-operacoes')).toHaveLength(2);
    expect(await read(['Natureza 120'])).toEqual(['Natureza 120']);
    expect(readLog(emulator).pages('/naturezas-operacoes')).toEqual([1, 2]);
  });
});
