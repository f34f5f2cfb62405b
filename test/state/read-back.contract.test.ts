// The read-back memory's contract, the same cases against both backends: an account never seen is
// an empty memory; a save is read back as it was saved, by this store and by another one on the
// same state; saving one account leaves the others; what was stored wrongly typed is dropped entry
// by entry, never used as it is. And `backend import` moves the local memory without replacing
// what the database holds.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { onCleanup, scratchDir } from '../api/support.js';
import { localReadBack, readLocalReadBack } from '../../src/state/local/read-back.js';
import type { PostgresConnection } from '../../src/state/postgres/connect.js';
import { connectPostgres } from '../../src/state/postgres/connect.js';
import { importReadBack, postgresReadBack } from '../../src/state/postgres/read-back.js';
import type { AccountReadBack, ReadBackStore } from '../../src/state/state-store.js';
import { freshBackend } from '../support/postgres.js';

interface World {
  /** A store on this world's state (another one each call: another process, or another machine). */
  store(): Promise<ReadBackStore>;
  /** Stores `value` as the account's memory, past the store's own checks (a hand edit, another writer). */
  plant(accountId: string, value: unknown): Promise<void>;
}

const tempDir = (): string => scratchDir('erpsync-read-back-');

async function localWorld(): Promise<World> {
  const cwd = tempDir();
  const file = path.join(cwd, '.erpsync', 'read-back.json');
  return {
    store: async () => localReadBack({ cwd }),
    async plant(accountId, value) {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify({ formatVersion: 1, accounts: { [accountId]: value } }));
    },
  };
}

async function connect(backend: ReturnType<typeof freshBackend>): Promise<PostgresConnection> {
  const connection = await connectPostgres(backend.choice, { ...process.env, ...backend.env });
  onCleanup(() => connection.close());
  return connection;
}

async function postgresWorld(): Promise<World> {
  const backend = freshBackend();
  onCleanup(() => backend.drop());
  const first = await connect(backend);
  return {
    store: async () => postgresReadBack(await connect(backend)),
    async plant(accountId, value) {
      await first.pool.query(`insert into ${first.schema}.read_back (account_id, memory) values ($1, $2::jsonb) on conflict (account_id) do update set memory = excluded.memory`, [accountId, JSON.stringify(value)]);
    },
  };
}

const memory: AccountReadBack = {
  unkept: [
    { kind: 'formasPagamentos', key: 'Pix', path: 'taxas.aliquota', sent: 1.5, runs: 1 },
    { kind: 'situacoes', key: 'Pago', path: 'cor', sent: { hex: '#fff' }, runs: 2 },
  ],
  restated: ['formasPagamentos taxas.aliquota'],
};

describe.each([
  ['local', localWorld],
  ['postgres', postgresWorld],
] as const)('the read-back memory (%s backend)', (_name, makeWorld) => {
  it('is empty for an account never seen', async () => {
    const world = await makeWorld();
    expect(await (await world.store()).load('acc-1')).toEqual({ unkept: [], restated: [] });
  });

  it('reads back what was saved, from another store on the same state too, and leaves the other accounts as they were', async () => {
    const world = await makeWorld();
    const store = await world.store();
    await store.save('acc-1', memory);
    await store.save('acc-2', { unkept: [], restated: ['situacoes cor'] });
    await store.save('acc-1', { ...memory, restated: [...memory.restated, 'situacoes cor'] });
    const other = await world.store();
    expect(await other.load('acc-1')).toEqual({ ...memory, restated: ['formasPagamentos taxas.aliquota', 'situacoes cor'] });
    expect(await other.load('acc-2')).toEqual({ unkept: [], restated: ['situacoes cor'] });
  });

  it('drops what is stored wrongly typed, entry by entry, and takes a value that is no memory for an empty one', async () => {
    const world = await makeWorld();
    const store = await world.store();
    await world.plant('acc-1', {
      unkept: [memory.unkept[0], { kind: 'notAKind', key: 'x', path: 'y', sent: 1, runs: 1 }, { kind: 'situacoes', key: 'x', path: 'y', sent: 1, runs: -1 }, 'text', null],
      restated: ['ok', 3, null],
    });
    expect(await store.load('acc-1')).toEqual({ unkept: [memory.unkept[0]], restated: ['ok'] });
    await world.plant('acc-1', ['not', 'a', 'memory']);
    expect(await store.load('acc-1')).toEqual({ unkept: [], restated: [] });
  });
});

describe('the local read-back memory', () => {
  it('is empty when the file is missing, unreadable JSON or of another shape', async () => {
    const cwd = tempDir();
    const store = localReadBack({ cwd });
    expect(await store.load('acc-1')).toEqual({ unkept: [], restated: [] });
    mkdirSync(path.join(cwd, '.erpsync'));
    for (const text of ['{"accounts":', '[1,2]', '{"accounts":[]}']) {
      writeFileSync(path.join(cwd, '.erpsync', 'read-back.json'), text);
      expect(await store.load('acc-1')).toEqual({ unkept: [], restated: [] });
    }
    await store.save('acc-1', memory);
    expect(await store.load('acc-1')).toEqual(memory);
  });

  it('keeps every account when stores of one process save at once', async () => {
    const cwd = tempDir();
    await Promise.all(Array.from({ length: 10 }, (_, i) => localReadBack({ cwd }).save(`acc-${i}`, { unkept: [], restated: [`kind ${i}`] })));
    expect(Object.keys(await readLocalReadBack(cwd)).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `acc-${i}`).sort());
  });
});

describe('importing the local read-back memory into postgres', () => {
  it('adds the accounts the database lacks, keeps those it holds, and adds nothing the second time', async () => {
    const cwd = tempDir();
    await localReadBack({ cwd }).save('acc-1', memory);
    await localReadBack({ cwd }).save('acc-2', { unkept: [], restated: ['local'] });
    const backend = freshBackend();
    onCleanup(() => backend.drop());
    const connection = await connect(backend);
    const shared = postgresReadBack(connection);
    await shared.save('acc-2', { unkept: [], restated: ['shared'] });
    expect(await importReadBack(connection, await readLocalReadBack(cwd))).toBe(1);
    expect(await importReadBack(connection, await readLocalReadBack(cwd))).toBe(0);
    expect(await shared.load('acc-1')).toEqual(memory);
    expect(await shared.load('acc-2')).toEqual({ unkept: [], restated: ['shared'] });
  });
});
