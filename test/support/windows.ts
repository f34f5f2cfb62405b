// Counting what sliding windows held, for tests of the per-IP rules: the most of a list of times
// (ms) that fall within any one window.

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
