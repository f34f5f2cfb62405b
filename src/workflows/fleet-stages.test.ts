import { describe, expect, it } from 'vitest';
import { cutStages, planRollout } from './fleet-stages.js';

const names = Array.from({ length: 10 }, (_, i) => `lojas/loja-${i}`);

describe('staged rollouts', () => {
  it('cuts a canary (by name, glob or count) and waves of the rest', () => {
    expect(cutStages(names, { canary: 2, waveSize: 3 }).map((s) => [s.label, s.names.length])).toEqual([
      ['canary', 2],
      ['wave 1', 3],
      ['wave 2', 3],
      ['wave 3', 2],
    ]);
    expect(cutStages(names, { canary: 'lojas/loja-7,lojas/loja-9' })[0]?.names).toEqual(['lojas/loja-7', 'lojas/loja-9']);
    expect(cutStages(names, { canary: ['lojas/loja-[0-1]', 'lojas/loja-?'] })[0]?.names).toEqual(names);
    expect(cutStages(names, {})).toEqual([{ label: 'wave 1', names }]);
    expect(() => cutStages(names, { canary: 'lojas/outra' })).toThrow(/selects none/);
  });

  it("takes the config's group whose glob matches every store, the flags over it, and halts after any failure by default", () => {
    const config = { dir: '.', targets: {}, rollouts: { 'outras/*': { canary: 5 }, 'lojas/*': { canary: 1, waveSize: 4, haltAfter: 2 } } };
    const fromConfig = planRollout(names, config, {});
    expect(fromConfig?.haltAfter).toBe(2);
    expect(fromConfig?.stages.map((s) => s.names.length)).toEqual([1, 4, 4, 1]);
    const overridden = planRollout(names, config, { canary: '3', 'halt-after': '1' });
    expect(overridden?.stages.map((s) => s.names.length)).toEqual([3, 4, 3]);
    expect(overridden?.haltAfter).toBe(1);
    expect(planRollout(names, { dir: '.', targets: {} }, {})).toBeUndefined();
    expect(planRollout(names, undefined, { 'wave-size': '5' })?.haltAfter).toBe(1);
    expect(() => planRollout(names, undefined, { 'halt-after': '0' })).toThrow(/--halt-after takes/);
  });
});
