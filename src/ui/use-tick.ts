// A counter that advances on an interval while `active`: it drives the spinner and the clock of
// the progress line, which change without any event from the apply.
import { useEffect, useState } from 'react';

export function useTick(intervalMs: number, active: boolean): number {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!active) return undefined;
    const timer = setInterval(() => setTick((n) => n + 1), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs, active]);
  return tick;
}

export { spinnerFrame } from '../report/spinner.js';
