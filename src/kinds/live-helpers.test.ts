import { describe, expect, it } from 'vitest';
import {
  compact,
  identifyListItems,
  mergeRecords,
  placeInTree,
  readBoolean,
  readInteger,
  readName,
  readNumber,
  readReferenceId,
  requireId,
  requireLiveId,
} from './live-helpers.js';
import type { WriteContext } from './kind.js';
import type { Change } from '../model/plan.js';


describe('lenient readers', () => {
  it('reads numbers, integers and booleans the API sometimes sends as strings', () => {
    expect([readNumber(12.5), readNumber('17'), readNumber(' -3.5 '), readNumber('abc'), readNumber(null), readNumber(Number.NaN)]).toEqual([
      12.5,
      17,
      -3.5,
      undefined,
      undefined,
      undefined,
    ]);
    expect([readInteger('14693216841'), readInteger(2.5)]).toEqual([14693216841, undefined]);
    expect([readBoolean('true'), readBoolean(false), readBoolean('0'), readBoolean('yes')]).toEqual([true, false, false, undefined]);
  });

  it('normalizes names and reads reference ids, treating 0 as no reference', () => {
    expect(readName('  Cafe\u0301 ')).toBe('Café');
    expect(readName(undefined)).toBe('');
    expect([readReferenceId({ id: '42' }), readReferenceId({ id: 0 }), readReferenceId(undefined)]).toEqual([42, undefined, undefined]);
  });

  it('keys list items by their id, and refuses an item without one', () => {
    expect(identifyListItems([{ id: '5', nome: 'A' }], '/grupos-produtos')).toEqual([{ id: 5, raw: { id: '5', nome: 'A' } }]);
    expect(() => identifyListItems([{ id: 5 }, { nome: 'B' }], '/grupos-produtos')).toThrow(/item 2 of the list has no numeric id/);
  });

  it('leaves undefined values out and merges nested objects key by key', () => {
    expect(compact({ a: 1, b: undefined })).toEqual({ a: 1 });
    expect(mergeRecords({ a: 1, taxas: { valor: 1, prazo: 2 }, list: [1, 2] }, { taxas: { prazo: 5 }, list: [3], b: undefined })).toEqual({
      a: 1,
      taxas: { valor: 1, prazo: 5 },
      list: [3],
    });
  });
});

describe('placeInTree', () => {
  it('builds path identities and parents from the parent-id chain, in any order', () => {
    const places = placeInTree([
      { id: 3, name: 'Aluguel', parentId: 1 },
      { id: 1, name: 'Despesas', parentId: undefined },
      { id: 4, name: 'Sala', parentId: 3 },
    ]);
    expect(Object.fromEntries(places)).toEqual({
      1: { identity: 'Despesas' },
      3: { identity: 'Despesas > Aluguel', parent: 'Despesas' },
      4: { identity: 'Despesas > Aluguel > Sala', parent: 'Despesas > Aluguel' },
    });
  });

  it('makes a record with an unknown parent, or inside a loop, a root instead of failing', () => {
    const places = placeInTree([
      { id: 1, name: 'Órfã', parentId: 99 },
      { id: 2, name: 'A', parentId: 3 },
      { id: 3, name: 'B', parentId: 2 },
    ]);
    expect(places.get(1)).toEqual({ identity: 'Órfã' });
    expect(places.get(2)).toEqual({ identity: 'B > A', parent: 'B' });
    expect(places.get(3)).toEqual({ identity: 'B' });
  });
});

describe('write-time lookups', () => {
  const context: WriteContext = {
    client: undefined as unknown as WriteContext['client'],
    resolveId: (kind, identity) => (kind === 'gruposProdutos' && identity === 'Roupas' ? 5 : undefined),
  };

  it('resolves a referenced identity to its id, or fails with UNRESOLVED_REFERENCE', () => {
    expect(requireId(context, 'gruposProdutos', 'Roupas')).toBe(5);
    expect(() => requireId(context, 'gruposProdutos', 'Calçados')).toThrow(expect.objectContaining({ code: 'UNRESOLVED_REFERENCE' }));
  });

  it('requires the live id of a change that acts on an existing record', () => {
    const change = { id: 'gruposProdutos:Roupas:delete', action: 'delete', kind: 'gruposProdutos', key: 'Roupas', reason: 'prune', removal: 'removal', fields: [], dependsOn: [], requires: [], wave: 1 } satisfies Change;
    expect(requireLiveId({ ...change, dependsOn: [], fields: [], liveId: 5 })).toBe(5);
    expect(() => requireLiveId({ ...change, dependsOn: [], fields: [] })).toThrow(expect.objectContaining({ code: 'INTERNAL' }));
  });
});
