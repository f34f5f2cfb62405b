import { describe, expect, it } from 'vitest';
import { diffFields } from './diff-fields.js';
import { code, colour, comparableValue, decimal, fieldTypeAt, sameMeaning } from './field-types.js';

describe('field types: values compared by meaning', () => {
  it('compares decimals at their precision: float32 read-backs are the value sent', () => {
    expect(sameMeaning(decimal(2), 2.49, 2.4900000095367432)).toBe(true);
    expect(sameMeaning(decimal(2), 49.9, 49.9000015259)).toBe(true);
    expect(sameMeaning(decimal(2), 2.49, 2.5)).toBe(false);
    expect(sameMeaning(decimal(4), 3.4999, 3.5)).toBe(false);
    expect(sameMeaning(decimal(2), 0, undefined)).toBe(false);
  });
  it('compares codes by their digits, and never a code with a missing value', () => {
    expect(sameMeaning(code, '85011019', '8501.10.19')).toBe(true);
    expect(sameMeaning(code, '82.99-1/00', '8299100')).toBe(true);
    expect(sameMeaning(code, '11.222.333/0001-81', '11222333000181')).toBe(true);
    expect(sameMeaning(code, '8299', '8298')).toBe(false);
    expect(sameMeaning(code, '8299', undefined)).toBe(false);
  });
  it('compares text as written: no case folding unless the type says so', () => {
    expect(sameMeaning(undefined, 'Pix', 'pix')).toBe(false);
    expect(sameMeaning(colour, '#FF00AA', '#ff00aa')).toBe(true);
  });
  it('finds a type by path, `*` standing for any one segment', () => {
    const types = { 'ISS.tributos.*.CNAE': code, juros: decimal(2) };
    expect(fieldTypeAt(types, 'ISS.tributos.8299 + 0107.CNAE')).toBe(code);
    expect(fieldTypeAt(types, 'juros')).toEqual(decimal(2));
    expect(fieldTypeAt(types, 'ISS.tributos.CNAE')).toBeUndefined();
    expect(comparableValue(code, 8501)).toBe('8501');
  });
  it('is what diffFields uses: another form of the same value is no difference', () => {
    const types = { juros: decimal(2), 'taxas.valor': decimal(2), 'dadosCartao.cnpjCredenciadora': code };
    const desired = { juros: 1.5, taxas: { valor: 2.49 }, dadosCartao: { cnpjCredenciadora: '11.222.333/0001-81' }, descricao: 'Pix' };
    const live = { juros: 1.5000000001, taxas: { valor: 2.4900000095367432 }, dadosCartao: { cnpjCredenciadora: '11222333000181' }, descricao: 'pix' };
    expect(diffFields(desired, live, new Set(), types)).toEqual([{ path: 'descricao', before: 'pix', after: 'Pix' }]);
  });
});
