import { describe, expect, it } from 'vitest';
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

  it('slows down by a third after a 429, pauses until the next second window, holds, then climbs back slowly', () => {
    let state = createPacingState(3, 0);
    state = slowDown(state, 100);
    expect(state.rate).toBe(2);
    expect(reserveSlot(state, 100).startAt).toBe(1_100);
    // A very slow rate pauses one of its own intervals when that is longer.
    expect(reserveSlot(slowDown(createPacingState(0.3, 0), 0), 0).startAt).toBe(intervalMs(0.2));
    for (let i = 0; i < 60; i += 1) state = recover(state);
    expect(state.rate).toBe(2);
    state = recover(state);
    expect(state.rate).toBeGreaterThan(2);
    expect(state.rate).toBeLessThan(2.05);
    for (let i = 0; i < 50; i += 1) state = slowDown(state, 100);
    expect(state.rate).toBe(3 / 8);
    for (let i = 0; i < 1_000; i += 1) state = recover(state);
    expect(state.rate).toBe(3);
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
