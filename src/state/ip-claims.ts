// The IP budget's windows shared by every holder (a process's governor) of one egress, over a book
// a backend keeps: a folder of files on one machine (local/ip-budget), a table (postgres/ip-budget).
// This file is the logic both share; a backend only reads and writes holders' marks.
//
// The governor (api/governor) is one per process; alone, two processes behind one egress IP would
// each spend the whole budget, and a process started right after another would begin with empty
// windows. So each holder writes the times (wall-clock ms) of its requests, errors and token calls
// in the windows — and the slots it holds: before a request starts, its holder must hold a slot
// the others have been told of. It takes them in batches (more while they are used up, fewer when
// they lapse unused), each batch one claim: it reads the others, writes its batch as marks at the
// batch's lease end (the latest a slot may be used, so the others count it at least as long as
// the service will), and may use it once written. A book that can claim exclusively (no other
// claim between the read and the write: a database lock) is exact as it is, and takes its lock
// only when a plain read found room; otherwise the claim reads the others again after writing and
// gives the batch back when the IP is then over budget — of two holders claiming at once, the one
// that reads last sees both claims, so together they never pass the budget. A holder's waiting
// requests make one try at a time between them, not one each. Token calls are claimed one at a time. Errors are not claimed ahead (an
// answer is not chosen): they are written with every batch and at most every ~250 ms while a
// holder sends.
//
// What is read is evidence: marks that are not finite numbers are dropped, a holder with more
// marks than any erpsync writes is ignored, a gone holder's claims count from when it wrote them,
// and a mark further ahead than a lease (another machine's clock running fast) counts as if it
// were one lease ahead. Best effort: a book that fails or takes longer than half a window is no
// book for a window — claims are then decided here against the others as last read and the
// governor's own marks (the service's rules still hold). Nothing here prints.
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import type { Governor, IpGate, IpLedger } from '../api/index.js';
import { SERVICE_IP_RULES } from '../api/index.js';

/** One holder's marks (wall-clock ms) as a backend read them. */
export interface HolderMarks extends IpLedger {
  /** When the holder last wrote (its own clock). */
  savedAt: number;
  /** Its process is known to be gone: what it claimed, it used right after writing, if at all. */
  gone: boolean;
}

/** What a holder writes for the others: whole milliseconds. */
export interface OwnMarks extends IpLedger {
  savedAt: number;
}

/** Where the holders of one egress keep their marks: what a backend supplies. */
export interface HolderBook {
  /** Sharing a governor through a book of the same key again changes nothing. */
  readonly key: string;
  /** The other holders' marks, without those unsaved for `keepHolderMs` (removed where the backend can). */
  read(): Promise<HolderMarks[]>;
  write(own: OwnMarks): Promise<void>;
  /**
   * A claim as one exclusive step: reads the others, writes what `decide` makes of them (nothing
   * when it returns none), and no other claim comes between. Without it, claims are optimistic.
   */
  claimExclusively?(decide: (others: HolderMarks[]) => OwnMarks | undefined): Promise<void>;
}

/** A holder unsaved this long can hold nothing that counts (twice the longest window): ignored, then removed. */
export const keepHolderMs = 120_000;
/** How soon after writing a claim a holder sends on it (one more read of the others), with room to spare. */
const sentWithinMs = 1_000;
/** More marks of one kind than a holder ever writes (a window's budget and a batch at most). */
const mostMarks = 4 * SERVICE_IP_RULES.requests;

type Kind = 'requests' | 'tokenCalls';

interface Share {
  governor: Governor;
  book: HolderBook;
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
  /** Before then a try of the kind would find what the last one found: no room, or another claim. */
  nextTry: Record<Kind, number>;
  /** The others as last read: what a claim is decided against while the book cannot be reached. */
  lastOthers: HolderMarks[];
  /** Until then the book failed, and claims are decided here. */
  bookDownUntil: number;
  /** Claims, writes and reads of this holder, one at a time. */
  queue: Promise<unknown>;
}

/** The marks of a value read back: finite numbers, or none when it is not a list of at most `mostMarks`. */
export function marksOf(value: unknown): number[] | undefined {
  if (!Array.isArray(value) || value.length > mostMarks) return undefined;
  return value.filter((mark): mark is number => typeof mark === 'number' && Number.isFinite(mark));
}

