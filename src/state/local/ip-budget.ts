// The IP's windows shared by the erpsync processes of this user on this machine, while they run.
// The governor (api/governor) is one per process; alone, two processes started together behind one
// egress IP would each spend the whole budget (960 requests in 10 s where the service allows 600),
// and a process started right after another would begin with empty windows. So each process keeps
// a file in the lock folder (per user, 0700): `ip-ledger/<pid>-<id>.json`, written only by it
// (atomic rename; one writer per file, so no write can undo another's), holding the times of its
// requests, errors and token calls in the windows — and the slots it holds: before a request
// starts, the process must hold a slot the others have been told of. It takes them in batches
// (more while they are used up, fewer when they lapse unused), each batch one write: it reads the
// others, writes its batch as marks at the batch's lease end (the latest a slot may be used, so
// the others count it at least as long as the service will), reads the others again and gives the
// batch back when the IP is then over budget. Of two processes claiming at once, the one that
// reads last sees both claims, so together they never pass the budget. Errors are not claimed
// ahead (an answer is not chosen): they are written with every batch and at most every ~250 ms
// while a process sends. A dead process's marks age out with their windows; its file is removed
// once its pid is gone and its marks are. Best effort: a ledger that cannot be read or written is
// no ledger (the service's own rules still hold). It never holds anything but times.
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Governor, IpGate, IpLedger } from '../api/index.js';
import { isProcessAlive } from '../api/lease-lock.js';
import { isPlainRecord } from '../model/paths.js';
import { writeFileAtomically } from '../model/write-file-atomically.js';
import { judgeLockFolder, lockDirectory } from './account-lock.js';

const folderName = 'ip-ledger';
/** A file untouched this long, whose process is gone, can hold nothing that counts (twice the longest window). */
const keepMs = 120_000;
/** How soon after writing a claim a process sends on it (one more read of the others' files), with room to spare. */
const sentWithinMs = 1_000;

interface Entry extends IpLedger {
  pid: number;
  savedAt: number;
}

interface Share {
  governor: Governor;
  dir: string;
  file: string;
  /** Request slots held, usable until `until` (wall-clock ms). */
  slots: number;
  until: number;
  /** A batch written for the others and not yet confirmed: counted by them, not usable here. */
  claiming: { slots: number; until: number };
  /** The last batch lapsed with slots unused. */
  lapsed: boolean;
  batch: number;
  /** Lease ends of token calls let through and not yet answered. */
  pendingTokens: number[];
  lastSync: number;
  /** Claims, writes and reads of this process, one at a time. */
  queue: Promise<unknown>;
}

function marksOf(value: unknown): number[] {
  return Array.isArray(value) ? value.filter((mark): mark is number => typeof mark === 'number' && Number.isFinite(mark)) : [];
}

