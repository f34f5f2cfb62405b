import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { desiredUnit, openAccount, openEditedAccount, planned, readByIdentity, readScope, requireRecord, writeContext } from '../../test/kinds/adapter-support.js';
import type { ApiClient } from '../api/index.js';
import { applyPlan } from '../apply/apply-plan.js';
import { fetchLive } from '../live/fetch-live.js';
import { loadManifests } from '../manifest/load-manifests.js';
import { buildPlan } from '../plan/build-plan.js';
import { deriveDesiredUnits, readsEveryRecord, selectUnitKinds } from '../kinds/desired-units.js';
import { logisticas } from './logisticas.js';
import { registry } from './registry.js';
import type { LiveRecord } from '../model/live.js';
import type { ReadScope } from './kind.js';

const services = logisticas.nested[0]!;

/** The services read with the logistics already read, as fetchLive hands them over. */
async function readServices(client: ApiClient, scope: Omit<ReadScope, 'earlier'>): Promise<{ logistics: LiveRecord[]; services: Map<string, LiveRecord> }> {
  const logistics = await logisticas.readLive(client, readScope());
  const read = await services.readLive(client, { ...scope, earlier: new Map([['logisticas', logistics]]) });
  return { logistics, services: new Map(read.map((r) => [r.identity, r])) };
}

const motoboy = desiredUnit('logisticas', 'Motoboy', { descricao: 'Motoboy', situacao: 'H' });
const expresso = desiredUnit(
  'logisticasServicos',
  'Motoboy > EXP',
  { codigo: 'EXP', descricao: 'Expresso', freteItem: 12.5, estimativaEntrega: 1 },
  { parent: 'Motoboy' },
);

/** Creates Motoboy with one service through execute(), as an apply would in two waves. */
async function createMotoboy(client: ApiClient, service: Record<string, unknown> = expresso.fields): Promise<{ logisticsId: number; serviceId: number }> {
  const created = await logisticas.execute(planned('logisticas', 'create', 'Motoboy', { desired: motoboy.fields }), writeContext(client, []));
  const logisticsId = created.id as number;
  const context = writeContext(client, [], undefined, { 'logisticas:Motoboy': logisticsId });
  const { id } = await services.execute(planned('logisticasServicos', 'create', 'Motoboy > EXP', { desired: service }), context);
  return { logisticsId, serviceId: id as number };
}

describe('logisticas', () => {
  it('reads the list once, with native integrations marked and no detail GET', async () => {
    const { emulator, client } = await openAccount();
    const records = await readByIdentity(logisticas, client, readScope([desiredUnit('logisticas', 'Correios', { descricao: 'Correios', situacao: 'H' })]));
    expect([...records.keys()]).toEqual(['Melhor Envio reversa', 'Correios']);
    const correios = requireRecord(records, 'Correios');
    expect(correios).toMatchObject({ name: 'Correios', system: 'native', fields: { descricao: 'Correios', situacao: 'H' } });
    expect(emulator.counters()).toEqual({ 'GET /logisticas': 1 });
  });

  it('asks for the reverse logistics when the manifest names one the list lacks, and marks them as the account\'s', async () => {
    const { emulator, client } = await openAccount();
    const records = await readByIdentity(logisticas, client, readScope([motoboy]));
    expect(requireRecord(records, 'Melhor Envio reversa')).toMatchObject({ accountDefault: 'pristine' });
    expect(emulator.requestLog().map((e) => e.query)).toEqual(['pagina=1&limite=100', 'logisticasReversas=true&pagina=1&limite=100']);
  });

  it('never compares the services list itself: they are units of their own', () => {
    expect(logisticas.canonicalize?.({ descricao: 'Motoboy', situacao: 'H', servicos: [{ codigo: 'EXP' }] })).toEqual({ descricao: 'Motoboy', situacao: 'H' });
  });

  it('creates without services, updates descricao and situacao, retires to D and deletes', async () => {
    const { emulator, client } = await openAccount();
    const withServices = { ...motoboy.fields, servicos: [{ codigo: 'EXP', descricao: 'Expresso', freteItem: 1, estimativaEntrega: 1 }] };
    const { id } = await logisticas.execute(planned('logisticas', 'create', 'Motoboy', { desired: withServices }), writeContext(client, []));
    const stored = () => emulator.snapshot().logisticas.find((l) => l.id === id);
    expect(stored()).toMatchObject({ descricao: 'Motoboy', situacao: 'H', tipoIntegracao: 'CustomLogistic', integracaoNativa: false });
    expect(emulator.snapshot().servicosLogisticas.filter((s) => s.idLogistica === id)).toEqual([]);

    let live = requireRecord(await readByIdentity(logisticas, client), 'Motoboy');
    const renamed = { descricao: 'Motoboy expresso', situacao: 'H' };
    await logisticas.execute(planned('logisticas', 'update', 'Motoboy expresso', { liveId: id, desired: renamed }), writeContext(client, [live], live));
    expect(stored()).toMatchObject({ descricao: 'Motoboy expresso', situacao: 'H' });

    live = requireRecord(await readByIdentity(logisticas, client), 'Motoboy expresso');
    expect(logisticas.isRetired?.(live)).toBe(false);
    expect(logisticas.retirementFields?.(live)).toEqual([{ path: 'situacao', before: 'H', after: 'D' }]);
    await logisticas.execute(planned('logisticas', 'retire', 'Motoboy expresso', { liveId: id }), writeContext(client, [live], live));
    expect(stored()).toMatchObject({ descricao: 'Motoboy expresso', situacao: 'D' });
    live = requireRecord(await readByIdentity(logisticas, client), 'Motoboy expresso');
    expect(logisticas.isRetired?.(live)).toBe(true);

    await logisticas.execute(planned('logisticas', 'delete', 'Motoboy expresso', { liveId: id }), writeContext(client, [live], live));
    expect(stored()).toBeUndefined();
  });
});