/** A kind's rule for this governor: its limit, window, and how long a claimed slot may wait for its use. */
function ruleOf(share: Share, kind: Kind | 'errors'): { limit: number; windowMs: number; leaseMs: number } {
  const { budget } = share.governor;
  // A request slot lapses soon (unused, it still costs the others a window); a token slot stays until its call is answered.
  if (kind === 'tokenCalls') return { limit: budget.tokenCalls, windowMs: budget.tokenWindowMs, leaseMs: budget.tokenWindowMs };
  return { limit: kind === 'requests' ? budget.requests : budget.errors, windowMs: budget.windowMs, leaseMs: budget.windowMs / 20 };
}

/** Counts the others in the governor's windows; returns what they hold, and how many wrote in the last window. */
function absorb(share: Share, others: HolderMarks[]): IpLedger & { sending: number } {
  share.lastOthers = others;
  const now = Date.now();
  const counted = (holder: HolderMarks, kind: keyof IpLedger): number[] => {
    const ahead = now + ruleOf(share, kind).leaseMs;
    // A gone process's errors are answers it had; its claims it used right after writing them, if at all.
    const settled = holder.gone && kind !== 'errors' ? holder.savedAt + sentWithinMs : Infinity;
    return holder[kind].map((mark) => Math.min(mark, settled, ahead));
  };
  const all = { requests: others.flatMap((h) => counted(h, 'requests')), errors: others.flatMap((h) => counted(h, 'errors')), tokenCalls: others.flatMap((h) => counted(h, 'tokenCalls')) };
  share.governor.absorb(all);
  const since = now - share.governor.budget.windowMs;
  return { ...all, sending: others.filter((holder) => holder.savedAt > since).length };
}

/** This holder's marks with the slots it holds, as the others must count them. */
function ownMarks(share: Share): OwnMarks {
  const own = share.governor.ledger();
  const now = Date.now();
  const slots = share.until > now ? Array.from({ length: share.slots }, () => share.until) : [];
  const claiming = Array.from({ length: share.claiming.slots }, () => share.claiming.until);
  return { savedAt: now, requests: [...own.requests, ...slots, ...claiming], errors: own.errors, tokenCalls: [...own.tokenCalls, ...share.pendingTokens] };
}

