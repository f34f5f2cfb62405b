// The drift results' contract, the same cases against both backends: snapshots are read back as
// recorded, oldest first, from the time asked on, by another store on the same state too; a time
// that is none is refused; what was stored with another shape is skipped. The local backend also
// skips what is not a regular file of its own: a link, a pipe, a file too large to be one.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { onCleanup, scratchDir } from '../api/support.js';
import { localDriftResults } from '../../src/state/local/drift-results.js';
import { connectPostgres } from '../../src/state/postgres/connect.js';
import { postgresDriftResults } from '../../src/state/postgres/drift-results.js';
import type { DriftResultStore, DriftSnapshot } from '../../src/state/state-store.js';
import { driftSnapshotLimits } from '../../src/model/drift.js';
import { freshBackend } from '../support/postgres.js';

interface World {
  store(): Promise<DriftResultStore>;
  /** Stores a snapshot past the store's own checks (a hand edit, another writer). */
  plant(at: string, rows: unknown): Promise<void>;
}

const tempDir = (): string => scratchDir('erpsync-drift-results-');

async function localWorld(): Promise<World> {
  const cwd = tempDir();
  return {
    store: async () => localDriftResults({ cwd }),
    async plant(at, rows) {
      mkdirSync(path.join(cwd, '.erpsync', 'drift-results'), { recursive: true });
      writeFileSync(path.join(cwd, '.erpsync', 'drift-results', `${at.replace(/[-:.]/g, '')}-abcdef.json`), JSON.stringify({ at, rows }));
    },
  };
}

async function postgresWorld(): Promise<World> {
  const backend = freshBackend();
  onCleanup(() => backend.drop());
  const connect = async () => {
    const connection = await connectPostgres(backend.choice, { ...process.env, ...backend.env });
    onCleanup(() => connection.close());
    return connection;
  };
  const first = await connect();
  return {
    store: async () => postgresDriftResults(await connect(), { runner: 'ci-job-7', gitRevision: 'abc123' }),
    async plant(at, rows) {
      await first.pool.query(`insert into ${first.schema}.drift_snapshots (at, rows) values ($1, $2::jsonb)`, [at, JSON.stringify(rows)]);
    },
  };
}

const monday: DriftSnapshot = { at: '2026-01-05T03:00:00.000Z', rows: [{ target: 'loja-a', changes: 0 }, { target: 'loja-b', changes: 3, error: undefined, seconds: 1.5 }] };
/** A fleet drift as `drift --all-targets` records it: each store's drifted records with their fields and who changed them. */
const nightly: DriftSnapshot = {
  at: '2026-01-07T03:00:00.000Z',
  rows: [
    {
      target: 'lojas/centro',
      changes: 2,
      owners: ['maria', '@agencia/suporte'],
      drifted: [
        { type: 'modified', kind: 'formasPagamentos', key: 'Pix da loja', fields: ['juros', 'taxas.aliquota'], attribution: { by: 'erp', run: '20260105T030000Z-ab12', at: '2026-01-05T03:00:00.000Z' } },
        { type: 'unmanaged', kind: 'gruposProdutos', key: 'Criado à mão', fields: [] },
      ],
    },
    { target: 'lojas/sul', changes: 30, drifted: [{ type: 'missing', kind: 'gruposProdutos', key: 'Revenda', fields: [], fieldsLeftOut: 0, attribution: { by: 'never-applied' } }], driftedLeftOut: 29 },
    { target: 'lojas/norte', changes: 0, error: 'the account could not be read' },
  ],
};
const tuesday: DriftSnapshot = { at: '2026-01-06T03:00:00.000Z', rows: [{ target: 'loja-a', changes: 2 }] };