describe('logisticasServicos', () => {
  it('derives service units from the logistics record, tool keys apart', () => {
    const parent = desiredUnit('logisticas', 'Motoboy', {
      descricao: 'Motoboy',
      situacao: 'H',
      servicos: [
        { codigo: 'EXP', descricao: 'Expresso', freteItem: 12.5, estimativaEntrega: 1, id: 77 },
        { codigo: ' SAB ', ensure: 'absent' },
      ],
    });
    const located: unknown[] = [];
    parent.locate = (path) => {
      located.push(path);
      return { file: 'logistica.yaml', line: 3, col: 5 };
    };
    const units = services.deriveDesired?.(parent) ?? [];
    expect(units.map((u) => [u.kind, u.identity, u.name, u.parent, u.tool])).toEqual([
      ['logisticasServicos', 'Motoboy > EXP', 'EXP', 'Motoboy', { id: 77, ensure: 'present', protect: false, previousNames: [] }],
      ['logisticasServicos', 'Motoboy > SAB', 'SAB', 'Motoboy', { ensure: 'absent', protect: false, previousNames: [] }],
    ]);
    expect(units[0]?.fields).toEqual({ codigo: 'EXP', descricao: 'Expresso', freteItem: 12.5, estimativaEntrega: 1 });
    units[1]?.locate(['codigo']);
    expect(located).toEqual([['servicos', 1, 'codigo']]);
    expect(services.nestedIn).toBe('logisticas');
    expect(services.definition).toBeUndefined();
  });

  it('reads every service, inactive ones too, from the services list in one request', async () => {
    const { emulator, client } = await openAccount();
    emulator.clearLog();
    const logistics = await logisticas.readLive(client, readScope());
    emulator.clearLog();
    const read = await services.readLive(client, { desired: [expresso], all: false, earlier: new Map([['logisticas', logistics]]) });
    expect(emulator.counters()).toEqual({ 'GET /logisticas/servicos': 1 });
    expect(read.map((r) => [r.identity, r.name, r.parent, r.system ?? r.accountDefault, r.fields.ativo])).toEqual([
      ['Melhor Envio reversa > REVERSA', 'REVERSA', 'Melhor Envio reversa', undefined, true],
      ['Correios > 03220', '03220', 'Correios', 'pristine', true],
      ['Correios > 03298', '03298', 'Correios', 'pristine', true],
      ['Correios > 04227', '04227', 'Correios', 'pristine', false],
    ]);
    expect(read[1]?.fields).toEqual({
      codigo: '03220',
      descricao: 'SEDEX',
      freteItem: 0,
      estimativaEntrega: 2,
      aliases: ['SEDEX'],
      ativo: true,
      idCodigoServico: '03220',
      transportador: expect.any(Number) as number,
    });
  });

  it('reads loosely typed service values with the types the manifest gives them', async () => {
    const { client } = await openEditedAccount((state) => {
      const sedex = state.servicosLogisticas[0] as unknown as Record<string, unknown>;
      Object.assign(sedex, { freteItem: '12.5', estimativaEntrega: '2', ativo: 'false', idCodigoServico: 3220, idTransportador: 0 });
    });
    const { services: read } = await readServices(client, { desired: [], all: true });
    expect(requireRecord(read, 'Correios > 03220').fields).toEqual({
      codigo: '03220',
      descricao: 'SEDEX',
      freteItem: 12.5,
      estimativaEntrega: 2,
      aliases: ['SEDEX'],
      ativo: false,
      idCodigoServico: '3220',
    });
  });

  it('creates a service in its logistics, resolved by identity; aliases default to none', async () => {
    const { emulator, client } = await openAccount();
    const { logisticsId, serviceId } = await createMotoboy(client);
    expect(emulator.snapshot().servicosLogisticas.find((s) => s.id === serviceId)).toMatchObject({
      idLogistica: logisticsId,
      codigo: 'EXP',
      descricao: 'Expresso',
      freteItem: 12.5,
      estimativaEntrega: 1,
      aliases: [],
      ativo: true,
    });
    const { services: read } = await readServices(client, { desired: [expresso], all: false });
    expect(requireRecord(read, 'Motoboy > EXP')).toMatchObject({ id: serviceId, parent: 'Motoboy', fields: { codigo: 'EXP', ativo: true } });
  });

  it('refuses to create a service whose logistics has no id', async () => {
    const { client } = await openAccount();
    await expect(services.execute(planned('logisticasServicos', 'create', 'Nada > EXP', { desired: expresso.fields }), writeContext(client, []))).rejects.toMatchObject({
      code: 'UNRESOLVED_REFERENCE',
    });
  });

  it('updates with the whole service: fields the manifest leaves out keep their live values', async () => {
    const { emulator, client } = await openAccount();
    const full = { ...expresso.fields, aliases: ['Expressa', 'MOTO'], idCodigoServico: '991', transportador: { id: 4242 }, ativo: true };
    const { serviceId } = await createMotoboy(client, full);
    const { services: read } = await readServices(client, { desired: [expresso], all: false });
    const live = requireRecord(read, 'Motoboy > EXP');

    emulator.clearLog();
    const desired = { codigo: 'EXP', freteItem: 15 };
    await services.execute(planned('logisticasServicos', 'update', 'Motoboy > EXP', { liveId: serviceId, desired }), writeContext(client, [...read.values()], live));
    expect(emulator.counters()).toEqual({ [`PUT /logisticas/servicos/${serviceId}`]: 1 });
    expect(emulator.snapshot().servicosLogisticas.find((s) => s.id === serviceId)).toMatchObject({
      descricao: 'Expresso',
      freteItem: 15,
      estimativaEntrega: 1,
      aliases: ['Expressa', 'MOTO'],
      idCodigoServico: '991',
      idTransportador: 4242,
      ativo: true,
    });
  });

  it('retires with the activation PATCH under the logistics root, and knows a retired service', async () => {
    const { emulator, client } = await openAccount();
    const { serviceId } = await createMotoboy(client);
    let live = requireRecord((await readServices(client, { desired: [expresso], all: false })).services, 'Motoboy > EXP');
    expect(services.isRetired?.(live)).toBe(false);
    expect(services.retirementFields?.(live)).toEqual([{ path: 'ativo', before: true, after: false }]);

    emulator.clearLog();
    await services.execute(planned('logisticasServicos', 'retire', 'Motoboy > EXP', { liveId: serviceId }), writeContext(client, [], live));
    expect(emulator.counters()).toEqual({ [`PATCH /logisticas/${serviceId}/situacoes`]: 1 });
    expect(emulator.snapshot().servicosLogisticas.find((s) => s.id === serviceId)?.ativo).toBe(false);

    live = requireRecord((await readServices(client, { desired: [expresso], all: false })).services, 'Motoboy > EXP');
    expect(services.isRetired?.(live)).toBe(true);
    expect(services.canDelete).toBe(false);
  });

  it('compares aliases as a set', () => {
    expect(services.canonicalize?.({ codigo: 'EXP', aliases: ['b', 'a'] })).toEqual({ codigo: 'EXP', aliases: ['a', 'b'] });
  });
});

