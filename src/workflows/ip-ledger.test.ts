import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGovernor, ipBudgetOf } from '../api/index.js';
import { absorbEarlierProcesses, handOnIpLedger } from './ip-ledger.js';

function lockEnv(): NodeJS.ProcessEnv {
  return { ERPSYNC_LOCK_DIR: path.join(mkdtempSync(path.join(tmpdir(), 'erpsync-ledger-')), 'locks') };
}

/** Whether one more request may start at once: a request that must wait is aborted while it waits. */
async function startsAtOnce(governor: ReturnType<typeof createGovernor>): Promise<boolean> {
  const controller = new AbortController();
  const started = governor.acquireRequest(controller.signal).then(() => true, () => false);
  await new Promise((resolve) => setImmediate(resolve));
  controller.abort();
  return started;
}

describe('the IP ledger handed from process to process', () => {
  it('makes a process count what another sent in the last 10 s, and hands on only its own requests', async () => {
    const env = lockEnv();
    const budget = ipBudgetOf();
    const earlier = Date.now() - 1_000;
    const other = { savedAt: Date.now(), requests: Array.from({ length: budget.requests }, (_, i) => earlier + i / 100), errors: [], tokenCalls: [] };
    await handOnIpLedger(createGovernor(budget), env);
    const file = path.join(env.ERPSYNC_LOCK_DIR ?? '', 'ip-ledger.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), 999999: other }));

    const fresh = createGovernor(budget);
    expect(await startsAtOnce(fresh)).toBe(true);
    const next = createGovernor(budget);
    await absorbEarlierProcesses(next, env);
    // The other process spent the whole window: this one waits instead of adding 480 more.
    expect(await startsAtOnce(next)).toBe(false);
    expect(next.ledger().requests).toEqual([]);
  });

  it('forgets what is older than the windows, and anything that is not a ledger', async () => {
    const env = lockEnv();
    const budget = ipBudgetOf();
    await handOnIpLedger(createGovernor(budget), env);
    const file = path.join(env.ERPSYNC_LOCK_DIR ?? '', 'ip-ledger.json');
    const old = Date.now() - 11_000;
    writeFileSync(file, JSON.stringify({ 1: { savedAt: Date.now(), requests: Array.from({ length: budget.requests }, () => old), errors: [], tokenCalls: [] }, 2: 'nonsense', 3: { savedAt: 'x' } }));
    const next = createGovernor(budget);
    await absorbEarlierProcesses(next, env);
    expect(await startsAtOnce(next)).toBe(true);
    writeFileSync(file, '{ not json');
    await absorbEarlierProcesses(createGovernor(budget), env);
  });

  it('records a process\'s requests under its pid, readable by the next one', async () => {
    const env = lockEnv();
    const governor = createGovernor(ipBudgetOf());
    for (let i = 0; i < 5; i += 1) await governor.acquireRequest();
    await handOnIpLedger(governor, env);
    const entries = JSON.parse(readFileSync(path.join(env.ERPSYNC_LOCK_DIR ?? '', 'ip-ledger.json'), 'utf8')) as Record<string, { requests: number[] }>;
    expect(entries[String(process.pid)]?.requests).toHaveLength(5);
  });
});
