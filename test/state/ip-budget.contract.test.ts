// The IP budget's contract, on both backends: governors sharing one egress (separate processes on
// one machine for `local`, through one folder; separate runners for `postgres`, each with a pool
// of its own on one schema) never pass the budget together in any window, nor the token budget,
// and count each other's error answers. On postgres also: two egress names do not share; a clock
// running ahead cannot hide a runner's marks; a holder the server has not seen for two minutes
// is forgotten; a claim is one transaction for a batch of requests (the round trips are counted);
// a database that hangs does not stop the requests (the governor's own windows still hold).
// Budgets and windows are scaled down so a run takes seconds; every governor lives in this
// process, so their clocks compare as they are.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { createGovernor, ipBudgetOf } from '../../src/api/index.js';
import type { Governor, IpBudget } from '../../src/api/index.js';
import { localIpBudget } from '../../src/state/local/ip-budget.js';
import type { PostgresConnection } from '../../src/state/postgres/connect.js';
import { connectPostgres } from '../../src/state/postgres/connect.js';
import { postgresIpBudget } from '../../src/state/postgres/ip-budget.js';
import type { IpBudgetStore } from '../../src/state/state-store.js';
import { freshBackend } from '../support/postgres.js';
import type { TestBackend } from '../support/postgres.js';
import { crossProcessSlackMs, mostInWindow, watchMarks } from '../support/windows.js';

/** One backend's place for a test: every `runner()` is a store as another process (or machine) would open it. */
interface Place {
  runner(): Promise<IpBudgetStore>;
  close(): Promise<void>;
}

function localPlace(): Place {
  const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-ip-budget-'));
  const env = { ERPSYNC_LOCK_DIR: path.join(dir, 'locks') };
  return { runner: async () => localIpBudget({ env }), close: async () => rmSync(dir, { recursive: true, force: true }) };
}

/** Connections to one fresh schema, each a runner of its own; `counted` counts every statement sent. */
function postgresPlace(): Place & { backend: TestBackend; connect(): Promise<PostgresConnection>; statements: string[] } {
  const backend = freshBackend();
  const connections: PostgresConnection[] = [];
  const statements: string[] = [];
  const connect = async (): Promise<PostgresConnection> => {
    const connection = await connectPostgres(backend.choice, { ...process.env, ...backend.env });
    connections.push(connection);
    countStatements(connection.pool, statements);
    return connection;
  };
  return {
    backend,
    statements,
    connect,
    runner: async () => postgresIpBudget(await connect(), { runner: `runner-${connections.length + 1}` }),
    async close() {
      await Promise.all(connections.map((connection) => connection.close()));
      await backend.drop();
    },
  };
}

/** Every statement a pool's clients send from now on (pool.query goes through a client too): one round trip each. */
function countStatements(pool: pg.Pool, statements: string[]): void {
  const counted = new WeakSet<pg.PoolClient>();
  pool.on('acquire', (client) => {
    if (counted.has(client)) return;
    counted.add(client);
    const send = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      statements.push(typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: unknown }).text));
      return send(...args);
    };
  });
}

/** `count` governors, each shared through a runner of its own under one egress name. */
async function governorsSharing(place: Place, count: number, budget: IpBudget, egress = 'escritorio'): Promise<Governor[]> {
  const governors: Governor[] = [];
  for (let i = 0; i < count; i += 1) {
    const governor = createGovernor(budget);
    await (await place.runner()).share(governor, egress);
    governors.push(governor);
  }
  return governors;
}

/** Whether one more request may start at once: a request that must wait is aborted while it waits. */
async function startsAtOnce(governor: Governor): Promise<boolean> {
  const controller = new AbortController();
  const started = governor.acquireRequest(controller.signal).then(() => true, () => false);
  // Long enough for a claim's reads and write, not for the window to pass.
  await new Promise((resolve) => setTimeout(resolve, 200));
  controller.abort();
  return started;
}

/** Every governor starts `each` requests, all at once; resolves to the marks of every start. */
async function sendRequests(governors: Governor[], each: number): Promise<number[]> {
  const watched = governors.map(watchMarks);
  await Promise.all(governors.flatMap((governor, i) => Array.from({ length: each }, () => governor.acquireRequest().then(() => watched[i]?.seen()))));
  return watched.flatMap((w) => w.marks());
}

describe.each([
  ['local', localPlace],
  ['postgres', postgresPlace],
])('the IP budget (%s backend)', (_name, open) => {
  it.each([2, 4])('%i governors sharing one egress never pass the budget together in any window', async (count) => {
    const place = open();
    try {
      const budget: IpBudget = { requests: 20, errors: 100, windowMs: 400, tokenCalls: 5, tokenWindowMs: 1_000 };
      const marks = await sendRequests(await governorsSharing(place, count, budget), 100 / count);
      expect(marks).toHaveLength(100);
      expect(mostInWindow(marks, budget.windowMs, crossProcessSlackMs)).toBeLessThanOrEqual(budget.requests);
    } finally {
      await place.close();
    }
  });

  it.each([2, 4])('%i governors refreshing tokens at once stay at or under the token budget in any window', async (count) => {
    const place = open();
    try {
      const budget: IpBudget = { requests: 1_000, errors: 100, windowMs: 1_000, tokenCalls: 2, tokenWindowMs: 400 };
      const governors = await governorsSharing(place, count, budget);
      await Promise.all(governors.flatMap((governor) => Array.from({ length: 8 / count }, () => governor.acquireTokenCall().then((answered) => answered()))));
      const starts = governors.flatMap((governor) => governor.stats().tokenCallTimes);
      expect(starts).toHaveLength(8);
      expect(mostInWindow(starts, budget.tokenWindowMs, crossProcessSlackMs)).toBeLessThanOrEqual(budget.tokenCalls);
    } finally {
      await place.close();
    }
  });

  it('makes a governor count the error answers another one had', async () => {
    const place = open();
    try {
      const budget: IpBudget = { requests: 100, errors: 3, windowMs: 2_000, tokenCalls: 5, tokenWindowMs: 2_000 };
      const [erring, other] = [createGovernor(budget), createGovernor(budget)];
      const store = await place.runner();
      await store.share(erring, 'escritorio');
      await (await place.runner()).share(other, 'escritorio');
      for (let i = 0; i < budget.errors; i += 1) erring.recordError();
      // A store closed: what the erring governor's windows hold is written for the others.
      await store.handOn(erring);
      expect(await startsAtOnce(other)).toBe(false);
    } finally {
      await place.close();
    }
  });
});

