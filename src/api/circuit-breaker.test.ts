import { describe, expect, it } from 'vitest';
import { closedCircuit, createCircuitBreaker, recordError } from './circuit-breaker.js';

describe('circuit breaker', () => {
  const options = { maxErrors: 3, windowMs: 1000 };

  it('opens when errors inside the window exceed the threshold', () => {
    let state = closedCircuit;
    for (const t of [0, 10, 20]) state = recordError(state, t, options);
    expect(state.open).toBe(false);
    state = recordError(state, 30, options);
    expect(state.open).toBe(true);
  });

  it('forgets errors that left the window, and stays open once opened', () => {
    let state = closedCircuit;
    for (const t of [0, 400, 800, 1300, 1700]) state = recordError(state, t, options);
    expect(state.open).toBe(false);
    expect(state.errorTimes).toEqual([800, 1300, 1700]);
    const breaker = createCircuitBreaker(options, () => 0);
    for (let i = 0; i < 4; i += 1) breaker.record();
    expect(breaker.isOpen()).toBe(true);
    expect(breaker.describe()).toBe('more than 3 errors within 1 s');
  });

  it('defaults far below the service IP block (300 errors in 10 s)', () => {
    let t = 0;
    const breaker = createCircuitBreaker({}, () => t);
    for (let i = 0; i < 50; i += 1) {
      t += 10;
      breaker.record();
    }
    expect(breaker.isOpen()).toBe(false);
    breaker.record();
    expect(breaker.isOpen()).toBe(true);
  });
});
