// The running tally of an apply, folded from the ApplyEvent stream, and the words every apply
// reporter shares (outcome lines, the summary, durations, rates). Pure: the caller passes the
// clock's reading with each event. It prints nothing and knows nothing of terminals.
import { printable } from '../model/printable.js';
import type { Change } from '../model/plan.js';
import type { ApplyEvent, ChangeOutcome } from '../model/events.js';

/** What has happened so far, in order: a wave began, or a change finished. */
export type ProgressEntry =
  | { type: 'wave'; wave: number; changes: number }
  | { type: 'change'; change: Change; outcome: ChangeOutcome };

export interface ApplyProgress {
  /** Changes in the plan, blocked ones included. */
  total: number;
  /** Waves in the plan. */
  waves: number;
  wavesStarted: number;
  /** The plan's number of the wave running now. */
  wave?: number;
  /** Changes started and not finished, in start order. */
  inFlight: Change[];
  applied: number;
  failed: number;
  skipped: number;
  blocked: number;
  /** HTTP requests this apply has sent so far. */
  requests: number;
  interrupted: boolean;
  startedAt?: number;
  endedAt?: number;
  entries: ProgressEntry[];
}

export interface ProgressMeasures {
  done: number;
  elapsedMs: number;
  /** Undefined until a moment has passed and a request was sent. */
  requestsPerSecond?: number;
  /** Undefined until one change has finished, and once all have. */
  remainingMs?: number;
}

export function createProgress(): ApplyProgress {
  return { total: 0, waves: 0, wavesStarted: 0, inFlight: [], applied: 0, failed: 0, skipped: 0, blocked: 0, requests: 0, interrupted: false, entries: [] };
}

export function advanceProgress(progress: ApplyProgress, event: ApplyEvent, now: number): ApplyProgress {
  switch (event.type) {
    case 'apply-start':
      return { ...progress, total: event.changes, waves: event.waves, startedAt: now };
    case 'wave-start':
      return {
        ...progress,
        wave: event.wave,
        wavesStarted: progress.wavesStarted + 1,
        entries: [...progress.entries, { type: 'wave', wave: event.wave, changes: event.changes }],
      };
    case 'change-start':
      return { ...progress, inFlight: [...progress.inFlight, event.change] };
    case 'change-end': {
      const status = event.outcome.status;
      return {
        ...progress,
        [status]: progress[status] + 1,
        requests: event.requests,
        inFlight: progress.inFlight.filter((c) => c.id !== event.change.id),
        interrupted: progress.interrupted || (status === 'skipped' && event.outcome.because === 'interrupted'),
        entries: [...progress.entries, { type: 'change', change: event.change, outcome: event.outcome }],
      };
    }
    case 'apply-end':
      return { ...progress, inFlight: [], requests: event.requests, interrupted: event.interrupted, endedAt: now };
  }
}

function countDone(progress: ApplyProgress): number {
  return progress.applied + progress.failed + progress.skipped + progress.blocked;
}

export function measureProgress(progress: ApplyProgress, now: number): ProgressMeasures {
  const done = countDone(progress);
  if (progress.startedAt === undefined) return { done, elapsedMs: 0 };
  const elapsedMs = Math.max(0, (progress.endedAt ?? now) - progress.startedAt);
  const measures: ProgressMeasures = { done, elapsedMs };
  if (elapsedMs > 0 && progress.requests > 0) measures.requestsPerSecond = (progress.requests * 1000) / elapsedMs;
  // The pace so far predicts the rest: changes cost about the same number of requests each.
  if (done > 0 && done < progress.total && progress.endedAt === undefined) measures.remainingMs = (elapsedMs / done) * (progress.total - done);
  return measures;
}

/** `0:07`, `1:05`, `1:02:03`: wide enough for any apply, stable in width while it runs. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

function formatRate(perSecond: number | undefined): string {
  return perSecond === undefined ? '– req/s' : `${perSecond.toFixed(1)} req/s`;
}

export function describeSubject(change: Change): string {
  return `${change.kind} "${printable(change.key)}" ${change.action}`;
}

/** One line per finished change, the same words in plain output and in the terminal UI. */
export function describeOutcome(change: Change, outcome: ChangeOutcome): string {
  const subject = describeSubject(change);
  switch (outcome.status) {
    case 'applied':
      return `ok      ${subject}${outcome.id !== undefined ? ` (id ${outcome.id}${outcome.adopted ? ', found after an unknown outcome' : ''})` : ''}`;
    case 'failed':
      return `failed  ${subject}: ${printable(outcome.error)}`;
    case 'skipped':
      return `skipped ${subject}: ${printable(outcome.because)}`;
    case 'blocked':
      return `blocked ${subject}: ${printable(outcome.because)}`;
  }
}

export function summarizeApply(counts: Pick<ApplyProgress, 'applied' | 'failed' | 'skipped' | 'blocked'>): string {
  return `Apply: ${counts.applied} applied, ${counts.failed} failed, ${counts.skipped} skipped, ${counts.blocked} blocked.`;
}

export function describeCost(progress: ApplyProgress, now: number): string {
  const { elapsedMs, requestsPerSecond } = measureProgress(progress, now);
  return `${progress.requests} request(s) in ${formatDuration(elapsedMs)} (${formatRate(requestsPerSecond)}).`;
}

export const interruptedNote = 'Interrupted: the changes not started were skipped; run apply again to finish.';

/** The status line of a running apply: wave, done and failed counts, elapsed, request rate, time left. */
export function describeProgressLine(progress: ApplyProgress, now: number): string {
  const { done, elapsedMs, requestsPerSecond, remainingMs } = measureProgress(progress, now);
  return [
    `wave ${progress.wavesStarted}/${progress.waves}`,
    `${done}/${progress.total} done`,
    `${progress.failed} failed`,
    `${formatDuration(elapsedMs)} elapsed`,
    formatRate(requestsPerSecond),
    remainingMs === undefined ? 'time left –' : `about ${formatDuration(remainingMs)} left`,
  ].join(' · ');
}
