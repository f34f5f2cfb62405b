import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGovernor, ipBudgetOf } from '../../api/index.js';
import type { Governor, IpBudget } from '../../api/index.js';
import { crossProcessSlackMs as slackMs, mostInWindow, watchMarks } from '../../../test/support/windows.js';
import { localIpBudget } from './ip-budget.js';

const shareLocal = (governor: Governor, env: NodeJS.ProcessEnv): Promise<void> => localIpBudget({ env }).share(governor, 'this machine');

function lockEnv(): NodeJS.ProcessEnv {
  return { ERPSYNC_LOCK_DIR: path.join(mkdtempSync(path.join(tmpdir(), 'erpsync-ledger-')), 'locks') };
}

function ledgerDir(env: NodeJS.ProcessEnv): string {
  return path.join(env.ERPSYNC_LOCK_DIR ?? '', 'ip-ledger');
}

/** Writes another process's entry into the ledger folder, as that process would. */
function writeOther(env: NodeJS.ProcessEnv, name: string, entry: unknown): void {
  mkdirSync(ledgerDir(env), { recursive: true, mode: 0o700 });
  writeFileSync(path.join(ledgerDir(env), name), JSON.stringify(entry));
}

/** Whether one more request may start at once: a request that must wait is aborted while it waits. */
async function startsAtOnce(governor: Governor): Promise<boolean> {
  const controller = new AbortController();
  const started = governor.acquireRequest(controller.signal).then(() => true, () => false);
  // Long enough for a claim's reads and write, not for a window to pass.
  await new Promise((resolve) => setTimeout(resolve, 50));
  controller.abort();
  return started;
}

/** Two governors (two processes, as the ledger sees them) send `each` requests apiece, all at once; resolves to the start of every request. */
async function driveTwo(budget: IpBudget, each: number, env?: NodeJS.ProcessEnv): Promise<number[]> {
  const pair = [createGovernor(budget), createGovernor(budget)];
  if (env) for (const governor of pair) await shareLocal(governor, env);
  const watched = pair.map(watchMarks);
  await Promise.all(pair.flatMap((governor, i) => Array.from({ length: each }, () => governor.acquireRequest().then(() => watched[i]?.seen()))));
  return watched.flatMap((w) => w.marks());
}

