import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Plan } from '../model/plan.js';
import { serviceDayOf } from '../model/service-day.js';
import { localQuota } from '../state/local/quota.js';
import { refuseWhenNothingLeft, requireQuotaFor } from './daily-quota.js';

const counts = localQuota();

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function quotaIn(perDay: number) {
  const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-quota-'));
  dirs.push(dir);
  return { perDay, countFile: path.join(dir, '.erpsync', 'requests-per-day.json') };
}

const beforeMidnight = new Date(Date.UTC(2026, 0, 6, 2, 59));
const afterMidnight = new Date(Date.UTC(2026, 0, 6, 3, 0));

describe('the service day', () => {
  it('turns at midnight in São Paulo (03:00 UTC)', () => {
    expect(serviceDayOf(beforeMidnight)).toBe('2026-01-05');
    expect(serviceDayOf(afterMidnight)).toBe('2026-01-06');
  });
});

describe('the request count', () => {
  it('adds each run to its account and day, and starts again the next day', async () => {
    const quota = quotaIn(100);
    await counts.record(quota, 'acc-1', 30, false, beforeMidnight);
    await counts.record(quota, 'acc-1', 25, false, beforeMidnight);
    await counts.record(quota, 'acc-2', 7, false, beforeMidnight);
    expect(await counts.left(quota, 'acc-1', 5, beforeMidnight)).toMatchObject({ counted: 60, left: 40, limit: 100, spent: false, day: '2026-01-05' });
    expect(await counts.left(quota, 'acc-2', 0, beforeMidnight)).toMatchObject({ counted: 7, left: 93 });
    expect(await counts.left(quota, 'acc-1', 0, afterMidnight)).toMatchObject({ counted: 0, left: 100, day: '2026-01-06' });
  });

  it('leaves nothing for the day once the service answered a daily 429, whatever the count', async () => {
    const quota = quotaIn(120_000);
    await counts.record(quota, 'acc-1', 3, true, beforeMidnight);
    const left = await counts.left(quota, 'acc-1', 0, beforeMidnight);
    expect(left).toMatchObject({ left: 0, spent: true });
    expect(() => refuseWhenNothingLeft(left, 0, beforeMidnight)).toThrow(expect.objectContaining({ code: 'DAILY_QUOTA', message: expect.stringContaining('the service answered 429 for the day to a run today); nothing was sent') }));
    const counted = { left: 0, limit: 10, counted: 10, spent: false, day: '2026-01-05' };
    expect(() => refuseWhenNothingLeft(counted, 1)).toThrow(
      expect.objectContaining({ message: "the account's daily request quota is used up (erpsync counted 10 requests to it today, of the 10 it may send); nothing was sent after the 1 request that named the account" }),
    );
    expect(await counts.left(quota, 'acc-1', 0, afterMidnight)).toMatchObject({ left: 120_000, spent: false });
  });

  it('remembers which account a target reaches across days', async () => {
    const quota = quotaIn(10);
    await counts.rememberAccount(quota, 'loja https://api', 'acc-9', beforeMidnight);
    await counts.record(quota, 'acc-9', 10, false, beforeMidnight);
    expect(await counts.knownAccount(quota, 'loja https://api', afterMidnight)).toBe('acc-9');
    expect(await counts.knownAccount(quota, 'other https://api', afterMidnight)).toBeUndefined();
    const stored = JSON.parse(readFileSync(quota.countFile, 'utf8')) as unknown;
    expect(stored).toEqual({ version: 1, day: '2026-01-05', accounts: { 'acc-9': { sent: 10 } }, targets: { 'loja https://api': 'acc-9' } });
  });

  it('keeps the counts of runs recorded at once (a fleet shares the file)', async () => {
    const quota = quotaIn(1_000);
    await Promise.all(Array.from({ length: 20 }, (_, i) => counts.record(quota, `acc-${i % 2}`, 5, false, beforeMidnight)));
    expect(await counts.left(quota, 'acc-0', 0, beforeMidnight)).toMatchObject({ counted: 50 });
    expect(await counts.left(quota, 'acc-1', 0, beforeMidnight)).toMatchObject({ counted: 50 });
  });

  it('refuses a count file it did not write, naming it', async () => {
    const quota = quotaIn(10);
    await counts.record(quota, 'acc-1', 1, false);
    writeFileSync(quota.countFile, '{"version":1,"day":"x","accounts":{"a":{"sent":-3}},"targets":{}}');
    await expect(counts.left(quota, 'acc-1', 0)).rejects.toMatchObject({ code: 'STATE_FILE', message: expect.stringContaining(quota.countFile) });
  });
});

describe('a plan against what is left', () => {
  const plan = { cost: { reads: 12, writes: 40, verifyReads: 3, seconds: 1, rate: 2.9 } } as Plan;

  it('passes when its writes and read-back fit, and is refused naming predicted against left otherwise', () => {
    expect(() => requireQuotaFor(plan, { left: 43, limit: 100, counted: 57, spent: false, day: '2026-01-05' })).not.toThrow();
    expect(() => requireQuotaFor(plan, { left: 42, limit: 100, counted: 58, spent: false, day: '2026-01-05' }, beforeMidnight)).toThrow(
      expect.objectContaining({
        code: 'DAILY_QUOTA',
        message: "the plan needs 43 requests but only 42 of the account's daily quota are left (58 of 100 counted today); nothing was written",
      }),
    );
  });
});
