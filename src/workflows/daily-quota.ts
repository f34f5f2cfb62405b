// The account's daily request quota (api-facts §5: 120,000 requests a day per account, shared by
// every integration; past it the service answers 429 with `"period":"day"` until the next day).
// The service tells nobody what is left, so erpsync keeps its own count: the requests every run of
// this repository sent to an account, per service day, in `.erpsync/requests-per-day.json`, and a
// daily 429 met, which leaves nothing. A run to an account with nothing left stops before sending
// anything; an apply whose plan needs more requests than are left stops before its first write.
// The count sees only this repository's runs: the account's other integrations spend the same
// quota unseen — a target's `dailyQuota` (or `reserve`) keeps room for them, and the service's own
// daily 429 still stops a run at once (api/client.ts). It decides nothing else and prints nothing.
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ACCOUNT_DAILY_QUOTA } from '../api/index.js';
import type { DailyQuotaTarget } from '../api/index.js';
import { ErpsyncError } from '../model/errors.js';
import type { Plan } from '../model/plan.js';
import { makeDirectory, writeFileAtomically } from '../model/write-file-atomically.js';

/**
 * The day the count belongs to. The references do not say when the service's day turns; Bling's
 * accounts are Brazilian companies, so erpsync takes midnight in São Paulo (UTC−3, no daylight
 * saving since 2019), as the emulator does (rule daily-quota).
 */
export function serviceDayOf(at: Date): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo', year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

interface AccountCount {
  /** Requests erpsync sent to the account this service day. */
  sent: number;
  /** The service answered a daily 429 this day: nothing is left, whatever the count says. */
  spent?: true;
}

interface CountFile {
  version: 1;
  day: string;
  accounts: Record<string, AccountCount>;
  /** The account each target reached last, so a run can stop before it sends its first request. */
  targets: Record<string, string>;
}

/** What is left of an account's quota for this run, and why. */
export interface QuotaLeft {
  left: number;
  /** The quota erpsync may use of the account today (the target's `dailyQuota`). */
  limit: number;
  /** Requests counted today, this run's so far included. */
  counted: number;
  spent: boolean;
  day: string;
}

/** One account's quota as a run sees it: what is left now, counting what this run has sent so far. */
export interface AccountQuota {
  left(): Promise<QuotaLeft>;
}

const fileQueues = new Map<string, Promise<unknown>>();

/** Runs `work` on the count file after every earlier read or write of it in this process: stores of a fleet share the file. */
function withCountFile<T>(file: string, work: () => Promise<T>): Promise<T> {
  const turn = (fileQueues.get(file) ?? Promise.resolve()).then(work);
  fileQueues.set(file, turn.catch(() => undefined));
  return turn;
}

async function readCountFile(file: string, today: string): Promise<CountFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, day: today, accounts: {}, targets: {} };
    throw new ErpsyncError('STATE_FILE', `cannot read the request count ${file}`, { cause: error });
  }
  const parsed = parseCountFile(text);
  if (!parsed) throw new ErpsyncError('STATE_FILE', `the request count ${file} is not one erpsync wrote`, { details: ['delete it to start counting again (the service still stops a run past its daily quota)'] });
  // A new service day starts every account's count again; which account each target reaches stays known.
  return parsed.day === today ? parsed : { ...parsed, day: today, accounts: {} };
}

function parseCountFile(text: string): CountFile | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<CountFile>;
    const okAccounts = typeof parsed.accounts === 'object' && parsed.accounts !== null && Object.values(parsed.accounts).every((a) => Number.isInteger(a.sent) && a.sent >= 0);
    const okTargets = typeof parsed.targets === 'object' && parsed.targets !== null && Object.values(parsed.targets).every((id) => typeof id === 'string');
    return parsed.version === 1 && typeof parsed.day === 'string' && okAccounts && okTargets ? (parsed as CountFile) : undefined;
  } catch {
    return undefined;
  }
}

async function writeCountFile(file: string, counts: CountFile): Promise<void> {
  await makeDirectory(dirname(file));
  await writeFileAtomically(file, `${JSON.stringify(counts, null, 2)}\n`);
}

function leftOf(counts: CountFile, quota: DailyQuotaTarget, accountId: string, sentThisRun: number): QuotaLeft {
  const account = counts.accounts[accountId];
  const counted = (account?.sent ?? 0) + sentThisRun;
  const spent = account?.spent === true;
  return { left: spent ? 0 : Math.max(0, quota.perDay - counted), limit: quota.perDay, counted, spent, day: counts.day };
}

/** The account a target reached on its last run, if the count knows it: a run can then stop before its first request. */
export async function knownAccountOf(quota: DailyQuotaTarget, targetKey: string, now = new Date()): Promise<string | undefined> {
  const counts = await withCountFile(quota.countFile, () => readCountFile(quota.countFile, serviceDayOf(now)));
  return counts.targets[targetKey];
}

/** Remembers which account a target reaches (written only when that changed). */
export async function rememberAccount(quota: DailyQuotaTarget, targetKey: string, accountId: string, now = new Date()): Promise<void> {
  await withCountFile(quota.countFile, async () => {
    const counts = await readCountFile(quota.countFile, serviceDayOf(now));
    if (counts.targets[targetKey] !== accountId) await writeCountFile(quota.countFile, { ...counts, targets: { ...counts.targets, [targetKey]: accountId } });
  });
}

/** What is left of the account's quota, counting `sentThisRun` (requests not yet recorded). */
export async function readQuotaLeft(quota: DailyQuotaTarget, accountId: string, sentThisRun: number, now = new Date()): Promise<QuotaLeft> {
  const counts = await withCountFile(quota.countFile, () => readCountFile(quota.countFile, serviceDayOf(now)));
  return leftOf(counts, quota, accountId, sentThisRun);
}

/** Adds a run's requests to the account's count for today; a daily 429 met leaves nothing for the day. */
export async function recordRequests(quota: DailyQuotaTarget, accountId: string, sent: number, dailyQuotaMet: boolean, now = new Date()): Promise<void> {
  if (sent === 0 && !dailyQuotaMet) return;
  await withCountFile(quota.countFile, async () => {
    const counts = await readCountFile(quota.countFile, serviceDayOf(now));
    const before = counts.accounts[accountId];
    const after: AccountCount = { sent: (before?.sent ?? 0) + sent, ...(dailyQuotaMet || before?.spent ? { spent: true as const } : {}) };
    await writeCountFile(quota.countFile, { ...counts, accounts: { ...counts.accounts, [accountId]: after } });
  });
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
