// Counting what sliding windows held, for tests of the per-IP rules: the most of a list of times
// (ms) that fall within any one window, and the request marks a governor wrote for the others.
import type { Governor } from '../../src/api/index.js';

/** Marks are whole wall-clock ms as they cross processes: a window is judged this much short. */
export const crossProcessSlackMs = 2;

/**
 * The most `times` within any `windowMs`, less `slackMs` (for marks rounded to whole milliseconds
 * as they cross processes: a window is then judged a few ms short).
 */
export function mostInWindow(times: readonly number[], windowMs: number, slackMs = 0): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; last < sorted.length; last += 1) {
    while ((sorted[last] ?? 0) - (sorted[first] ?? 0) >= windowMs - slackMs) first += 1;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

/**
 * Every request mark a governor wrote for the others (its own ledger, whole ms), gathered while
 * each was in the window: `seen` after each start keeps, per ms, the most marks any look showed.
 */
export function watchMarks(governor: Governor): { seen(): void; marks(): number[] } {
  const most = new Map<number, number>();
  return {
    seen() {
      const now = new Map<number, number>();
      for (const mark of governor.ledger().requests) now.set(mark, (now.get(mark) ?? 0) + 1);
      for (const [mark, count] of now) most.set(mark, Math.max(count, most.get(mark) ?? 0));
    },
    marks: () => [...most].flatMap(([mark, count]) => Array.from({ length: count }, () => mark)),
  };
}
