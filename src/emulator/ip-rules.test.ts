import { describe, expect, it } from 'vitest';
import { createIpLedger } from './ip-rules.js';

describe('per-IP ledger', () => {
  it('trips on the 601st request in 10 s, blocks for 10 minutes, then lets the IP back', () => {
    let now = 0;
    const ledger = createIpLedger({ now: () => now });
    for (let i = 0; i < 600; i += 1) expect(ledger.admit('a', false)).toBeUndefined();
    now = 9_999;
    expect(ledger.admit('a', false)).toBe(600_000);
    expect(ledger.admit('b', false)).toBeUndefined();
    now = 300_000;
    expect(ledger.admit('a', false)).toBe(309_999);
    now = 610_000;
    expect(ledger.admit('a', false)).toBeUndefined();
    expect(ledger.violations()).toEqual([{ ip: 'a', rule: 'requests', count: 601, at: 9_999, blockedUntil: 609_999 }]);
    expect(ledger.refused()).toBe(2);
  });

  it('a window that slides past old requests does not trip', () => {
    let now = 0;
    const ledger = createIpLedger({ now: () => now });
    for (let i = 0; i < 1_200; i += 1) {
      now = i * 17; // 58.8 requests a second: at most 589 in any 10 s
      expect(ledger.admit('a', false)).toBeUndefined();
    }
    expect(ledger.violations()).toEqual([]);
  });

  it('counts errors and token calls on their own windows; 21 token calls block for an hour', () => {
    let now = 0;
    const ledger = createIpLedger({ now: () => now });
    for (let i = 0; i < 300; i += 1) ledger.recordError('a');
    expect(ledger.violations()).toEqual([]);
    ledger.recordError('a');
    expect(ledger.violations()[0]).toMatchObject({ rule: 'errors', count: 301, blockedUntil: 600_000 });
    for (let i = 0; i < 20; i += 1) {
      now = i * 2_900;
      expect(ledger.admit('t', true)).toBeUndefined();
    }
    now = 59_000;
    expect(ledger.admit('t', true)).toBe(3_600_000);
    expect(ledger.violations()[1]).toMatchObject({ ip: 't', rule: 'token-calls', count: 21 });
  });

  it('records without blocking when it does not enforce', () => {
    const ledger = createIpLedger({ enforce: false, now: () => 0 });
    for (let i = 0; i < 700; i += 1) expect(ledger.admit('a', false)).toBeUndefined();
    expect(ledger.violations()).toHaveLength(1);
    expect(ledger.refused()).toBe(0);
  });
});