/** The book's answer within half a window (a second at least), or a rejection: a book that hangs is no book. */
function bounded<T>(share: Share, work: Promise<T>): Promise<T> {
  const ms = Math.max(1_000, share.governor.budget.windowMs / 2);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the IP budget's book gave no answer in ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

function bookUp(share: Share): boolean {
  return share.bookDownUntil <= Date.now();
}

function bookFailed(share: Share): void {
  share.bookDownUntil = Date.now() + share.governor.budget.windowMs;
}

async function publish(share: Share): Promise<void> {
  share.lastSync = Date.now();
  if (bookUp(share)) await bounded(share, share.book.write(ownMarks(share))).catch(() => bookFailed(share));
}

/** Reads the others into the governor's windows; on failure the last read stands. */
async function refresh(share: Share): Promise<void> {
  const others = bookUp(share) ? await bounded(share, share.book.read()).catch(() => (bookFailed(share), share.lastOthers)) : share.lastOthers;
  absorb(share, others);
}

/** The marks of `kind` the IP's window holds now, oldest first: this holder's (held slots included) and the others'. */
function marksInWindow(share: Share, others: IpLedger, kind: Kind): number[] {
  const from = Date.now() - ruleOf(share, kind).windowMs;
  return [...ownMarks(share)[kind], ...others[kind]].filter((mark) => mark > from).sort((a, b) => a - b);
}

/** One claim's decision, made against the others however they were read. */
interface Attempt {
  /** The claimed batch's lease end; 0 while none was written. */
  until: number;
  /** How long to wait before the next try when there was no room. */
  wait: number;
  /** Given up on (the book took too long): a decision asked for after that claims nothing. */
  abandoned: boolean;
}

/** The room a claim of `kind` finds with the others counted, or how long to wait when it is less than the claim's least. */
function roomFor(share: Share, kind: Kind, batch: number, others: HolderMarks[]): { room: number; sending: number } | { wait: number } {
  const { limit, windowMs, leaseMs } = ruleOf(share, kind);
  const seen = absorb(share, others);
  const before = marksInWindow(share, seen, kind);
  const room = limit - before.length;
  // A full window frees a slot at a time: a batch waits for a few (1/40 of the budget, 12 of 480),
  // so a holder paced by the window writes about every 250 ms rather than once per request.
  const least = kind === 'requests' ? Math.min(batch, Math.max(1, Math.floor(limit / 40))) : 1;
  // Read again when enough marks have left the window, or sooner: the others may give slots back.
  if (room < least) return { wait: Math.max(1, Math.min(leaseMs, Math.ceil((before[least - room - 1] ?? 0) + windowMs - Date.now()))) };
  return { room, sending: seen.sending };
}

/** Decides a claim of `kind` against the others: marks to write with the batch (or token slot) in them, or none when there is no room. */
function decider(share: Share, kind: Kind, batch: number, attempt: Attempt): (others: HolderMarks[]) => OwnMarks | undefined {
  return (others) => {
    if (attempt.abandoned) return undefined;
    const found = roomFor(share, kind, batch, others);
    if ('wait' in found) {
      attempt.wait = found.wait;
      return undefined;
    }
    attempt.until = Math.ceil(Date.now() + ruleOf(share, kind).leaseMs);
    // Each of the holders sending now asks for its share of the room: when all of them claim at the same moment, all fit.
    if (kind === 'requests') share.claiming = { slots: Math.min(batch, Math.max(1, Math.floor(found.room / (1 + found.sending)))), until: attempt.until };
    else share.pendingTokens.push(attempt.until);
    return ownMarks(share);
  };
}

/** Takes back what a claim's decision wrote into the share. */
function undo(share: Share, kind: Kind, attempt: Attempt): void {
  if (attempt.until === 0) return;
  if (kind === 'requests') share.claiming = { slots: 0, until: 0 };
  else share.pendingTokens.pop();
  attempt.until = 0;
}

/** What became of a claim: it holds, it found no room, or it met another holder's at the same moment. */
type Outcome = 'granted' | 'full' | 'clashed';

/** A claim through the book; rejects when the book fails or takes too long. */
async function claimThroughBook(share: Share, kind: Kind, batch: number, attempt: Attempt): Promise<Outcome> {
  const decide = decider(share, kind, batch, attempt);
  const { book } = share;
  if (book.claimExclusively) {
    // A try that finds no room on a plain read takes no lock.
    const found = roomFor(share, kind, batch, await bounded(share, book.read()));
    if ('wait' in found) {
      attempt.wait = found.wait;
      return 'full';
    }
    await bounded(share, book.claimExclusively(decide));
    return attempt.until > 0 ? 'granted' : 'full';
  }
  // Written before it is usable: no request may start on a batch the others have not been told of.
  const own = decide(await bounded(share, book.read()));
  if (own === undefined) return 'full';
  await bounded(share, book.write(own));
  const after = absorb(share, await bounded(share, book.read()));
  return marksInWindow(share, after, kind).length <= ruleOf(share, kind).limit ? 'granted' : 'clashed';
}

/** A claim: through the book while it answers; decided here against the others as last read when it does not. */
async function decideClaim(share: Share, kind: Kind, batch: number): Promise<{ outcome: Outcome; attempt: Attempt }> {
  if (bookUp(share)) {
    const attempt: Attempt = { until: 0, wait: 0, abandoned: false };
    try {
      return { outcome: await claimThroughBook(share, kind, batch, attempt), attempt };
    } catch {
      // The book may still ask this attempt for a decision: it claims nothing any more.
      attempt.abandoned = true;
      undo(share, kind, attempt);
      bookFailed(share);
    }
  }
  const attempt: Attempt = { until: 0, wait: 0, abandoned: false };
  const granted = decider(share, kind, batch, attempt)(share.lastOthers) !== undefined;
  return { outcome: granted ? 'granted' : 'full', attempt };
}

/** The next batch follows the use: twice as many when the last one ran out, half as many when it lapsed unused. */
function nextBatch(share: Share): number {
  if (share.until === 0) return share.batch;
  if (share.lapsed) return Math.max(1, Math.ceil(share.batch / 2));
  return Math.min(Math.max(1, Math.floor(share.governor.budget.requests / 4)), share.batch * 2);
}

/**
 * One try at a slot of `kind`, alone among this holder's claims: resolves to how long to wait
 * before the next try, or to nothing once the slot is taken.
 */
async function tryClaim(share: Share, kind: Kind): Promise<number | undefined> {
  if (kind === 'requests' && takeHeld(share)) return undefined;
  if (kind === 'requests' && share.slots > 0) [share.slots, share.lapsed] = [0, true];
  // Every waiter tries after the wait of the last try, which asked the book for them all.
  const early = share.nextTry[kind] - Date.now();
  if (early > 0) return early;
  const batch = nextBatch(share);
  const { outcome, attempt } = await decideClaim(share, kind, batch);
  if (outcome === 'full') return waitBeforeNextTry(share, kind, attempt.wait);
  const granted = outcome === 'granted';
  if (kind === 'requests') {
    if (granted) [share.slots, share.until, share.batch, share.lapsed] = [share.claiming.slots - 1, attempt.until, batch, false];
    share.claiming = { slots: 0, until: 0 };
  } else if (!granted) share.pendingTokens.pop();
  if (granted) {
    if (kind === 'requests') setTimeout(() => void queued(share, () => giveBackLapsed(share)), ruleOf(share, kind).leaseMs).unref();
    return undefined;
  }
  // Another holder claimed at the same moment: the batch is given back, and the next try comes a little later than its.
  await publish(share);
  return waitBeforeNextTry(share, kind, 1 + Math.floor(Math.random() * (share.governor.budget.windowMs / 80)));
}

function waitBeforeNextTry(share: Share, kind: Kind, ms: number): number {
  share.nextTry[kind] = Date.now() + ms;
  return ms;
}

/** Takes one slot of `kind`, claiming a batch of them when none is held; the waits between tries hold up no other claim. */
async function claim(share: Share, kind: Kind, signal?: AbortSignal): Promise<void> {
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

/**
 * Runs `step` after every step queued before it. A slot handed out is in the governor's own marks
 * once the request's start has run (a few promise turns later): each step waits for those turns,
 * or a claim or a write made at once would count a slot just used as neither held nor sent.
 */
function queued<T>(share: Share, step: () => Promise<T>): Promise<T> {
  const done = share.queue.then(async () => {
    await setImmediate();
    return step();
  });
  share.queue = done.catch(() => undefined);
  return done;
}

function gateOf(share: Share): IpGate {
  const syncMs = share.governor.budget.windowMs / 40;
  return {
    take(kind, signal) {
      if (kind === 'requests' && takeHeld(share)) {
        // Errors and the times of requests sent are written as the holder goes, not per request.
        if (share.lastSync < Date.now() - syncMs) {
          share.lastSync = Date.now();
          void queued(share, async () => {
            await publish(share);
            await refresh(share);
          });
        }
        return Promise.resolve();
      }
      return claim(share, kind, signal);
    },
    answered() {
      // The call now counts from its answer in this holder's own marks: its held slot is given back.
      share.pendingTokens.shift();
      share.pendingTokens = share.pendingTokens.filter((end) => end > Date.now() - share.governor.budget.tokenWindowMs);
      void queued(share, () => publish(share));
    },
  };
}

const shares = new WeakMap<Governor, Share>();

function newShare(governor: Governor, book: HolderBook): Share {
  const batch = Math.max(1, Math.floor(governor.budget.requests / 32));
  return { governor, book, slots: 0, until: 0, claiming: { slots: 0, until: 0 }, lapsed: false, batch, pendingTokens: [], lastSync: 0, nextTry: { requests: 0, tokenCalls: 0 }, lastOthers: [], bookDownUntil: 0, queue: Promise.resolve() };
}

/**
 * Shares the governor's windows through `book` from now on: it counts what the other holders sent
 * in the last windows before its first request, and tells them of its own as it sends. A governor
 * shared through another book before moves to this one.
 */
export async function shareThrough(governor: Governor, book: HolderBook): Promise<void> {
  const known = shares.get(governor);
  if (known !== undefined && known.book.key === book.key) return;
  const share = known ? Object.assign(known, { book, bookDownUntil: 0 }) : newShare(governor, book);
  if (known === undefined) {
    shares.set(governor, share);
    governor.share(gateOf(share));
  }
  await queued(share, () => refresh(share));
}

/**
 * Writes what the governor's windows hold now (a store closed), for the holders beside and after
 * it; the request slots it held are given back (the next request claims afresh).
 */
export function handOnShare(governor: Governor): Promise<void> {
  const share = shares.get(governor);
  if (share === undefined) return Promise.resolve();
  return queued(share, () => {
    share.slots = 0;
    return publish(share);
  });
}
