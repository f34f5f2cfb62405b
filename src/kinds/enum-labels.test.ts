import { describe, expect, it } from 'vitest';
import type { EnumField } from '../kinds/kind.js';
import { labelOfCode, normalizeEnumLabels } from './enum-labels.js';

const tipo: EnumField = { path: ['tipoPagamento'], labels: { dinheiro: 1, 'pix-dinamico': 17 } };
const bandeira: EnumField = { path: ['dadosCartao', 'bandeira'], labels: { visa: 1 } };
const nested: EnumField = { path: ['itens', '*', 'tipo'], labels: { tef: 1, pos: 2 } };

describe('enum labels', () => {
  it('turns labels into codes at nested and array paths, leaving codes alone', () => {
    const value = { tipoPagamento: 'pix-dinamico', dadosCartao: { bandeira: 'visa' }, itens: [{ tipo: 'pos' }, { tipo: 1 }] };
    expect(normalizeEnumLabels(value, [tipo, bandeira, nested])).toEqual({
      tipoPagamento: 17,
      dadosCartao: { bandeira: 1 },
      itens: [{ tipo: 2 }, { tipo: 1 }],
    });
    expect(normalizeEnumLabels({ tipoPagamento: 1 }, [tipo, bandeira])).toEqual({ tipoPagamento: 1 });
  });
  it('finds the label of a code and falls back to the code', () => {
    expect(labelOfCode(tipo, 17)).toBe('pix-dinamico');
    expect(labelOfCode(tipo, 99)).toBe(99);
  });
});
