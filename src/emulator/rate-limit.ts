// The account's request budget: a token bucket for the per-second limit (capacity = one second's
// worth, refilled continuously) and a counter for the daily limit. Pure state + functions; the
// caller passes the clock so tests stay deterministic.

export interface TokenBucket {
  perSecond: number;
  tokens: number;
  updatedAt: number;
}

export function createBucket(perSecond: number, at: number): TokenBucket {
  return { perSecond, tokens: perSecond, updatedAt: at };
}

/** Takes one token when available; a refused request does not consume one. Off when perSecond is 0. */
export function takeToken(bucket: TokenBucket, at: number): boolean {
  if (bucket.perSecond <= 0) return true;
  refill(bucket, at);
  if (bucket.tokens < 1) return false;
  bucket.tokens -= 1;
  return true;
}

export function setBucketRate(bucket: TokenBucket, perSecond: number, at: number): void {
  refill(bucket, at);
  bucket.perSecond = perSecond;
  bucket.tokens = Math.min(bucket.tokens, perSecond);
}

function refill(bucket: TokenBucket, at: number): void {
  const elapsed = Math.max(0, at - bucket.updatedAt) / 1000;
  bucket.tokens = Math.min(bucket.perSecond, bucket.tokens + elapsed * bucket.perSecond);
  bucket.updatedAt = at;
}

export interface DailyCounter {
  limit: number;
  day: number;
  count: number;
}

const dayMs = 86_400_000;
// The account lives in Brasília time (UTC-3, no daylight saving since 2019): the day turns there.
const brasiliaOffsetMs = 3 * 3_600_000;

function dayOf(at: number): number {
  return Math.floor((at - brasiliaOffsetMs) / dayMs);
}

export function createDailyCounter(limit: number, at: number): DailyCounter {
  return { limit, day: dayOf(at), count: 0 };
}

/** Requests counted on the day of `at` (a new day starts at 0). */
export function requestsCountedToday(counter: DailyCounter, at: number): number {
  turnDay(counter, at);
  return counter.count;
}

function turnDay(counter: DailyCounter, at: number): void {
  const day = dayOf(at);
  if (day === counter.day) return;
  counter.day = day;
  counter.count = 0;
}

/** Counts one request against the day; false when the day's budget is already spent. */
export function countDailyRequest(counter: DailyCounter, at: number): boolean {
  turnDay(counter, at);
  if (counter.limit > 0 && counter.count >= counter.limit) return false;
  counter.count += 1;
  return true;
}
