// Cross-process lease locks on this machine: one apply per account, one refresh of a credentials
// file at a time. A lock is a small JSON file created exclusively (O_EXCL), naming its owner
// (host, pid, start, command) and renewed by a live holder. Another process takes it over only
// when the lease expired or the owner is provably dead on this host — and then says whose lock it
// took, so the caller can wait out what the dead owner may still have in flight. Takeovers are
// serialized by a second, short-lived file so two waiters never both take the same stale lock.
// A holder fences its own writes: confirm() before each one reads its lock record back (a cheap
// local read) and, when the holder was not running for a while (SIGSTOP, a closed laptop, a
// stalled VM: its own clocks show the gap since it last renewed), renews before anything is sent.
// A holding that finds its record gone or replaced is lost for good: every later confirm() throws
// LOCK_LOST naming who took it, and the caller stops writing.
// Beyond one machine this is no lock at all: a pipeline's concurrency group must serialize runs
// (or the postgres backend's leases, which share this file's words, clocks and fence order).
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { ErpsyncError } from '../model/errors.js';
import { describeWriteError } from '../model/write-file-atomically.js';

export interface LockOwner {
  host: string;
  pid: number;
  startedAt: string;
  command: string;
}

export interface LockRecord {
  key: string;
  owner: LockOwner;
  /** Unique to one holding: a holder renews and releases only its own lock. */
  token: string;
  /** Epoch ms of the last renewal; the lease ends `leaseMs` later. */
  renewedAt: number;
  leaseMs: number;
}

export interface HeldLock {
  record: LockRecord;
  /** The lock of a dead or silent owner this holding replaced, if any. */
  tookOverFrom?: LockRecord;
  /**
   * Before every write: resolves while this holding still holds the lock (renewing it first after
   * a pause); throws LOCK_LOST once another run took it over, and from then on.
   */
  confirm(): Promise<void>;
  release(): Promise<void>;
}

export interface LockOptions {
  /** What the lock protects, shown to whoever finds it held. */
  key: string;
  command: string;
  /** A holder renews every third of it (at most every 250 ms); a silent holder loses the lock after it. */
  leaseMs?: number;
  /** How long to wait for a held lock; 0 refuses at once. */
  timeoutMs?: number;
  pollMs?: number;
  /** Whether a process of this host is alive (tests replace it). */
  isAlive?: (pid: number) => boolean;
}

/** A lease's length when the caller names none: every backend's. */
export const defaultLeaseMs = 60_000;
/** A takeover guard older than this was left by a crashed taker. */
const takeoverGuardMs = 10_000;

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Why a lock may be taken over, or undefined while its holder may still be working. */
export function staleReason(record: LockRecord, now: number, isAlive: (pid: number) => boolean): string | undefined {
  if (record.renewedAt + record.leaseMs < now) return 'its lease expired';
  if (record.owner.host === hostname() && !isAlive(record.owner.pid)) return `process ${record.owner.pid} is no longer running`;
  return undefined;
}

export function describeOwner(record: LockRecord): string {
  const { owner } = record;
  return `\`${owner.command}\` (pid ${owner.pid} on ${owner.host}, since ${owner.startedAt})`;
}

/** The refusal when `holder` keeps the lock past the wait: every backend's words. */
export function lockedBy(key: string, holder: LockRecord): ErpsyncError {
  return new ErpsyncError('LOCKED', `${key} is locked by ${describeOwner(holder)}`, {
    details: ['one run at a time may change an account: wait for it, or pass --lock-timeout SECONDS to wait here'],
  });
}

export interface RenewalStamp {
  mono: number;
  wall: number;
}

/**
 * When a holding last renewed, on both clocks: the wall clock is what others judge the lease by,
 * the monotonic one does not jump; a pause (SIGSTOP, a closed laptop, a stalled VM) shows on at
 * least one of them as a gap since the last renewal.
 */
export function renewalClock(): { now(): RenewalStamp; renewed(at: RenewalStamp): void; gapMs(): number } {
  const now = (): RenewalStamp => ({ mono: performance.now(), wall: Date.now() });
  let last = now();
  return {
    now,
    renewed: (at) => (last = at),
    gapMs: () => Math.max(performance.now() - last.mono, Date.now() - last.wall),
  };
}

/** `check` run one call at a time, in call order: concurrent writes leave in the order they were dispatched, as without the fence. */
export function inCallOrder(check: () => Promise<void>): () => Promise<void> {
  let queue: Promise<unknown> = Promise.resolve();
  return () => {
    const checked = queue.then(check);
    queue = checked.catch(() => undefined);
    return checked;
  };
}

async function readLock(file: string): Promise<LockRecord | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as LockRecord;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // A lock file cut short by a crash while it was written names no live owner.
    if (error instanceof SyntaxError) return { key: '?', owner: { host: '?', pid: 0, startedAt: '?', command: '?' }, token: '', renewedAt: 0, leaseMs: 0 };
    throw error;
  }
}

/**
 * Creates `file` holding `content`, or false when it exists. A disk that is full (or a folder that
 * may not be written) fails clearly, naming the file, and leaves no half-written lock behind: an
 * empty lock file would read as no holder and block nobody, or every run after.
 */
