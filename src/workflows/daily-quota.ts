// The account's daily request quota (api-facts §5: 120,000 requests a day per account, shared by
// every integration; past it the service answers 429 with `"period":"day"` until the next day).
// The service tells nobody what is left, so erpsync keeps its own count: the requests every run of
// this repository sent to an account, per service day, and a daily 429 met, which leaves nothing;
// the state store keeps it (state/: `.erpsync/requests-per-day.json`, or the shared backend). A
// run to an account with nothing left stops before sending anything; an apply whose plan needs
// more requests than are left stops before its first write.
// The count sees only this repository's runs: the account's other integrations spend the same
// quota unseen — a target's `dailyQuota` (or `reserve`) keeps room for them, and the service's own
// daily 429 still stops a run at once (api/client.ts). It decides nothing else and prints nothing.
import { ACCOUNT_DAILY_QUOTA } from '../api/index.js';
import { ErpsyncError } from '../model/errors.js';
import type { Plan } from '../model/plan.js';
import { serviceDayOf } from '../model/service-day.js';
import type { QuotaLeft } from '../state/state-store.js';

/** One account's quota as a run sees it: what is left now, counting what this run has sent so far. */
export interface AccountQuota {
  left(): Promise<QuotaLeft>;
}

/** A run to an account with nothing left today sends nothing more; `sent`: what it sent to name the account. */
export function refuseWhenNothingLeft(quota: QuotaLeft, sent: number, now = new Date()): void {
  if (quota.left > 0) return;
  const why = quota.spent
    ? 'the service answered 429 for the day to a run today'
    : `erpsync counted ${formatCount(quota.counted)} requests to it today, of the ${formatCount(quota.limit)} it may send`;
  const done = sent === 0 ? 'nothing was sent' : `nothing was sent after the ${sent} request${sent === 1 ? '' : 's'} that named the account`;
  throw new ErpsyncError('DAILY_QUOTA', `the account's daily request quota is used up (${why}); ${done}`, { details: renewalHint(now) });
}

/**
 * Before an apply's first write: the requests its plan still sends (the cost line's writes and
 * read-back, exact by construction) must fit in what is left, or nothing is written.
 */
export function requireQuotaFor(plan: Plan, quota: QuotaLeft, now = new Date()): void {
  const needed = plan.cost.writes + (plan.cost.verifyReads ?? 0);
  if (needed <= quota.left) return;
  const said = quota.spent ? 'the service answered 429 for the day' : `${formatCount(quota.counted)} of ${formatCount(quota.limit)} counted today`;
  throw new ErpsyncError('DAILY_QUOTA', `the plan needs ${formatCount(needed)} requests but only ${formatCount(quota.left)} of the account's daily quota are left (${said}); nothing was written`, {
    details: [`the plan's requests: ${plan.cost.writes} writes, ${plan.cost.verifyReads ?? 0} read-back`, ...renewalHint(now)],
  });
}

function renewalHint(now: Date): string[] {
  return [
    `the quota renews at midnight in São Paulo (service day ${serviceDayOf(now)}); run again then, or apply part of it now with --only`,
    `a target's dailyQuota (or reserve) in erpsync.config.yaml sets how much of the account's ${formatCount(ACCOUNT_DAILY_QUOTA)} a day erpsync may use (docs/config.md)`,
  ];
}

function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}
