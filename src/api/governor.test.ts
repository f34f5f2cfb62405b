import { describe, expect, it } from 'vitest';
import { createGovernor, ipBudgetOf, SERVICE_IP_RULES } from './governor.js';

describe('the process request governor', () => {
  it('keeps a margin under each per-IP rule, and divides the IP among the runners that share it', () => {
    expect(ipBudgetOf()).toEqual({ requests: 480, errors: 240, windowMs: 10_000, tokenCalls: 16, tokenWindowMs: 60_000 });
    expect(ipBudgetOf(4)).toMatchObject({ requests: 120, errors: 60, tokenCalls: 4 });
    expect(ipBudgetOf(100).tokenCalls).toBe(1);
    expect(ipBudgetOf().requests).toBeLessThan(SERVICE_IP_RULES.requests);
  });

  it('lets the budget through at once, and the next request only once the window has room', async () => {
    const governor = createGovernor({ requests: 10, errors: 100, windowMs: 500, tokenCalls: 5, tokenWindowMs: 1_000 });
    const starts: number[] = [];
    await Promise.all(Array.from({ length: 21 }, () => governor.acquireRequest().then(() => starts.push(performance.now()))));
    starts.sort((a, b) => a - b);
    // Whatever the timers do, any 10 consecutive starts after the first 10 lie a window after those 10 before them.
    for (let i = 10; i < starts.length; i += 1) expect((starts[i] ?? 0) - (starts[i - 10] ?? 0)).toBeGreaterThanOrEqual(499);
    expect(governor.stats().requests).toBe(21);
  });

  it('lets token calls through one window at a time, in order', async () => {
    const governor = createGovernor({ requests: 1_000, errors: 100, windowMs: 1_000, tokenCalls: 2, tokenWindowMs: 300 });
    const order: number[] = [];
    await Promise.all([0, 1, 2, 3].map((i) => governor.acquireTokenCall().then(() => order.push(i))));
    expect(order).toEqual([0, 1, 2, 3]);
    const times = governor.stats().tokenCallTimes;
    expect((times[2] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(299);
    expect((times[3] ?? 0) - (times[1] ?? 0)).toBeGreaterThanOrEqual(299);
  });

  it('counts a token call from its answer: a call slow on its way holds the window longer', async () => {
    const governor = createGovernor({ requests: 1_000, errors: 100, windowMs: 1_000, tokenCalls: 1, tokenWindowMs: 300 });
    const answered = await governor.acquireTokenCall();
    await new Promise((resolve) => setTimeout(resolve, 200));
    answered();
    const answeredAt = performance.now();
    await governor.acquireTokenCall();
    expect(performance.now() - answeredAt).toBeGreaterThanOrEqual(299);
  });

  it('starts nobody while the window holds its budget of errors', async () => {
    const governor = createGovernor({ requests: 1_000, errors: 3, windowMs: 300, tokenCalls: 5, tokenWindowMs: 1_000 });
    for (let i = 0; i < 3; i += 1) governor.recordError();
    const erredAt = performance.now();
    await governor.acquireRequest();
    expect(performance.now() - erredAt).toBeGreaterThanOrEqual(299);
  });

  it('stops waiting when aborted', async () => {
    const governor = createGovernor({ requests: 1, errors: 1, windowMs: 60_000, tokenCalls: 1, tokenWindowMs: 60_000 });
    await governor.acquireRequest();
    const controller = new AbortController();
    const waiting = governor.acquireRequest(controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
  });
});
