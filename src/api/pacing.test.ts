import { describe, expect, it } from 'vitest';
import { createBucket, takeToken } from '../emulator/rate-limit.js';
import { createPacer, createPacingState, intervalMs, recover, reserveSlot, sleep, slowDown } from './pacing.js';

describe('pacing', () => {
  it('spaces slots at least 1/rate apart, never in a burst', () => {
    let state = createPacingState(4, 0);
    const starts: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const r = reserveSlot(state, 0);
      state = r.state;
      starts.push(r.startAt);
    }
    for (let i = 1; i < starts.length; i += 1) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(250);
    // An idle gap does not bank credit for a burst afterwards.
    const later = reserveSlot(state, 10_000);
    const next = reserveSlot(later.state, 10_000);
    expect(later.startAt).toBe(10_000);
    expect(next.startAt - later.startAt).toBeGreaterThanOrEqual(250);
  });

  it('never packs more than rate starts into any one-second window', () => {
    let state = createPacingState(50, 0);
    const starts: number[] = [];
    for (let i = 0; i < 200; i += 1) {
      const r = reserveSlot(state, i * 3);
      state = r.state;
      starts.push(r.startAt);
    }
    for (const t of starts) expect(starts.filter((s) => s >= t && s < t + 1000).length).toBeLessThanOrEqual(50);
  });

  it('slows down by a third after a 429, pauses until the next second window, holds for a quiet stretch, then climbs back slowly', () => {
    let state = createPacingState(3, 0);
    state = slowDown(state, 100);
    expect(state.rate).toBe(2);
    expect(reserveSlot(state, 100).startAt).toBe(1_100);
    // A very slow rate pauses one of its own intervals when that is longer.
    expect(reserveSlot(slowDown(createPacingState(0.3, 0), 0), 0).startAt).toBe(intervalMs(0.2));
    for (let i = 0; i < 600; i += 1) state = recover(state);
    expect(state.rate).toBe(2);
    state = recover(state);
    expect(state.rate).toBeGreaterThan(2);
    expect(state.rate).toBeLessThan(2.05);
    // 429s a pause apart each slow it by a third, down to the floor.
    for (let i = 1; i <= 50; i += 1) state = slowDown(state, i * 10_000);
    expect(state.rate).toBe(3 / 8);
    for (let i = 0; i < 1_000; i += 1) state = recover(state);
    expect(state.rate).toBe(3);
  });

  it('slows once for the 429s of requests sent before the pause, however many arrive', () => {
    let state = slowDown(createPacingState(3, 0), 100);
    // Sent before the first 429's pause began: the same neighbour, met once.
    state = slowDown(state, 400);
    state = slowDown(state, 900);
    expect(state.rate).toBe(2);
    // Each still pushes the next start behind its own second's window.
    expect(reserveSlot(state, 900).startAt).toBe(1_900);
    // A request sent after the pause that meets a 429 is news: a third slower again.
    expect(slowDown(state, 2_500).rate).toBeCloseTo(4 / 3);
  });

  it('goes back to the rate that held through the quiet stretch when a probe above it meets a 429', () => {
    let state = slowDown(createPacingState(3, 0), 0);
    for (let i = 0; i < 610; i += 1) state = recover(state);
    expect(state.rate).toBeGreaterThan(2);
    state = slowDown(state, 10_000);
    // Not a third below the probe: the neighbour that left 2 req/s free is still there, no bigger.
    expect(state.rate).toBe(2);
    for (let i = 0; i < 600; i += 1) state = recover(state);
    expect(state.rate).toBe(2);
    // A 429 at the proven rate itself: the neighbour grew, so a third slower and nothing proven.
    state = slowDown(state, 20_000);
    expect(state.rate).toBeCloseTo(4 / 3);
    expect(state.provenRate).toBe(0);
  });

  it('moves requests already waiting for a slot behind the pause a 429 calls for', async () => {
    const pacer = createPacer(20);
    await pacer.acquire();
    const started: number[] = [];
    const waiting = [pacer.acquire(), pacer.acquire()].map((p) => p.then(() => started.push(performance.now())));
    const throttledAt = performance.now();
    pacer.onThrottled(1_300);
    await Promise.all(waiting);
    // Reserved 50 and 100 ms ahead at the old pace, both now start after the 1.3 s asked for.
    for (const at of started) expect(at - throttledAt).toBeGreaterThanOrEqual(1_299);
  });

  describe('beside a neighbour at 1 req/s on an account of 3 req/s (the emulator\'s token bucket, a fake clock)', () => {
    /** Sends `requests` paced at 2.9 req/s; the neighbour sends once a second until `neighbourLeavesAt`. */
    function runBesideNeighbour(requests: number, neighbourLeavesAt = Number.POSITIVE_INFINITY) {
      const bucket = createBucket(3, 0);
      let state = createPacingState(2.9, 0);
      let neighbourAt = 500;
      const throttledAt: number[] = [];
      let at = 0;
      for (let sent = 0; sent < requests; ) {
        const slot = reserveSlot(state, at);
        state = slot.state;
        at = slot.startAt;
        for (; neighbourAt <= at && neighbourAt < neighbourLeavesAt; neighbourAt += 1_000) takeToken(bucket, neighbourAt);
        sent += 1;
        if (takeToken(bucket, at)) state = recover(state);
        else {
          throttledAt.push(sent);
          state = slowDown(state, at);
        }
      }
      return { throttledAt, wallMs: at, rate: state.rate };
    }

    it('meets it once in a 300-write apply and about once per quiet stretch after, instead of again within a minute', () => {
      const apply = runBesideNeighbour(450);
      expect(apply.throttledAt).toHaveLength(1);
      const long = runBesideNeighbour(3_000);
      expect(long.throttledAt.length / 3_000).toBeLessThan(0.01);
      // The probes are a quiet stretch apart, never two within one.
      for (let i = 1; i < long.throttledAt.length; i += 1) expect(long.throttledAt[i]! - long.throttledAt[i - 1]!).toBeGreaterThan(600);
      // Close to the 2 req/s left free: the pace of the requests as a whole.
      expect(3_000 / (long.wallMs / 1_000)).toBeGreaterThan(1.85);
    });

    it('climbs back to the configured rate once the neighbour has left', () => {
      const run = runBesideNeighbour(1_500, 60_000);
      expect(run.throttledAt).toHaveLength(1);
      expect(run.rate).toBe(2.9);
    });
  });

  it('waits as long as a Retry-After asks before anyone starts again', () => {
    const state = slowDown(createPacingState(2.5, 0), 100, 5_000);
    expect(reserveSlot(state, 100).startAt).toBe(5_100);
  });

  it('lets an unlimited rate through at once', () => {
    const state = createPacingState(Number.POSITIVE_INFINITY, 5);
    expect(intervalMs(state.rate)).toBe(0);
    expect(reserveSlot(reserveSlot(state, 5).state, 5).startAt).toBe(5);
    // Unpaced or not, a 429 without Retry-After waits for the next second's window: never a tight loop.
    expect(reserveSlot(slowDown(state, 5), 5).startAt).toBe(1_005);
    // A Retry-After the service named is its word, even 0: the pause is that long, not a second.
    expect(reserveSlot(slowDown(state, 5, 0), 5).startAt).toBe(5);
  });

  it('sleeps until aborted', async () => {
    const controller = new AbortController();
    const pending = sleep(60_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });
});