describe('the IP budget on postgres', () => {
  it('does not share between two egress names: each gets its full budget', async () => {
    const place = postgresPlace();
    try {
      const budget: IpBudget = { requests: 20, errors: 100, windowMs: 5_000, tokenCalls: 5, tokenWindowMs: 5_000 };
      const [a] = await governorsSharing(place, 1, budget, 'escritorio');
      const [b] = await governorsSharing(place, 1, budget, 'deposito');
      const marks = await sendRequests([a, b].filter((g): g is Governor => g !== undefined), budget.requests);
      // Both budgets spent in the first window: sharing one egress, the second twenty would wait five seconds.
      expect(mostInWindow(marks, budget.windowMs)).toBe(2 * budget.requests);
    } finally {
      await place.close();
    }
  });

  it('counts the errors of a runner whose clock runs an hour ahead, as if a lease ahead', async () => {
    const place = postgresPlace();
    try {
      const budget: IpBudget = { requests: 10, errors: 3, windowMs: 2_000, tokenCalls: 5, tokenWindowMs: 2_000 };
      const connection = await place.connect();
      const ahead = Date.now() + 3_600_000;
      await connection.pool.query(`insert into ${connection.schema}.ip_holders (egress, holder, host, pid, saved_at, errors) values ('escritorio', 'fast clock', 'elsewhere', 1, $1, $2::bigint[])`, [ahead, Array.from({ length: budget.errors }, () => ahead)]);
      const [governor] = await governorsSharing(place, 1, budget);
      // Its error window is full: taken as they are, marks an hour ahead would fall outside every window here.
      expect(governor && (await startsAtOnce(governor))).toBe(false);
    } finally {
      await place.close();
    }
  });

  it('ignores and removes a holder not saved for two minutes (by the server\'s clock)', async () => {
    const place = postgresPlace();
    try {
      const budget: IpBudget = { requests: 10, errors: 100, windowMs: 2_000, tokenCalls: 5, tokenWindowMs: 2_000 };
      const connection = await place.connect();
      const now = Date.now();
      // Its own clock says it wrote just now; the server saw it three minutes ago.
      await connection.pool.query(`insert into ${connection.schema}.ip_holders (egress, holder, host, pid, saved_at, requests, seen_at) values ('escritorio', 'stale', 'elsewhere', 1, $1, $2::bigint[], now() - interval '3 minutes')`, [now, Array.from({ length: budget.requests }, () => now)]);
      const [governor] = await governorsSharing(place, 1, budget);
      expect(governor && (await startsAtOnce(governor))).toBe(true);
      const left = await connection.pool.query(`select holder from ${connection.schema}.ip_holders where holder = 'stale'`);
      expect(left.rows).toEqual([]);
    } finally {
      await place.close();
    }
  });

  it('claims requests in batches: 1,000 requests cost far fewer claims than requests', async () => {
    const place = postgresPlace();
    try {
      // The service's budget with windows of a tenth (480 requests a second).
      const budget = ipBudgetOf(1, 0.1);
      const [governor] = await governorsSharing(place, 1, budget);
      place.statements.length = 0;
      const marks = await sendRequests(governor ? [governor] : [], 1_000);
      expect(marks).toHaveLength(1_000);
      const claims = place.statements.filter((text) => text === 'begin').length;
      console.log(`postgres IP budget: 1,000 requests, ${claims} claims (transactions), ${place.statements.length} statements in all`);
      // Measured: 14 claims and 118 statements (a plain read finds a full window without a lock).
      expect(claims).toBeGreaterThan(0);
      expect(claims).toBeLessThanOrEqual(1_000 / 20);
      expect(place.statements.length).toBeLessThanOrEqual(1_000 / 4);
    } finally {
      await place.close();
    }
  });

  it('goes on while the database hangs, within the governor\'s own windows, and prints nothing', async () => {
    const place = postgresPlace();
    const blocker = new pg.Client({ connectionString: place.backend.env.ERPSYNC_DATABASE_URL });
    const printed = vi.spyOn(process.stdout, 'write');
    try {
      const budget: IpBudget = { requests: 10, errors: 100, windowMs: 1_000, tokenCalls: 5, tokenWindowMs: 1_000 };
      const [governor] = await governorsSharing(place, 1, budget);
      // Every read, write and claim of the table waits behind this transaction's lock until it ends.
      await blocker.connect();
      await blocker.query('begin');
      await blocker.query(`lock table "${place.backend.schema}".ip_holders in access exclusive mode`);
      const marks = await sendRequests(governor ? [governor] : [], 25);
      expect(marks).toHaveLength(25);
      expect(mostInWindow(marks, budget.windowMs, crossProcessSlackMs)).toBeLessThanOrEqual(budget.requests);
      expect(printed).not.toHaveBeenCalled();
    } finally {
      printed.mockRestore();
      await blocker.query('rollback').catch(() => undefined);
      await blocker.end();
      await place.close();
    }
  });
});
