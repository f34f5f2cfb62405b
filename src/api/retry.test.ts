import { describe, expect, it } from 'vitest';
import type { HttpMethod } from './errors.js';
import { backoffDelay, classifyStatus, defaultRetryPolicy, judgeFailure, mayRetry, parseRetryAfter } from './retry.js';
import type { FailureKind } from './retry.js';

describe('retry decisions', () => {
  const idempotent: HttpMethod[] = ['GET', 'PUT', 'PATCH', 'DELETE'];

  it('retries idempotent methods on 429, gateway errors, lost connections and timeouts, and reads on 500', () => {
    for (const method of idempotent) {
      for (const status of [429, 502, 503, 504]) expect(judgeFailure(method, classifyStatus(status))).toBe('retry');
      for (const failure of ['connect-failed', 'connection-lost', 'timeout'] as FailureKind[]) expect(judgeFailure(method, failure)).toBe('retry');
      for (const status of [400, 401, 403, 404, 409, 422]) expect(judgeFailure(method, classifyStatus(status))).toBe('fail');
      expect(judgeFailure(method, classifyStatus(500))).toBe(method === 'GET' ? 'retry' : 'fail');
    }
  });

  it('never retries a POST that may have reached the server', () => {
    expect(judgeFailure('POST', classifyStatus(429))).toBe('retry');
    expect(judgeFailure('POST', 'connect-failed')).toBe('retry');
    for (const status of [500, 502, 503, 504]) expect(judgeFailure('POST', classifyStatus(status))).toBe('outcome-unknown');
    expect(judgeFailure('POST', 'connection-lost')).toBe('outcome-unknown');
    expect(judgeFailure('POST', 'timeout')).toBe('outcome-unknown');
    expect(judgeFailure('POST', classifyStatus(400))).toBe('fail');
  });

  it('backs off exponentially with bounded jitter', () => {
    const policy = { ...defaultRetryPolicy, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(backoffDelay(1, policy, () => 0)).toBe(50);
    expect(backoffDelay(1, policy, () => 0.999)).toBe(100);
    expect(backoffDelay(3, policy, () => 0)).toBe(200);
    expect(backoffDelay(10, policy, () => 0.5)).toBe(750);
  });

  it('bounds attempts and total time', () => {
    const policy = { ...defaultRetryPolicy, maxAttempts: 3, maxElapsedMs: 1000 };
    expect(mayRetry(2, 100, 100, policy)).toBe(true);
    expect(mayRetry(3, 100, 100, policy)).toBe(false);
    expect(mayRetry(1, 950, 100, policy)).toBe(false);
  });

  it('reads Retry-After in seconds or as a date', () => {
    expect(parseRetryAfter('2', 0)).toBe(2000);
    expect(parseRetryAfter(new Date(5000).toUTCString(), 1000)).toBe(4000);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    expect(parseRetryAfter(undefined, 0)).toBeUndefined();
  });
});
