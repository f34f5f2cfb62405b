import { describe, expect, it } from 'vitest';
import { countDailyRequest, createBucket, createDailyCounter, setBucketRate, takeToken } from './rate-limit.js';

describe('token bucket', () => {
  it('allows one second of requests at once, then refills continuously', () => {
    const bucket = createBucket(3, 0);
    expect([takeToken(bucket, 0), takeToken(bucket, 0), takeToken(bucket, 0), takeToken(bucket, 0)]).toEqual([true, true, true, false]);
    expect(takeToken(bucket, 300)).toBe(false);
    expect(takeToken(bucket, 340)).toBe(true);
    expect(takeToken(bucket, 340)).toBe(false);
  });

  it('is off at 0 and can change rate', () => {
    const bucket = createBucket(0, 0);
    expect(Array.from({ length: 100 }, () => takeToken(bucket, 0)).every(Boolean)).toBe(true);
    setBucketRate(bucket, 1, 0);
    expect(takeToken(bucket, 0)).toBe(false);
    expect(takeToken(bucket, 1000)).toBe(true);
  });
});

describe('daily counter', () => {
  it('turns the day at midnight in Brasília (03:00 UTC)', () => {
    const beforeMidnight = Date.UTC(2026, 0, 6, 2, 59);
    const counter = createDailyCounter(1, beforeMidnight);
    expect(countDailyRequest(counter, beforeMidnight)).toBe(true);
    expect(countDailyRequest(counter, beforeMidnight + 30_000)).toBe(false);
    expect(countDailyRequest(counter, Date.UTC(2026, 0, 6, 3, 0))).toBe(true);
  });
});