describe('the local IP budget shared by the processes of a machine', () => {
  it('makes a process count what another sent in the last window, and hands on only its own requests', async () => {
    const env = lockEnv();
    const budget = ipBudgetOf();
    const earlier = Date.now() - 1_000;
    writeOther(env, '999999-a.json', { pid: 999999, savedAt: Date.now(), requests: Array.from({ length: budget.requests }, (_, i) => earlier + i / 100), errors: [], tokenCalls: [] });

    expect(await startsAtOnce(createGovernor(budget))).toBe(true);
    const next = createGovernor(budget);
    await shareLocal(next, env);
    // The other process spent the whole window: this one waits instead of adding 480 more.
    expect(await startsAtOnce(next)).toBe(false);
    expect(next.ledger().requests).toEqual([]);
  });

  it('stops a process while another one\'s error answers fill the window', async () => {
    const env = lockEnv();
    const budget = ipBudgetOf();
    writeOther(env, '999999-a.json', { pid: 999999, savedAt: Date.now(), requests: [], errors: Array.from({ length: budget.errors }, () => Date.now() - 1_000), tokenCalls: [] });
    const next = createGovernor(budget);
    await shareLocal(next, env);
    expect(await startsAtOnce(next)).toBe(false);
  });

  it('forgets what is older than the windows, and anything that is not a ledger', async () => {
    const env = lockEnv();
    const budget = ipBudgetOf();
    const old = Date.now() - 11_000;
    writeOther(env, '1-a.json', { pid: 1, savedAt: Date.now(), requests: Array.from({ length: budget.requests }, () => old), errors: [], tokenCalls: [] });
    writeOther(env, '2-a.json', 'nonsense');
    writeOther(env, '3-a.json', { savedAt: 'x' });
    writeOther(env, '4-a.json', '{ not json');
    const next = createGovernor(budget);
    await shareLocal(next, env);
    expect(await startsAtOnce(next)).toBe(true);
  });

  it('removes the file of a process that is gone once its marks are, and keeps a live one\'s', async () => {
    const env = lockEnv();
    const long = Date.now() - 200_000;
    // No process has pid 2^31-2 (Linux caps pids at 2^22).
    writeOther(env, '2147483646-a.json', { pid: 2147483646, savedAt: long, requests: [long], errors: [], tokenCalls: [] });
    writeOther(env, `${process.pid}-old.json`, { pid: process.pid, savedAt: long, requests: [long], errors: [], tokenCalls: [] });
    await shareLocal(createGovernor(ipBudgetOf()), env);
    expect(existsSync(path.join(ledgerDir(env), '2147483646-a.json'))).toBe(false);
    expect(existsSync(path.join(ledgerDir(env), `${process.pid}-old.json`))).toBe(true);
  });

  it("counts a gone process's token claim from when it wrote it, a live one's until its lease ends", async () => {
    const budget: IpBudget = { ...ipBudgetOf(), tokenCalls: 1 };
    const tokenStartsAtOnce = async (pid: number): Promise<boolean> => {
      const env = lockEnv();
      // Written 62 s ago for a call then in flight: its lease (a minute) ends 2 s ago, inside the window.
      const savedAt = Date.now() - 62_000;
      writeOther(env, `${pid}-a.json`, { pid, savedAt, requests: [], errors: [], tokenCalls: [savedAt + budget.tokenWindowMs] });
      const next = createGovernor(budget);
      await shareLocal(next, env);
      const controller = new AbortController();
      const started = next.acquireTokenCall(controller.signal).then((answered) => (answered(), true), () => false);
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.abort();
      return started;
    };
    // A killed refresh sent its call right after claiming it, if at all: a minute later that is out of the window.
    expect(await tokenStartsAtOnce(2147483646)).toBe(true);
    expect(await tokenStartsAtOnce(process.pid)).toBe(false);
  });

  it('records a process\'s requests as it sends, in a file of its own, with the slots it holds', async () => {
    const env = lockEnv();
    const governor = createGovernor(ipBudgetOf());
    await shareLocal(governor, env);
    for (let i = 0; i < 5; i += 1) await governor.acquireRequest();
    const [name] = readdirSync(ledgerDir(env));
    const read = () => JSON.parse(readFileSync(path.join(ledgerDir(env), name ?? ''), 'utf8')) as { pid: number; requests: number[] };
    // Written when the first batch was claimed, before any request went: the batch's slots, at its lease end.
    expect(read().pid).toBe(process.pid);
    expect(read().requests.length).toBeGreaterThanOrEqual(5);
    // A store closed: the slots it held are given back, the requests sent stay.
    await localIpBudget({ env }).handOn(governor);
    expect(read().requests).toHaveLength(5);
  });

  it('two processes sending at once never pass the budget together in any window', async () => {
    const budget: IpBudget = { requests: 20, errors: 100, windowMs: 400, tokenCalls: 5, tokenWindowMs: 1_000 };
    const shared = await driveTwo(budget, 50, lockEnv());
    expect(shared).toHaveLength(100);
    expect(mostInWindow(shared, budget.windowMs, slackMs)).toBeLessThanOrEqual(budget.requests);
    // Without the ledger each spends the whole budget: the same drive sends twice the budget in one window.
    expect(mostInWindow(await driveTwo(budget, 50), budget.windowMs, slackMs)).toBe(2 * budget.requests);
  });

  it('two processes refreshing tokens at once never pass the token budget together', async () => {
    const env = lockEnv();
    const budget: IpBudget = { requests: 1_000, errors: 100, windowMs: 1_000, tokenCalls: 2, tokenWindowMs: 400 };
    const pair = [createGovernor(budget), createGovernor(budget)];
    for (const governor of pair) await shareLocal(governor, env);
    await Promise.all(pair.flatMap((governor) => Array.from({ length: 4 }, () => governor.acquireTokenCall().then((answered) => answered()))));
    // Both governors' clocks are this process's: their token calls' start times compare as they are.
    const starts = pair.flatMap((governor) => governor.stats().tokenCallTimes);
    expect(starts).toHaveLength(8);
    expect(mostInWindow(starts, budget.tokenWindowMs, slackMs)).toBeLessThanOrEqual(budget.tokenCalls);
  });
});
