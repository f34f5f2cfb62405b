import { describe, expect, it } from 'vitest';
import { deepEqual, diffFields } from './diff-fields.js';

describe('diffFields', () => {
  it('compares only what the manifest sets, objects field by field', () => {
    const desired = { descricao: 'Pix', taxas: { aliquota: 1.5 } };
    const live = { descricao: 'Pix', juros: 2, taxas: { aliquota: 0.99, prazo: 30 } };
    expect(diffFields(desired, live)).toEqual([{ path: 'taxas.aliquota', before: 0.99, after: 1.5 }]);
  });
  it('compares lists as a whole and reports missing live objects as one change', () => {
    expect(diffFields({ aliases: ['a', 'b'] }, { aliases: ['a'] })).toEqual([{ path: 'aliases', before: ['a'], after: ['a', 'b'] }]);
    expect(diffFields({ dadosCartao: { bandeira: 1 } }, {})).toEqual([{ path: 'dadosCartao', before: undefined, after: { bandeira: 1 } }]);
  });
  it('hides the values of secret fields but still reports that they differ', () => {
    const changes = diffFields({ a: { senha: 'new' } }, { a: { senha: 'old' } }, new Set(['a.senha']));
    expect(changes).toEqual([{ path: 'a.senha', before: undefined, after: undefined, sensitive: true }]);
    expect(JSON.stringify(changes)).not.toContain('new');
  });
  it('treats equal structures as equal', () => {
    expect(deepEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
    expect(deepEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
  });
});
