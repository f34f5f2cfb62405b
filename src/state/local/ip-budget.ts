// The local backend's IP budget: the windows shared by the erpsync processes of this user on this
// machine, while they run, through files (the claims' logic is ../ip-claims, shared with the
// postgres backend). Every process on these files is one egress: the egress name is not asked.
// Each process keeps a file in the lock folder (per user, 0700): `ip-ledger/<pid>-<id>.json`,
// written only by it (atomic rename; one writer per file, so no write can undo another's), holding
// the times of its requests, errors and token calls in the windows and the slots it holds. Files
// cannot be claimed exclusively, so claims are optimistic (written, then read again). A process
// whose pid is gone is a gone holder; its file is removed once its marks are. Best effort: a
// ledger that cannot be read or written is no ledger (the service's own rules still hold). It
// never holds anything but times.
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Governor } from '../../api/index.js';
import { isProcessAlive } from '../../api/lease-lock.js';
import { isPlainRecord } from '../../model/paths.js';
import { writeFileAtomically } from '../../model/write-file-atomically.js';
import { handOnShare, keepHolderMs, marksOf, shareThrough } from '../ip-claims.js';
import type { HolderBook, HolderMarks } from '../ip-claims.js';
import type { IpBudgetStore } from '../state-store.js';
import { currentUid, judgeLockFolder, lockDirectory } from './lock-folder.js';

const folderName = 'ip-ledger';

/** The folder when it is this user's own and closed to others (the lock folder's rule), else none. */
async function safeFolder(dir: string): Promise<string | undefined> {
  const stats = await lstat(dir).catch(() => undefined);
  return stats && judgeLockFolder(stats, currentUid()) === undefined ? dir : undefined;
}

/** The ledger folder inside the lock folder, made when missing; none when either is not safe to use. */
async function ledgerFolder(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const locks = lockDirectory(env);
  await mkdir(locks, { recursive: true, mode: 0o700 }).catch(() => undefined);
  if ((await safeFolder(locks)) === undefined) return undefined;
  const dir = path.join(locks, folderName);
  await mkdir(dir, { mode: 0o700 }).catch(() => undefined);
  return safeFolder(dir);
}

/** One file's holder, or none when it is not a ledger entry. */
function holderOf(parsed: unknown): (HolderMarks & { pid: number }) | undefined {
  if (!isPlainRecord(parsed) || typeof parsed.savedAt !== 'number' || typeof parsed.pid !== 'number') return undefined;
  const [requests, errors, tokenCalls] = [marksOf(parsed.requests ?? []), marksOf(parsed.errors ?? []), marksOf(parsed.tokenCalls ?? [])];
  if (requests === undefined || errors === undefined || tokenCalls === undefined) return undefined;
  return { pid: parsed.pid, savedAt: parsed.savedAt, gone: !isProcessAlive(parsed.pid), requests, errors, tokenCalls };
}

/** Every other process's entry; files of processes long gone are removed on the way. */
async function readOthers(dir: string, own: string): Promise<HolderMarks[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const now = Date.now();
  const holders: HolderMarks[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    if (file === own || name.startsWith('.') || !name.endsWith('.json')) continue;
    const holder = holderOf(await readFile(file, 'utf8').then((text) => JSON.parse(text) as unknown).catch(() => undefined));
    if (holder === undefined) continue;
    if (holder.savedAt < now - keepHolderMs && holder.gone) {
      await rm(file, { force: true }).catch(() => undefined);
      continue;
    }
    holders.push(holder);
  }
  return holders;
}

/** This process's file in the ledger folder, and the others'. */
function fileBook(dir: string): HolderBook {
  const file = path.join(dir, `${process.pid}-${randomBytes(4).toString('hex')}.json`);
  return {
    key: dir,
    read: () => readOthers(dir, file),
    async write(own) {
      await writeFileAtomically(file, `${JSON.stringify({ pid: process.pid, ...own })}\n`, { mode: 0o600 }).catch(() => undefined);
    },
  };
}

/**
 * The IP budget shared by this user's erpsync processes on this machine: `share` counts what the
 * others sent in the last windows before the governor's first request, and tells them of its own
 * as it sends (once per governor and folder); `handOn` writes what its windows hold and gives back
 * the slots it held.
 */
export function localIpBudget(context: { env: NodeJS.ProcessEnv }): IpBudgetStore {
  return {
    async share(governor: Governor, _egress: string) {
      const dir = await ledgerFolder(context.env);
      if (dir !== undefined) await shareThrough(governor, fileBook(dir));
    },
    handOn: handOnShare,
  };
}
