// Request pacing: one schedule per client, shared by every request it sends (reads, writes,
// retries), so a run stays under the account's shared per-second limit. Requests get start slots
// at least one interval apart (no bursts: the service counts per second and a burst straight after
// an idle second is what trips it). The client starts close to the limit (the default rate keeps
// only a small reserve) and adapts: a 429 means someone else uses the account too, so the rate
// drops by a third (leaving a neighbour of up to 1 req/s room at once: a smaller step meets a
// second 429 before it gets there), nobody starts before the next second's window (or the
// `Retry-After` the service asked for) has come, the slowed rate is held for a while, and only then does it climb back
// in small steps — slowly, because a second client that caused the 429 is likely still there and
// a fast climb would meet it again within seconds. The state machine is pure; the pacer around it
// only sleeps.

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
/** Successes sent at the slowed rate before it starts to climb again (about half a minute). */
const HOLD_SUCCESSES = 60;
/** Each later success adds this fraction of the configured rate, up to the configured rate. */
const RECOVERY_STEP_FRACTION = 1 / 300;

export interface PacingState {
  /** Configured requests per second; Infinity = unpaced. */
  readonly nominalRate: number;
  /** Current requests per second (lower than nominal after a 429). */
  readonly rate: number;
  /** Earliest start time (ms, monotonic clock) of the next request. */
  readonly nextSlotAt: number;
  /** Successes still to send at the slowed rate before it climbs. */
  readonly holdLeft: number;
}

export function createPacingState(rate: number, now: number): PacingState {
  return { nominalRate: rate, rate, nextSlotAt: now, holdLeft: 0 };
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
 * passed: its window was full, so it needs time to drain.
 */
export function slowDown(state: PacingState, now: number, retryAfterMs?: number): PacingState {
  const pause = retryAfterMs ?? THROTTLE_PAUSE_MS;
  if (!Number.isFinite(state.nominalRate)) return { ...state, nextSlotAt: Math.max(state.nextSlotAt, now + pause) };
  const rate = Math.max(state.nominalRate * MIN_RATE_FRACTION, state.rate * DECREASE_FACTOR);
  return { ...state, rate, holdLeft: HOLD_SUCCESSES, nextSlotAt: Math.max(state.nextSlotAt, now + Math.max(intervalMs(rate), pause)) };
}

/** A request went through without a 429: after the hold, climb back towards the configured rate. */
export function recover(state: PacingState): PacingState {
  if (state.rate >= state.nominalRate) return state;
  if (state.holdLeft > 0) return { ...state, holdLeft: state.holdLeft - 1 };
  return { ...state, rate: Math.min(state.nominalRate, state.rate + state.nominalRate * RECOVERY_STEP_FRACTION) };
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