/** The folder when it is this user's own and closed to others (the lock folder's rule), else none. */
async function safeFolder(dir: string): Promise<string | undefined> {
  const stats = await lstat(dir).catch(() => undefined);
  return stats && judgeLockFolder(stats, process.getuid?.()) === undefined ? dir : undefined;
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

/** Every other process's entry; files of processes long gone are removed on the way. */
async function readOthers(share: Share): Promise<Entry[]> {
  const names = await readdir(share.dir).catch(() => [] as string[]);
  const now = Date.now();
  const entries: Entry[] = [];
  for (const name of names) {
    const file = path.join(share.dir, name);
    if (file === share.file || name.startsWith('.') || !name.endsWith('.json')) continue;
    const parsed = await readFile(file, 'utf8').then((text) => JSON.parse(text) as unknown).catch(() => undefined);
    if (!isPlainRecord(parsed) || typeof parsed.savedAt !== 'number' || typeof parsed.pid !== 'number') continue;
    const alive = isProcessAlive(parsed.pid);
    if (parsed.savedAt < now - keepMs && !alive) {
      await rm(file, { force: true }).catch(() => undefined);
      continue;
    }
    // A process that is gone holds no slot: what it claimed and may have used, it used right after
    // writing the claim (a killed refresh's token call would otherwise count until its lease ended,
    // a minute on, and then for a window more).
    const { savedAt } = parsed;
    const settled = (marks: number[]) => (alive ? marks : marks.map((mark) => Math.min(mark, savedAt + sentWithinMs)));
    entries.push({ pid: parsed.pid, savedAt, requests: settled(marksOf(parsed.requests)), errors: marksOf(parsed.errors), tokenCalls: settled(marksOf(parsed.tokenCalls)) });
  }
  return entries;
}

/** Reads the others and counts them in the governor's windows; resolves to what they hold, and how many wrote in the last window. */
async function absorbOthers(share: Share): Promise<IpLedger & { sending: number }> {
  const others = await readOthers(share);
  const all = { requests: others.flatMap((e) => e.requests), errors: others.flatMap((e) => e.errors), tokenCalls: others.flatMap((e) => e.tokenCalls) };
  share.governor.absorb(all);
  const since = Date.now() - share.governor.budget.windowMs;
  return { ...all, sending: others.filter((entry) => entry.savedAt > since).length };
}

/** This process's marks with the slots it holds, as the others must count them. */
function ownEntry(share: Share): Entry {
  const own = share.governor.ledger();
  const now = Date.now();
  const slots = share.until > now ? Array.from({ length: share.slots }, () => share.until) : [];
  const claiming = Array.from({ length: share.claiming.slots }, () => share.claiming.until);
  return { pid: process.pid, savedAt: now, requests: [...own.requests, ...slots, ...claiming], errors: own.errors, tokenCalls: [...own.tokenCalls, ...share.pendingTokens] };
}

async function publish(share: Share): Promise<void> {
  share.lastSync = Date.now();
  await writeFileAtomically(share.file, `${JSON.stringify(ownEntry(share))}\n`, { mode: 0o600 }).catch(() => undefined);
}

/** The marks of `kind` the IP's window holds now, oldest first: this process's (held slots included) and the others'. */
function marksInWindow(share: Share, others: IpLedger, kind: 'requests' | 'tokenCalls'): number[] {
  const windowMs = kind === 'requests' ? share.governor.budget.windowMs : share.governor.budget.tokenWindowMs;
  const from = Date.now() - windowMs;
  return [...ownEntry(share)[kind], ...others[kind]].filter((mark) => mark > from).sort((a, b) => a - b);
}

/**
 * One try at a slot of `kind`, alone among this process's claims: resolves to how long to wait
 * before the next try, or to nothing once the slot is taken.
 */
async function tryClaim(share: Share, kind: 'requests' | 'tokenCalls'): Promise<number | undefined> {
  const { budget } = share.governor;
  const limit = kind === 'requests' ? budget.requests : budget.tokenCalls;
  const windowMs = kind === 'requests' ? budget.windowMs : budget.tokenWindowMs;
  // A request slot lapses soon (unused, it still costs the others a window); a token slot stays until its call is answered.
  const leaseMs = kind === 'requests' ? budget.windowMs / 20 : budget.tokenWindowMs;
  if (kind === 'requests' && takeHeld(share)) return undefined;
  if (kind === 'requests' && share.slots > 0) [share.slots, share.lapsed] = [0, true];
  // The batch follows the use: twice as many when the last one ran out, half as many when it lapsed unused.
  const batch = share.until === 0 ? share.batch : share.lapsed ? Math.max(1, Math.ceil(share.batch / 2)) : Math.min(Math.max(1, Math.floor(budget.requests / 4)), share.batch * 2);
  const others = await absorbOthers(share);
  const before = marksInWindow(share, others, kind);
  const room = limit - before.length;
  // A full window frees a slot at a time: a batch waits for a few (1/40 of the budget, 12 of 480),
  // so a process paced by the window writes about every 250 ms rather than once per request.
  const least = kind === 'requests' ? Math.min(batch, Math.max(1, Math.floor(limit / 40))) : 1;
  // Read again when enough marks have left the window, or sooner: the others may give slots back.
  if (room < least) return Math.max(1, Math.min(leaseMs, Math.ceil((before[least - room - 1] ?? 0) + windowMs - Date.now())));
  const until = Date.now() + leaseMs;
  // Written before it is usable: no request may start on a batch the others have not been told of.
  // Each of the processes sending now asks for its share of the room: when all of them claim at the same moment, all fit.
  if (kind === 'requests') share.claiming = { slots: Math.min(batch, Math.max(1, Math.floor(room / (1 + others.sending)))), until };
  else share.pendingTokens.push(until);
  await publish(share);
  const granted = marksInWindow(share, await absorbOthers(share), kind).length <= limit;
  if (kind === 'requests') {
    if (granted) [share.slots, share.until, share.batch, share.lapsed] = [share.claiming.slots - 1, until, batch, false];
    share.claiming = { slots: 0, until: 0 };
  } else if (!granted) share.pendingTokens.pop();
  if (granted) {
    if (kind === 'requests') setTimeout(() => void queued(share, () => giveBackLapsed(share)), leaseMs).unref();
    return undefined;
  }
  // Another process claimed at the same moment: the batch is given back, and the next try comes a little later than its.
  await publish(share);
  return 1 + Math.floor(Math.random() * (budget.windowMs / 80));
}

/** Takes one slot of `kind`, claiming a batch of them when none is held; the waits between tries hold up no other claim. */
async function claim(share: Share, kind: 'requests' | 'tokenCalls', signal?: AbortSignal): Promise<void> {
  for (;;) {
    const wait = await queued(share, () => tryClaim(share, kind));
    if (wait === undefined) return;
    await sleep(wait, undefined, { signal });
  }
}

/** Tells the others at once of slots that lapsed unused, rather than let them count for a window. */
async function giveBackLapsed(share: Share): Promise<void> {
  if (share.slots < 1 || share.until > Date.now()) return;
  share.slots = 0;
  share.lapsed = true;
  await publish(share);
}

/** Takes a held request slot when one is left and still valid. */
function takeHeld(share: Share): boolean {
  if (share.slots < 1 || share.until <= Date.now()) return false;
  share.slots -= 1;
  return true;
}

function queued<T>(share: Share, step: () => Promise<T>): Promise<T> {
  const done = share.queue.then(step);
  share.queue = done.catch(() => undefined);
  return done;
}

function gateOf(share: Share): IpGate {
  const syncMs = share.governor.budget.windowMs / 40;
  return {
    take(kind, signal) {
      if (kind === 'requests' && takeHeld(share)) {
        // Errors and the times of requests sent are written as the process goes, not per request.
        if (share.lastSync < Date.now() - syncMs) {
          share.lastSync = Date.now();
          void queued(share, async () => {
            await publish(share);
            await absorbOthers(share);
          });
        }
        return Promise.resolve();
      }
      return claim(share, kind, signal);
    },
    answered() {
      // The call now counts from its answer in this process's own marks: its held slot is given back.
      share.pendingTokens.shift();
      share.pendingTokens = share.pendingTokens.filter((end) => end > Date.now() - share.governor.budget.tokenWindowMs);
      void queued(share, () => publish(share));
    },
  };
}

const shares = new WeakMap<Governor, Share>();

/**
 * Shares the governor's windows with the other erpsync processes of this user from now on (once
 * per governor): it counts what they sent in the last windows before its first request, and
 * tells them of its own as it sends.
 */
export async function shareIpLedger(governor: Governor, env: NodeJS.ProcessEnv): Promise<void> {
  const dir = await ledgerFolder(env);
  if (dir === undefined) return;
  const known = shares.get(governor);
  if (known !== undefined && known.dir === dir) return;
  const file = path.join(dir, `${process.pid}-${randomBytes(4).toString('hex')}.json`);
  const share: Share = known ? Object.assign(known, { dir, file }) : { governor, dir, file, slots: 0, until: 0, claiming: { slots: 0, until: 0 }, lapsed: false, batch: Math.max(1, Math.floor(governor.budget.requests / 32)), pendingTokens: [], lastSync: 0, queue: Promise.resolve() };
  if (known === undefined) {
    shares.set(governor, share);
    governor.share(gateOf(share));
  }
  await queued(share, () => absorbOthers(share));
}

/**
 * Writes what this process's windows hold now (a store closed), for the processes beside and after
 * it; the request slots it held are given back (the next request claims afresh).
 */
export function handOnIpLedger(governor: Governor): Promise<void> {
  const share = shares.get(governor);
  if (share === undefined) return Promise.resolve();
  return queued(share, () => {
    share.slots = 0;
    return publish(share);
  });
}
