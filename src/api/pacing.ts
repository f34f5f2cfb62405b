// Request pacing: one schedule per client, shared by every request it sends (reads, writes,
// retries), so a run stays under the account's shared per-second limit. Requests get start slots
// at least one interval apart (no bursts: the service counts per second and a burst straight after
// an idle second is what trips it). The client starts close to the limit (the default rate keeps
// only a small reserve) and adapts: a 429 means someone else uses the account too, so the rate
// drops by a third (leaving a neighbour of up to 1 req/s room at once) and nobody starts before the
// next second's window (or the `Retry-After` the service asked for) has come. The service says
// nothing of what is left (no remaining-count header), so a 429 is all we learn of a neighbour, and
// a neighbour is usually there for the whole run: the slowed rate stays put until a long quiet
// stretch has passed; only then does it climb, slowly, to find out whether the neighbour has gone.
// If it meets a 429 on the way up, the neighbour is still there: the rate goes straight back to the
// one that held through the quiet stretch (not a third below the probe), and waits another stretch.
// Answers to requests that left before a 429's pause do not slow the rate again: they are the same
// neighbour met once. The state machine is pure; the pacer around it only sleeps.

/** Slots are spaced a hair wider than 1/rate so network jitter cannot squeeze rate+1 starts into one second. */
const SPACING_MARGIN = 1.02;
/**
 * After a 429 nobody starts for at least this long, paced or not: the account counts per second,
 * so only the next second's window has room, and a quicker retry is one more error toward the
 * per-IP rule (300 errors in 10 s) — never a tight loop.
 */
const THROTTLE_PAUSE_MS = 1000;
/** The lowest the rate falls to after repeated 429s, as a fraction of the configured rate. */
const MIN_RATE_FRACTION = 1 / 8;
/** What a 429 leaves of the current rate. */
const DECREASE_FACTOR = 2 / 3;
/**
 * Successes without a 429 before a slowed rate may climb again (about 5 minutes at 2 req/s). A
 * neighbour on an account is mostly another integration that runs all day: one that stays costs a
 * probing 429 per stretch (under 0.2% of requests); one that leaves keeps erpsync at two thirds of
 * its pace for one stretch at most (~100 s more for those 600 requests).
 */
const QUIET_SUCCESSES = 600;
/** Each success after the quiet stretch adds this fraction of the configured rate, up to the configured rate. */
const RECOVERY_STEP_FRACTION = 1 / 300;

export interface PacingState {
  /** Configured requests per second; Infinity = unpaced. */
  readonly nominalRate: number;
  /** Current requests per second (lower than nominal after a 429). */
  readonly rate: number;
  /** Earliest start time (ms, monotonic clock) of the next request. */
  readonly nextSlotAt: number;
  /** Successes still to send at the slowed rate before it may climb. */
  readonly quietLeft: number;
  /** The slowed rate that held through a whole quiet stretch since the last 429 (0 = none): where a probe that meets a 429 returns. */
  readonly provenRate: number;
  /** Until then nobody sent after the last 429 has started: a 429 before it answers a request sent earlier. */
  readonly pausedUntil: number;
}

export function createPacingState(rate: number, now: number): PacingState {
  return { nominalRate: rate, rate, nextSlotAt: now, quietLeft: 0, provenRate: 0, pausedUntil: now };
}

export function intervalMs(rate: number): number {
  return Number.isFinite(rate) ? (1000 / rate) * SPACING_MARGIN : 0;
}

/** Reserves the next start slot: returns when to start and the state after the reservation. */
export function reserveSlot(state: PacingState, now: number): { state: PacingState; startAt: number } {
  const startAt = Math.max(now, state.nextSlotAt);
  return { state: { ...state, nextSlotAt: startAt + intervalMs(state.rate) }, startAt };
}

/**
 * A 429 arrived: slow down (to a floor) and start nobody before one interval of the new rate, and
 * the `Retry-After` the service named — or, when it named none, the next second's window — has
 * passed: its window was full, so it needs time to drain. A probe above a proven rate goes back to
 * it; otherwise the rate drops by a third and nothing is proven any more (the neighbour grew).
 */
export function slowDown(state: PacingState, now: number, retryAfterMs?: number): PacingState {
  const pause = retryAfterMs ?? THROTTLE_PAUSE_MS;
  const pausedFrom = (rate: number) => Math.max(state.nextSlotAt, now + Math.max(intervalMs(rate), pause));
  if (!Number.isFinite(state.nominalRate)) return { ...state, nextSlotAt: Math.max(state.nextSlotAt, now + pause) };
  // Sent before the last 429's pause: the rate has already fallen for this neighbour; only wait.
  if (now < state.pausedUntil) {
    const nextSlotAt = pausedFrom(state.rate);
    return { ...state, nextSlotAt, pausedUntil: nextSlotAt };
  }
  const probing = state.provenRate > 0 && state.rate > state.provenRate;
  const rate = probing ? state.provenRate : Math.max(state.nominalRate * MIN_RATE_FRACTION, state.rate * DECREASE_FACTOR);
  const nextSlotAt = pausedFrom(rate);
  return { ...state, rate, quietLeft: QUIET_SUCCESSES, provenRate: probing ? state.provenRate : 0, nextSlotAt, pausedUntil: nextSlotAt };
}

/**
 * A request went through without a 429: after a quiet stretch the slowed rate is proven and the
 * climb back towards the configured rate begins; reaching it means the neighbour has gone.
 */
export function recover(state: PacingState): PacingState {
  if (state.rate >= state.nominalRate) return state;
  if (state.quietLeft > 1) return { ...state, quietLeft: state.quietLeft - 1 };
  if (state.quietLeft === 1) return { ...state, quietLeft: 0, provenRate: state.rate };
  const rate = Math.min(state.nominalRate, state.rate + state.nominalRate * RECOVERY_STEP_FRACTION);
  return { ...state, rate, provenRate: rate >= state.nominalRate ? 0 : state.provenRate };
}

export interface Pacer {
  /** Resolves at this request's start slot; rejects with the signal's reason when aborted. */
  acquire(signal?: AbortSignal): Promise<void>;
  /** A 429 arrived; `retryAfterMs` is the wait the service asked for, when it named one. */
  onThrottled(retryAfterMs?: number): void;
  onSuccess(): void;
  currentRate(): number;
}

export function createPacer(rate: number, now: () => number = () => performance.now()): Pacer {
  let state = createPacingState(rate, now());
  // Bumped by each 429: a request still waiting for a slot reserved at the old pace takes a new
  // one, so nobody starts inside the pause the 429 called for (concurrent writes and reads
  // reserve their slots ahead, and would otherwise meet a second 429 right after the first).
  let throttles = 0;
  return {
    async acquire(signal) {
      for (;;) {
        const seen = throttles;
        const reserved = reserveSlot(state, now());
        state = reserved.state;
        // Timers may fire a little early against the monotonic clock; re-check until the slot is reached.
        for (let wait = reserved.startAt - now(); wait > 0 && seen === throttles; wait = reserved.startAt - now()) {
          await sleep(Math.ceil(wait), signal);
        }
        signal?.throwIfAborted();
        if (seen === throttles) return;
      }
    },
    onThrottled(retryAfterMs) {
      state = slowDown(state, now(), retryAfterMs);
      throttles += 1;
    },
    onSuccess() {
      state = recover(state);
    },
    currentRate: () => state.rate,
  };
}

/** setTimeout as a promise that an AbortSignal cancels. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
