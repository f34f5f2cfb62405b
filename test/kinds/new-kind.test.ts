// Adding a kind is one defineKind plus one registry entry: this test defines a minimal kind of its
// own (brands, kept as root product groups of the emulator), adds it to a registry, and runs the
// whole pipeline with it against the emulator over HTTP — load (schema included), read, plan,
// apply, re-plan, drift and export — with nothing else taught about it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient, createStaticTokenProvider } from '../../src/api/index.js';
import type { ApiClient } from '../../src/api/index.js';
import { runApplyWorkflow } from '../../src/workflows/apply-workflow.js';
import { deriveDesiredUnits, readsEveryRecord, selectUnitKinds } from '../../src/kinds/desired-units.js';
import { defineKind } from '../../src/kinds/kind.js';
import type { KindKey } from '../../src/kinds/kind.js';
import { compact, deleteOperation, executeByAction, identifyListItems, postRecord, readName, requireLiveId } from '../../src/kinds/live-helpers.js';
import { createRegistry, registry } from '../../src/kinds/registry.js';
import type { Registry } from '../../src/kinds/registry.js';
import { defineListRecord, defineName, toolKeyFields } from '../../src/kinds/shared-schema.js';
import { fetchLive } from '../../src/live/fetch-live.js';
import { loadManifests } from '../../src/manifest/load-manifests.js';
import { buildPlan } from '../../src/plan/build-plan.js';
import { findDrift } from '../../src/drift/find-drift.js';
import { buildExport } from '../../src/export/build-export.js';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import type { DesiredState } from '../../src/model/desired.js';
import type { LiveState } from '../../src/model/live.js';

const key = 'marcasTeste' as KindKey;
const resource = '/grupos-produtos';
const fields = { nome: defineName('Name of the brand.'), ...toolKeyFields };

/** The whole kind: one object. */
const marcas = defineKind({
  key,
  title: 'brands',
  resource,
  shape: 'list',
  recordSchema: defineListRecord(fields, { title: 'Brand', description: 'A brand.', identity: ['nome'], requiredUnlessAbsent: [] }),
  enums: [],
  secretFields: [],
  nameField: 'nome',
  references: [],
  async readLive(client) {
    const rows = identifyListItems(await client.listAll<unknown>(resource, undefined, { kind: key }), resource);
    return rows.map(({ id, raw }) => ({ kind: key, id, identity: readName(raw.nome), name: readName(raw.nome), fields: { nome: readName(raw.nome) }, raw, detailLoaded: true }));
  },
  canDelete: true,
  execute: executeByAction('brands', {
    create: (change, { client }) => postRecord(client, resource, key, compact({ nome: change.desired?.nome })),
    async update(change, { client }) {
      await client.request({ method: 'PUT', path: `${resource}/${requireLiveId(change)}`, body: { nome: change.desired?.nome }, kind: key });
    },
    delete: deleteOperation(resource, key),
  }),
});

/** The one registry entry. */
const withBrands: Registry = createRegistry([...registry.kinds, marcas]);

let emulator: Emulator;
let client: ApiClient;
let dir: string;

beforeEach(async () => {
  emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
  client = createApiClient({ baseUrl: emulator.baseUrl, credentials: createStaticTokenProvider(emulator.token), rate: Infinity });
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-new-kind-'));
});

afterEach(async () => {
  await client.close();
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

async function load(yaml: string): Promise<DesiredState> {
  writeFileSync(path.join(dir, 'marcas.yaml'), yaml);
  const result = await loadManifests([dir], { cwd: dir, env: {}, registry: withBrands });
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return result.desired as DesiredState;
}

function read(desired: DesiredState): Promise<LiveState> {
  return fetchLive(client, withBrands.units, {
    kinds: selectUnitKinds(desired, withBrands.units),
    desired: deriveDesiredUnits(desired, withBrands.units),
    complete: (kind) => readsEveryRecord(withBrands.unit(kind) ?? marcas, desired),
  });
}

const target = { mode: 'remote' as const, id: 'test', name: 'test', account: { id: 'test-account', nome: 'Loja Teste Ltda', cnpj: '12.345.678/0001-90' } };
const plan = (desired: DesiredState, live: LiveState) => buildPlan(desired, live, withBrands.units, { target, allowReplace: false, allowCascade: false, rate: 3 });
const brandsInAccount = () => emulator.snapshot().gruposProdutos.map((g) => g.nome).sort();

describe('a kind added by one defineKind and one registry entry', () => {
  it('validates, plans, applies, converges, drifts and exports like the built-in kinds', async () => {
    expect(brandsInAccount()).toEqual([]);
    await client.request({ method: 'POST', path: resource, body: { nome: 'Marca antiga' }, kind: key });
    const desired = await load('version: 1\npolicy:\n  prune: [marcasTeste]\nmarcasTeste:\n  - nome: Marca A\n  - nome: Marca B\n');
    const live = await read(desired);
    const first = plan(desired, live);
    expect(first.diagnostics).toEqual([]);
    expect(first.plan.changes.map((c) => `${c.action} ${c.key}`).sort()).toEqual(['create Marca A', 'create Marca B', 'delete Marca antiga']);
    expect(first.plan.budget).toMatchObject({ removals: 1, exceeded: false });

    const outcome = await runApplyWorkflow(first.plan, {
      target,
      client,
      adapters: withBrands.units,
      readAccount: (request) => fetchLive(client, withBrands.units, request),
      live,
      confirm: async () => true,
      report: () => undefined,
      signal: new AbortController().signal,
      concurrency: 2,
    });
    expect(outcome).toMatchObject({ status: 'applied', result: { applied: 3, failed: 0 }, notConverged: [] });
    expect(brandsInAccount()).toEqual(['Marca A', 'Marca B']);
    expect(plan(desired, await read(desired)).plan.changes).toEqual([]);

    await client.request({ method: 'POST', path: resource, body: { nome: 'Marca C' }, kind: key });
    const drifted = findDrift({ desired: { ...desired, policy: { ...desired.policy, prune: [] } }, live: await read(desired), adapters: withBrands.units, target, includeBuiltin: false });
    expect(drifted.report.findings.map((f) => `${f.type} ${f.kind} ${f.key}`)).toEqual([`unmanaged ${key} Marca C`]);
    expect(drifted.report.findings[0]?.snippet).toContain('nome: Marca C');

    const everything = await fetchLive(client, withBrands.units, { kinds: [key], desired: new Map(), complete: () => true, everyField: true });
    const exported = buildExport(everything, withBrands.units, { kinds: [key], schemaRef: 'manifest.schema.json', source: 'test' });
    expect(exported.map((e) => e.kind)).toEqual([key]);
    expect(exported[0]?.text).toMatch(/- nome: Marca A\n[\s\S]*- nome: Marca C/);
  });
});
