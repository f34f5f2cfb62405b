import { describe, expect, it } from 'vitest';
import type { DesiredUnit } from '../model/desired.js';
import { couldMatch, matchKeysOf, selectDetailReads } from './desired-units.js';

interface UnitOptions {
  fields?: Record<string, unknown>;
  tool?: Partial<DesiredUnit['tool']>;
}

function unit(identity: string, name: string, extra: UnitOptions = {}): DesiredUnit {
  return {
    kind: 'categoriasProdutos',
    identity,
    name,
    fields: extra.fields ?? {},
    tool: { ensure: 'present', protect: false, previousNames: [], ...extra.tool },
    locate: () => ({ file: 'm.yaml', line: 1, col: 1 }),
  };
}

describe('couldMatch and selectDetailReads', () => {
  const rent = { id: 7, identity: 'Despesas > Aluguel', name: 'Aluguel' };
  const water = { id: 8, identity: 'Despesas > Água', name: 'Água' };

  it('pairs by pinned id only when the unit pins one', () => {
    expect(couldMatch(rent, matchKeysOf(unit('Despesas > Aluguel', 'Aluguel', { tool: { id: 8 } }), true))).toBe(false);
    expect(couldMatch(water, matchKeysOf(unit('Despesas > Aluguel', 'Aluguel', { tool: { id: 8 } }), true))).toBe(true);
  });

  it('pairs tree records by name anywhere, flat records by identity or a previous name in the same scope', () => {
    expect(couldMatch(rent, matchKeysOf(unit('Aluguel', 'Aluguel'), true))).toBe(true);
    expect(couldMatch(rent, matchKeysOf(unit('Aluguel', 'Aluguel'), false))).toBe(false);
    const renamed = unit('Despesas > Locação', 'Locação', { tool: { previousNames: ['Aluguel'] } });
    expect(couldMatch(rent, matchKeysOf(renamed, false))).toBe(true);
    expect(couldMatch({ ...rent, identity: 'Outras > Aluguel' }, matchKeysOf(renamed, false))).toBe(false);
  });

  it('selects only records a present unit needing the detail could match, and those named by id', () => {
    const needs = (u: DesiredUnit) => u.fields.wanted === true;
    const desired = [
      unit('Despesas > Aluguel', 'Aluguel', { fields: { wanted: true } }),
      unit('Despesas > Água', 'Água', { fields: {} }),
      unit('Despesas > Luz', 'Luz', { fields: { wanted: true }, tool: { ensure: 'absent' } }),
    ];
    expect(selectDetailReads([rent, water, { id: 9, identity: 'Despesas > Luz', name: 'Luz' }], desired, needs, true)).toEqual([rent]);
    expect(selectDetailReads([rent, water], [], needs, true)).toEqual([]);
    expect(selectDetailReads([rent, water], [], needs, true, new Set([8]))).toEqual([water]);
  });
});


