// Waiting in tests: for what the test expects to happen, never for a number of milliseconds. A busy
// machine makes a wait longer, never a test red; vitest's test timeout is the only bound (raised
// per test where a test is genuinely slow). A wait still pending when its test ends (it timed out,
// or failed elsewhere) stops there and fails the test with what it was waiting for.
import { onTestFinished } from 'vitest';

/** Runs `attempt` until it returns instead of throwing, and resolves to what it returned. */
export function eventually<T>(attempt: () => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let pending = true;
    let last: unknown;
    onTestFinished(() => {
      if (!pending) return;
      pending = false;
      const error = new Error(`the test ended while still waiting: ${last instanceof Error ? last.message : String(last)}`, { cause: last });
      reject(error);
      throw error;
    });
    const poll = () => {
      if (!pending) return;
      try {
        const value = attempt();
        pending = false;
        resolve(value);
      } catch (error) {
        last = error;
        setTimeout(poll, 10);
      }
    };
    poll();
  });
}

/** Waits until `read()` matches `pattern` (a command's output while it runs); resolves to the match. */
export function waitForOutput(read: () => string, pattern: RegExp): Promise<RegExpExecArray> {
  return eventually(() => {
    const match = pattern.exec(read());
    if (!match) throw new Error(`no output matching ${pattern}; so far:\n${read()}`);
    return match;
  });
}