describe('logistics through plan and apply', () => {
  async function manifestDir(files: Record<string, string>): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'erpsync-logisticas-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    return dir;
  }

  async function plan(client: ApiClient, dir: string) {
    const loaded = await loadManifests([dir], { cwd: dir, env: {} });
    const desired = loaded.desired;
    if (!desired) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
    const live = await fetchLive(client, registry.units, {
      kinds: selectUnitKinds(desired, registry.units),
      desired: deriveDesiredUnits(desired, registry.units),
      complete: (kind) => registry.units.some((a) => a.kind === kind && readsEveryRecord(a, desired)),
    });
    const result = buildPlan(desired, live, registry.units, { target: { mode: 'sandbox', id: 'test', name: 'test', account: { id: 'test-account', nome: 'Loja Teste Ltda', cnpj: '12.345.678/0001-90' } }, allowReplace: false, allowCascade: false, rate: 3 });
    expect(result.diagnostics).toEqual([]);
    return { plan: result.plan, live };
  }

  const initial = `version: 1
logisticas:
  - descricao: Motoboy
    situacao: habilitada
    servicos:
      - codigo: EXP
        descricao: Expresso
        freteItem: 12.5
        estimativaEntrega: 1
        aliases: [Rápida, Expressa]
      - codigo: AGD
        descricao: Agendado
        freteItem: 8
        estimativaEntrega: 3
        ativo: false
`;

  const changed = `version: 1
logisticas:
  - descricao: Entrega própria
    previousNames: [Motoboy]
    situacao: desabilitada
    servicos:
      - codigo: EXP
        ensure: absent
      - codigo: AGD
        descricao: Agendado
        freteItem: 9
        estimativaEntrega: 3
`;

  it('creates logistics before their services, then converges with no further writes', async () => {
    const { emulator, client } = await openAccount();
    const dir = await manifestDir({ 'logistica.yaml': initial });
    const first = await plan(client, dir);
    expect(first.plan.changes.map((c) => [c.wave, c.action, c.kind, c.key])).toEqual([
      [1, 'create', 'logisticas', 'Motoboy'],
      [2, 'create', 'logisticasServicos', 'Motoboy > AGD'],
      [2, 'create', 'logisticasServicos', 'Motoboy > EXP'],
    ]);
    const result = await applyPlan(first.plan, { client, adapters: registry.units, live: first.live });
    expect([result.applied, result.failed]).toEqual([3, 0]);

    emulator.clearLog();
    const second = await plan(client, dir);
    expect(second.plan.changes).toEqual([]);
    expect(emulator.counters()).toEqual({ 'GET /logisticas': 1, 'GET /logisticas/servicos': 1 });
  });

  it('renames a logistics with its services in tow, retires a tombstoned service and converges', async () => {
    const { client } = await openAccount();
    const dir = await manifestDir({ 'logistica.yaml': initial });
    const first = await plan(client, dir);
    await applyPlan(first.plan, { client, adapters: registry.units, live: first.live });

    await writeFile(join(dir, 'logistica.yaml'), changed);
    const second = await plan(client, dir);
    expect(second.plan.changes.map((c) => [c.action, c.kind, c.key, c.fields.map((f) => `${f.path}: ${String(f.before)} → ${String(f.after)}`)])).toEqual([
      ['update', 'logisticas', 'Entrega própria', ['descricao: Motoboy → Entrega própria', 'situacao: H → D']],
      ['update', 'logisticasServicos', 'Entrega própria > AGD', ['freteItem: 8 → 9']],
      ['retire', 'logisticasServicos', 'Entrega própria > EXP', ['ativo: true → false']],
    ]);
    const result = await applyPlan(second.plan, { client, adapters: registry.units, live: second.live });
    expect([result.applied, result.failed]).toEqual([3, 0]);

    const third = await plan(client, dir);
    expect(third.plan.changes).toEqual([]);
  });
});
