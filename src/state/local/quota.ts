// The local backend's request count (workflows/daily-quota says what it is for): the requests
// every run of this repository sent to an account, per service day, and a daily 429 met, in one
// file (`quota.countFile`, `.erpsync/requests-per-day.json`), with the account each target
// reached last. A new service day starts every count again. The file is rewritten whole and
// atomically; the stores of one process take turns on it (file-turns). A file erpsync did not
// write is refused (STATE_FILE) rather than trusted. It decides nothing and prints nothing.
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { DailyQuotaTarget } from '../../api/index.js';
import { ErpsyncError } from '../../model/errors.js';
import { serviceDayOf } from '../../model/service-day.js';
import { makeDirectory, writeFileAtomically } from '../../model/write-file-atomically.js';
import { quotaLeftOf } from '../quota-left.js';
import type { QuotaLeft, QuotaStore } from '../state-store.js';
import { withFileTurn } from './file-turns.js';

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

export function localQuota(): QuotaStore {
  const read = (quota: DailyQuotaTarget, now: Date): Promise<CountFile> => withFileTurn(quota.countFile, () => readCountFile(quota.countFile, serviceDayOf(now)));
  return {
    async knownAccount(quota, targetKey, now = new Date()) {
      return (await read(quota, now)).targets[targetKey];
    },
    async rememberAccount(quota, targetKey, accountId, now = new Date()) {
      await withFileTurn(quota.countFile, async () => {
        const counts = await readCountFile(quota.countFile, serviceDayOf(now));
        if (counts.targets[targetKey] !== accountId) await writeCountFile(quota.countFile, { ...counts, targets: { ...counts.targets, [targetKey]: accountId } });
      });
    },
    async left(quota, accountId, sentThisRun, now = new Date()) {
      return leftOf(await read(quota, now), quota, accountId, sentThisRun);
    },
    async record(quota, accountId, sent, dailyQuotaMet, now = new Date()) {
      if (sent === 0 && !dailyQuotaMet) return;
      await withFileTurn(quota.countFile, async () => {
        const counts = await readCountFile(quota.countFile, serviceDayOf(now));
        const before = counts.accounts[accountId];
        const after: AccountCount = { sent: (before?.sent ?? 0) + sent, ...(dailyQuotaMet || before?.spent ? { spent: true as const } : {}) };
        await writeCountFile(quota.countFile, { ...counts, accounts: { ...counts.accounts, [accountId]: after } });
      });
    },
  };
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
  return quotaLeftOf(quota, { sent: account?.sent ?? 0, spent: account?.spent === true, day: counts.day }, sentThisRun);
}
