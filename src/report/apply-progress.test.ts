// The apply tally and its words: counts, rate, time left, durations, outcome lines.
import { describe, expect, it } from 'vitest';
import { makeChange } from '../../test/ui/support/plans.js';
import type { ApplyProgress } from './apply-progress.js';
import { advanceProgress, createProgress, describeOutcome, describeProgressLine, formatDuration, measureProgress, summarizeApply } from './apply-progress.js';
import type { ApplyEvent } from '../model/events.js';

const a = makeChange('create', 'A', 1);
const b = makeChange('create', 'B', 1);
const c = makeChange('delete', 'C', 2, { liveId: 9 });

function fold(steps: [number, ApplyEvent][]): ApplyProgress {
  return steps.reduce((progress, [at, event]) => advanceProgress(progress, event, at), createProgress());
}

describe('advanceProgress', () => {
  it('tracks waves, changes in flight and outcome counts', () => {
    const progress = fold([
      [100, { type: 'apply-start', changes: 3, waves: 2 }],
      [100, { type: 'wave-start', wave: 1, changes: 2 }],
      [100, { type: 'change-start', change: a }],
      [100, { type: 'change-start', change: b }],
      [900, { type: 'change-end', change: b, outcome: { status: 'failed', error: 'boom', code: 'API_ERROR' }, requests: 2 }],
    ]);
    expect(progress).toMatchObject({ total: 3, waves: 2, wavesStarted: 1, wave: 1, applied: 0, failed: 1, requests: 2, startedAt: 100 });
    expect(progress.inFlight.map((x) => x.key)).toEqual(['A']);
    expect(progress.entries.map((e) => e.type)).toEqual(['wave', 'change']);
  });

  it('marks the run interrupted when changes are skipped for it, and stops the clock at the end', () => {
    const progress = fold([
      [0, { type: 'apply-start', changes: 2, waves: 1 }],
      [0, { type: 'wave-start', wave: 1, changes: 2 }],
      [1_000, { type: 'change-end', change: a, outcome: { status: 'applied', id: 1 }, requests: 1 }],
      [1_000, { type: 'change-end', change: b, outcome: { status: 'skipped', because: 'interrupted' }, requests: 1 }],
      [2_000, { type: 'apply-end', applied: 1, failed: 0, skipped: 1, blocked: 0, interrupted: true, requests: 1 }],
    ]);
    expect(progress.interrupted).toBe(true);
    expect(measureProgress(progress, 99_000)).toEqual({ done: 2, elapsedMs: 2_000, requestsPerSecond: 0.5 });
  });
});

describe('measureProgress', () => {
  it('has no rate or estimate before anything happened', () => {
    expect(measureProgress(createProgress(), 5)).toEqual({ done: 0, elapsedMs: 0 });
    const started = fold([[0, { type: 'apply-start', changes: 4, waves: 1 }]]);
    expect(measureProgress(started, 1_000)).toEqual({ done: 0, elapsedMs: 1_000 });
  });

  it('projects the time left from the pace so far', () => {
    const progress = fold([
      [0, { type: 'apply-start', changes: 4, waves: 1 }],
      [3_000, { type: 'change-end', change: a, outcome: { status: 'applied' }, requests: 6 }],
    ]);
    expect(measureProgress(progress, 4_000)).toEqual({ done: 1, elapsedMs: 4_000, requestsPerSecond: 1.5, remainingMs: 12_000 });
    expect(describeProgressLine(progress, 4_000)).toBe('wave 0/1 · 1/4 done · 0 failed · 0:04 elapsed · 1.5 req/s · about 0:12 left');
  });
});

describe('words', () => {
  it('formats durations at a stable width', () => {
    expect([0, 499, 7_000, 65_000, 3_723_000].map(formatDuration)).toEqual(['0:00', '0:00', '0:07', '1:05', '1:02:03']);
  });

  it('describes each outcome', () => {
    expect(describeOutcome(a, { status: 'applied', id: 4 })).toBe('ok      gruposProdutos "A" create (id 4)');
    expect(describeOutcome(a, { status: 'applied', id: 4, adopted: true })).toBe('ok      gruposProdutos "A" create (id 4, found after an unknown outcome)');
    expect(describeOutcome(c, { status: 'applied' })).toBe('ok      gruposProdutos "C" delete');
    expect(describeOutcome(a, { status: 'failed', error: 'HTTP 400', code: 'API_ERROR' })).toBe('failed  gruposProdutos "A" create: HTTP 400');
    expect(describeOutcome(b, { status: 'skipped', because: 'interrupted' })).toBe('skipped gruposProdutos "B" create: interrupted');
    expect(describeOutcome(b, { status: 'blocked', because: 'built-in' })).toBe('blocked gruposProdutos "B" create: built-in');
    expect(summarizeApply({ applied: 1, failed: 2, skipped: 3, blocked: 4 })).toBe('Apply: 1 applied, 2 failed, 3 skipped, 4 blocked.');
  });
});
