// What is left of an account's daily quota, worked out the same way by both backends from what
// each counted for the service day. Arithmetic only: it reads and writes nothing.
import type { DailyQuotaTarget } from '../api/index.js';
import type { QuotaLeft } from './state-store.js';

/** What is left, from the day's count (`sent`, a daily 429 met) and what this run sent since it was counted. */
export function quotaLeftOf(quota: DailyQuotaTarget, count: { sent: number; spent: boolean; day: string }, sentThisRun: number): QuotaLeft {
  const counted = count.sent + sentThisRun;
  return { left: count.spent ? 0 : Math.max(0, quota.perDay - counted), limit: quota.perDay, counted, spent: count.spent, day: count.day };
}