async function createExclusive(file: string, content: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw describeWriteError(error, file);
  }
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(file, { force: true });
    throw describeWriteError(error, file);
  }
  await handle.close();
  return true;
}

/** Removes a stale lock, if it is still the one judged stale; one taker at a time (false: another is taking it). */
async function removeStale(file: string, judged: LockRecord): Promise<boolean> {
  const guard = `${file}.takeover`;
  if (!(await createExclusive(guard, String(process.pid)))) {
    const age = Date.now() - (await stat(guard).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
    if (age > takeoverGuardMs) await rm(guard, { force: true });
    return false;
  }
  try {
    const current = await readLock(file);
    if (current && current.token === judged.token && current.renewedAt === judged.renewedAt) await rm(file, { force: true });
    return true;
  } finally {
    await rm(guard, { force: true });
  }
}

/** Takes the lock in `file`, waiting up to `timeoutMs`; refuses (exit 3) naming the holder. */
export async function acquireLeaseLock(file: string, options: LockOptions): Promise<HeldLock> {
  const leaseMs = options.leaseMs ?? defaultLeaseMs;
  const isAlive = options.isAlive ?? isProcessAlive;
  const deadline = Date.now() + (options.timeoutMs ?? 0);
  const owner: LockOwner = { host: hostname(), pid: process.pid, startedAt: new Date().toISOString(), command: options.command };
  const record: LockRecord = { key: options.key, owner, token: randomBytes(12).toString('hex'), renewedAt: Date.now(), leaseMs };
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  let tookOverFrom: LockRecord | undefined;
  for (;;) {
    record.renewedAt = Date.now();
    if (await createExclusive(file, JSON.stringify(record))) return holdLock(file, record, tookOverFrom);
    const holder = await readLock(file);
    if (!holder) continue;
    if (staleReason(holder, Date.now(), isAlive) !== undefined) {
      tookOverFrom = holder;
      if (!(await removeStale(file, holder))) await delay(options.pollMs ?? 500);
      continue;
    }
    tookOverFrom = undefined;
    if (Date.now() >= deadline) throw lockedBy(options.key, holder);
    await delay(Math.min(options.pollMs ?? 500, Math.max(1, deadline - Date.now())));
  }
}

/** A held lock: renewed while the process lives, confirmed before each write, released once. */
function holdLock(file: string, record: LockRecord, tookOverFrom: LockRecord | undefined): HeldLock {
  const clock = renewalClock();
  let lost: ErpsyncError | undefined;
  let released = false;
  const loseTo = (current: LockRecord | undefined, gapMs: number): ErpsyncError => {
    lost ??= lockLost(record, current, gapMs);
    return lost;
  };
  const renew = async (): Promise<boolean> => {
    const gap = clock.gapMs();
    const current = await readLock(file).catch(() => undefined);
    if (current?.token !== record.token) {
      if (!released) loseTo(current, gap);
      return false;
    }
    const at = clock.now();
    record.renewedAt = at.wall;
    const temp = `${file}.${record.token}.tmp`;
    if (!(await createExclusive(temp, JSON.stringify(record)).catch(() => false))) return false;
    const done = await rename(temp, file).then(
      () => true,
      () => rm(temp, { force: true }).then(() => false),
    );
    if (done) clock.renewed(at);
    return done;
  };
  // One renewal at a time: two would race for the same temp file.
  let renewing: Promise<boolean> | undefined;
  const renewOnce = (): Promise<boolean> => (renewing ??= renew().finally(() => (renewing = undefined)));
  const timer = setInterval(() => void renewOnce(), Math.max(250, record.leaseMs / 3));
  timer.unref();
  const confirmHeld = async (): Promise<void> => {
    if (lost) throw lost;
    const gap = clock.gapMs();
    const current = await readLock(file).catch(() => undefined);
    if (current?.token !== record.token) throw loseTo(current, gap);
    // Past half the lease without a renewal, the process was not running (or starved): renew
    // before sending, and read the record back — a taker may have removed it meanwhile.
    if (gap < record.leaseMs / 2) return;
    await renewing;
    const renewedNow = await renewOnce();
    const after = await readLock(file).catch(() => undefined);
    if (!renewedNow || after?.token !== record.token) throw loseTo(after, gap);
  };
  return {
    record,
    ...(tookOverFrom ? { tookOverFrom } : {}),
    confirm: inCallOrder(confirmHeld),
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      const current = await readLock(file).catch(() => undefined);
      if (current?.token === record.token) await rm(file, { force: true });
    },
  };
}

/** Why a holding is lost for good: who took it (when known), and how long this run was not running when that is why. */
export function lockLost(record: LockRecord, current: LockRecord | undefined, gapMs: number): ErpsyncError {
  const paused = gapMs >= record.leaseMs ? ` after this run was not running for ${Math.round(gapMs / 100) / 10} s (its lease is ${Math.round(record.leaseMs / 100) / 10} s)` : '';
  const taker = current?.token === record.token ? 'could not be renewed' : current ? `was taken over by ${describeOwner(current)}` : 'is no longer held by this run';
  return new ErpsyncError('LOCK_LOST', `the lock on ${record.key} ${taker}${paused}; this run stopped writing`);
}
