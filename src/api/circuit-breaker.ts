// The circuit breaker: the service blocks a source IP for 10 minutes after 300 error responses in
// 10 seconds, which would take down every integration of the store behind that IP. The breaker
// counts error responses and failed connections in a sliding window and, past a threshold far
// below that, stops the client for the rest of the run. It latches: a run that produced a burst
// of errors is broken, and pressing on would only feed the block.

export interface CircuitOptions {
  /** Errors tolerated inside the window; one more opens the circuit. */
  maxErrors: number;
  windowMs: number;
}

export const defaultCircuitOptions: CircuitOptions = { maxErrors: 50, windowMs: 10_000 };

export interface CircuitState {
  /** Times (ms) of the errors still inside the window, oldest first. */
  readonly errorTimes: readonly number[];
  readonly open: boolean;
}

export const closedCircuit: CircuitState = { errorTimes: [], open: false };

export function recordError(state: CircuitState, now: number, options: CircuitOptions): CircuitState {
  const errorTimes = [...state.errorTimes.filter((t) => t > now - options.windowMs), now];
  return { errorTimes, open: state.open || errorTimes.length > options.maxErrors };
}

export interface CircuitBreaker {
  record(): void;
  isOpen(): boolean;
  /** Why it opened, for the error message. */
  describe(): string;
}

export function createCircuitBreaker(options: Partial<CircuitOptions> = {}, now: () => number = () => performance.now()): CircuitBreaker {
  const resolved: CircuitOptions = { ...defaultCircuitOptions, ...options };
  let state = closedCircuit;
  return {
    record() {
      state = recordError(state, now(), resolved);
    },
    isOpen: () => state.open,
    describe: () => `more than ${resolved.maxErrors} errors within ${resolved.windowMs / 1000} s`,
  };
}
