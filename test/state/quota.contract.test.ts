// The request count's contract, the same cases against both backends: each run's requests add to
// their account and service day, and the count starts again at midnight in São Paulo; a daily 429
// met leaves nothing for the day; which account a target reaches outlives the day; and runs
// recorded at once from two stores — two processes, two runners — add up exactly.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { onCleanup } from '../api/support.js';
import type { DailyQuotaTarget } from '../../src/api/index.js';
import { localQuota } from '../../src/state/local/quota.js';
import { connectPostgres } from '../../src/state/postgres/connect.js';
import { postgresQuota } from '../../src/state/postgres/quota.js';
import type { QuotaStore } from '../../src/state/state-store.js';
import { freshBackend } from '../support/postgres.js';

interface World {
  quota: DailyQuotaTarget;
  /** A store on this world's state (another one each call: another process, or another runner). */
  store(): Promise<QuotaStore>;
}

function countFileIn(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-quota-'));
  onCleanup(async () => rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, '.erpsync', 'requests-per-day.json');
}

async function localWorld(perDay: number): Promise<World> {
  return { quota: { perDay, countFile: countFileIn() }, store: async () => localQuota() };
}

async function postgresWorld(perDay: number): Promise<World> {
  const backend = freshBackend();
  onCleanup(() => backend.drop());
  return {
    // The postgres backend keeps no file: the count file is the local backend's only.
    quota: { perDay, countFile: countFileIn() },
    async store() {
      const connection = await connectPostgres(backend.choice, { ...process.env, ...backend.env });
      onCleanup(() => connection.close());
      return postgresQuota(connection);
    },
  };
}

const beforeMidnight = new Date(Date.UTC(2026, 0, 6, 2, 59));
const afterMidnight = new Date(Date.UTC(2026, 0, 6, 3, 0));

describe.each([
  ['local', localWorld],
  ['postgres', postgresWorld],
] as const)('the request count (%s backend)', (_name, makeWorld) => {
  it('adds each run to its account and day, and starts again the next service day', async () => {
    const { quota, store: open } = await makeWorld(100);
    const store = await open();
    expect(await store.left(quota, 'acc-1', 0, beforeMidnight)).toEqual({ left: 100, limit: 100, counted: 0, spent: false, day: '2026-01-05' });
    await store.record(quota, 'acc-1', 30, false, beforeMidnight);
    await store.record(quota, 'acc-1', 25, false, beforeMidnight);
    await store.record(quota, 'acc-2', 7, false, beforeMidnight);
    await store.record(quota, 'acc-2', 0, false, beforeMidnight);
    expect(await store.left(quota, 'acc-1', 5, beforeMidnight)).toEqual({ left: 40, limit: 100, counted: 60, spent: false, day: '2026-01-05' });
    expect(await (await open()).left(quota, 'acc-2', 0, beforeMidnight)).toMatchObject({ counted: 7, left: 93 });
    expect(await store.left(quota, 'acc-1', 0, afterMidnight)).toEqual({ left: 100, limit: 100, counted: 0, spent: false, day: '2026-01-06' });
  });

  it('leaves nothing for the day once the service answered a daily 429, whatever the count', async () => {
    const { quota, store: open } = await makeWorld(120_000);
    const store = await open();
    await store.record(quota, 'acc-1', 3, true, beforeMidnight);
    await store.record(quota, 'acc-1', 2, false, beforeMidnight);
    expect(await store.left(quota, 'acc-1', 0, beforeMidnight)).toMatchObject({ left: 0, counted: 5, spent: true });
    expect(await store.left(quota, 'acc-1', 0, afterMidnight)).toMatchObject({ left: 120_000, spent: false });
  });

  it('remembers which account a target reaches, across days and stores', async () => {
    const { quota, store: open } = await makeWorld(10);
    const store = await open();
    expect(await store.knownAccount(quota, 'loja https://api', beforeMidnight)).toBeUndefined();
    await store.rememberAccount(quota, 'loja https://api', 'acc-9', beforeMidnight);
    await store.rememberAccount(quota, 'loja https://api', 'acc-9', beforeMidnight);
    const other = await open();
    expect(await other.knownAccount(quota, 'loja https://api', afterMidnight)).toBe('acc-9');
    expect(await other.knownAccount(quota, 'other https://api', afterMidnight)).toBeUndefined();
    await other.rememberAccount(quota, 'loja https://api', 'acc-10', afterMidnight);
    expect(await store.knownAccount(quota, 'loja https://api', afterMidnight)).toBe('acc-10');
  });

  it('adds up exactly the runs recorded at once from two stores', async () => {
    const { quota, store: open } = await makeWorld(100_000);
    const stores = [await open(), await open()];
    await Promise.all(Array.from({ length: 40 }, (_, i) => stores[i % 2]?.record(quota, `acc-${i % 3}`, i + 1, false, beforeMidnight)));
    const expected = [0, 1, 2].map((account) => Array.from({ length: 40 }, (_, i) => i).filter((i) => i % 3 === account).reduce((sum, i) => sum + i + 1, 0));
    for (const [account, counted] of expected.entries()) expect(await stores[0]?.left(quota, `acc-${account}`, 0, beforeMidnight)).toMatchObject({ counted });
  });
});