describe.each([
  ['local', localWorld],
  ['postgres', postgresWorld],
] as const)('the drift results (%s backend)', (_name, makeWorld) => {
  it('reads back the snapshots taken since the time asked, oldest first, from another store too', async () => {
    const world = await makeWorld();
    const store = await world.store();
    expect(await store.list('2020-01-01T00:00:00Z')).toEqual([]);
    await store.record(tuesday);
    await store.record(monday);
    await store.record({ at: '2026-01-06T04:00:00Z', rows: [] });
    const other = await world.store();
    const mondayAsStored = { ...monday, rows: [{ target: 'loja-a', changes: 0 }, { target: 'loja-b', changes: 3, seconds: 1.5 }] };
    expect(await other.list('2026-01-01T00:00:00Z')).toEqual([mondayAsStored, tuesday, { at: '2026-01-06T04:00:00.000Z', rows: [] }]);
    expect((await other.list('2026-01-05T03:00:00.001Z')).map((s) => s.at)).toEqual([tuesday.at, '2026-01-06T04:00:00.000Z']);
    expect(await other.list('2026-01-07T00:00:00Z')).toEqual([]);
  });

  it('refuses a time that is none', async () => {
    const store = await (await makeWorld()).store();
    await expect(store.list('yesterday')).rejects.toMatchObject({ code: 'USAGE' });
    await expect(store.record({ at: 'now', rows: [] })).rejects.toMatchObject({ code: 'USAGE' });
  });

  it("keeps each store's drifted records, fields and attribution, and reads snapshots taken before them as they were", async () => {
    const world = await makeWorld();
    const store = await world.store();
    await store.record(monday);
    await store.record(nightly);
    expect(await (await world.store()).list('2026-01-01T00:00:00Z')).toEqual([{ ...monday, rows: [{ target: 'loja-a', changes: 0 }, { target: 'loja-b', changes: 3, seconds: 1.5 }] }, nightly]);
  });

  it("keeps a row's counts but not details that fail their check or exceed what a summary keeps", async () => {
    const world = await makeWorld();
    const store = await world.store();
    const [row] = nightly.rows;
    const record = row?.drifted?.[0];
    const tooMany = Array.from({ length: driftSnapshotLimits.records + 1 }, () => record);
    await world.plant('2026-01-05T04:00:00.000Z', [
      { ...row, target: 'unknown-kind', drifted: [{ ...record, kind: 'pedidos' }] },
      { ...row, target: 'too-many', drifted: tooMany },
      { ...row, target: 'long-key', drifted: [{ ...record, key: 'x'.repeat(driftSnapshotLimits.textLength + 1) }] },
      { ...row, target: 'bad-origin', drifted: [{ ...record, attribution: { by: 'someone' } }], owners: 'maria' },
      { ...row, target: 'extra-keys', drifted: [{ ...record, values: { before: 1, after: 2 } }] },
    ]);
    const [read] = await store.list('2026-01-01T00:00:00Z');
    expect(read?.rows.map((r) => [r.target, r.changes, r.drifted?.length ?? 'dropped', r.owners ?? 'dropped'])).toEqual([
      ['unknown-kind', 2, 'dropped', row?.owners],
      ['too-many', 2, 'dropped', row?.owners],
      ['long-key', 2, 'dropped', row?.owners],
      ['bad-origin', 2, 'dropped', 'dropped'],
      ['extra-keys', 2, 1, row?.owners],
    ]);
    expect(read?.rows[4]?.drifted?.[0]).toEqual(record);
  });

  it('skips a snapshot stored with another shape', async () => {
    const world = await makeWorld();
    const store = await world.store();
    await store.record(monday);
    await world.plant('2026-01-05T04:00:00.000Z', [{ target: 'loja-a', changes: 'many' }]);
    await world.plant('2026-01-05T05:00:00.000Z', { not: 'rows' });
    await world.plant('2026-01-05T06:00:00.000Z', [{ changes: 1 }]);
    expect((await store.list('2026-01-01T00:00:00Z')).map((s) => s.at)).toEqual([monday.at]);
  });
});

describe('the local drift results', () => {
  it('reads only regular files of its own: no link, no pipe, nothing too large, no other name', async () => {
    const cwd = tempDir();
    const store = localDriftResults({ cwd });
    await store.record(monday);
    const dir = path.join(cwd, '.erpsync', 'drift-results');
    const [written] = readdirSync(dir);
    expect(written).toMatch(/^20260105T030000000Z-[0-9a-f]{6}\.json$/);
    const outside = path.join(tempDir(), 'elsewhere.json');
    writeFileSync(outside, JSON.stringify(tuesday));
    symlinkSync(outside, path.join(dir, '20260106T030000000Z-aaaaaa.json'));
    execFileSync('mkfifo', [path.join(dir, '20260106T030000000Z-bbbbbb.json')]);
    const large = path.join(dir, '20260106T030000000Z-cccccc.json');
    writeFileSync(large, JSON.stringify(tuesday));
    truncateSync(large, 33 * 1024 * 1024);
    writeFileSync(path.join(dir, 'tuesday.json'), JSON.stringify(tuesday));
    mkdirSync(path.join(dir, '20260106T030000000Z-dddddd.json'));
    expect(await store.list('2026-01-01T00:00:00Z')).toEqual([{ ...monday, rows: [{ target: 'loja-a', changes: 0 }, { target: 'loja-b', changes: 3, seconds: 1.5 }] }]);
  });
});
