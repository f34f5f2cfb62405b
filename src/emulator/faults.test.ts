import { describe, expect, it } from 'vitest';
import { createFaultPlan, parseFaultSpec, pickFault } from './faults.js';

describe('parseFaultSpec', () => {
  it('reads probability, seed, kinds, latency and schedule items', () => {
    expect(parseFaultSpec('p=0.2,seed=7,kinds=http500+reset-after,latency=300,POST/formas-pagamentos#2=reset-after,#5=http503,get#1=latency')).toEqual({
      probability: 0.2,
      seed: 7,
      kinds: ['http500', 'reset-after'],
      latencyMs: 300,
      schedule: [
        { method: 'POST', path: '/formas-pagamentos', nth: 2, fault: 'reset-after' },
        { nth: 5, fault: 'http503' },
        { method: 'GET', nth: 1, fault: 'latency' },
      ],
    });
  });

  it('accepts a JSON spec and an empty text', () => {
    expect(parseFaultSpec('{"probability":1,"kinds":["http429"]}')).toEqual({ probability: 1, kinds: ['http429'] });
    expect(parseFaultSpec('  ')).toEqual({});
    expect(parseFaultSpec('p=0.2,retryAfter=0')).toEqual({ probability: 0.2, retryAfterSeconds: 0 });
  });

  it('refuses unknown kinds, keys and out-of-range values with a CONFIG error', () => {
    for (const text of ['kinds=boom', 'x=1', 'p=2', '#0=http500', '#1=nope', 'seed=1.5', 'retryAfter=-1', 'retryAfter=0.5', '{bad json']) {
      expect(() => parseFaultSpec(text), text).toThrow(expect.objectContaining({ code: 'CONFIG' }));
    }
  });
});

describe('pickFault', () => {
  it('counts matching requests per schedule entry and fires on the nth', () => {
    const plan = createFaultPlan('POST/situacoes#2=http500');
    const picks = [
      pickFault(plan, 'POST', '/situacoes'),
      pickFault(plan, 'GET', '/situacoes/6'),
      pickFault(plan, 'POST', '/situacoes'),
      pickFault(plan, 'POST', '/situacoes'),
    ];
    expect(picks).toEqual([undefined, undefined, 'http500', undefined]);
  });

  it('draws from the given kinds with the given probability, reproducibly', () => {
    const draw = () => {
      const plan = createFaultPlan({ probability: 0.3, seed: 9, kinds: ['http502', 'latency'] });
      return Array.from({ length: 200 }, () => pickFault(plan, 'GET', '/x'));
    };
    const first = draw();
    const hits = first.filter(Boolean);
    expect(hits.length).toBeGreaterThan(30);
    expect(hits.length).toBeLessThan(90);
    expect(new Set(hits)).toEqual(new Set(['http502', 'latency']));
    expect(draw()).toEqual(first);
  });

  it('never fires without a plan or with probability 0', () => {
    expect(pickFault(undefined, 'GET', '/x')).toBeUndefined();
    const plan = createFaultPlan({ probability: 0 });
    expect(Array.from({ length: 50 }, () => pickFault(plan, 'GET', '/x')).some(Boolean)).toBe(false);
  });
});
