// Which failed attempts may be sent again, and after how long. Pure decisions; the client sleeps.
// Idempotent methods are retried on rate limiting, gateway errors, lost connections and timeouts;
// a 500 only for reads (a write the server failed half-way is reported, not repeated).
// POST is retried only when the request provably never reached the application (the connection
// could not be opened, or a 429 refused it); otherwise its outcome is unknown and the caller decides.
import type { HttpMethod } from './errors.js';

export type FailureKind =
  | 'rate-limited' // 429, JSON or HTML: refused before processing
  | 'unavailable' // 502, 503, 504
  | 'server-error' // 500 and other 5xx: the server tried and failed
  | 'rejected' // any other 4xx/3xx: retrying cannot help
  | 'connect-failed' // connection refused / not established: nothing was sent
  | 'connection-lost' // reset or closed after the request went out
  | 'timeout'; // headers or body did not arrive in time

export type RetryVerdict = 'retry' | 'fail' | 'outcome-unknown';

export interface RetryPolicy {
  maxAttempts: number;
  maxElapsedMs: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** The longest wait a server may impose (`Retry-After`); one that asks for more fails the request. */
  maxWaitMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 5,
  maxElapsedMs: 60_000,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxWaitMs: 60_000,
};

export function classifyStatus(status: number): FailureKind {
  if (status === 429) return 'rate-limited';
  if (status === 502 || status === 503 || status === 504) return 'unavailable';
  if (status >= 500) return 'server-error';
  return 'rejected';
}

export function judgeFailure(method: HttpMethod, failure: FailureKind): RetryVerdict {
  if (failure === 'rejected') return 'fail';
  if (failure === 'rate-limited' || failure === 'connect-failed') return 'retry';
  if (method === 'POST') return 'outcome-unknown';
  // A read the server failed on is safe to repeat, and one failed list page must not sink a plan.
  if (failure === 'server-error') return method === 'GET' ? 'retry' : 'fail';
  return 'retry';
}

/**
 * Delay before retry number `retry` (1 = first retry): exponential, capped, with "equal jitter"
 * (half fixed, half random) so concurrent clients spread out but never retry instantly.
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.round(exponential / 2 + (exponential / 2) * random());
}

/** A `Retry-After` header in seconds or as an HTTP date, as milliseconds from `now`. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Whether one more attempt fits the policy's bounds; `delayMs` is the wait before it. */
export function mayRetry(attempt: number, elapsedMs: number, delayMs: number, policy: RetryPolicy): boolean {
  return attempt < policy.maxAttempts && elapsedMs + delayMs <= policy.maxElapsedMs;
}
