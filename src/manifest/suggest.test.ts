import { describe, expect, it } from 'vitest';
import { suggestClosest } from './suggest.js';

describe('suggestClosest', () => {
  it('finds a likely typo', () => {
    expect(suggestClosest('tipoPagameto', ['descricao', 'tipoPagamento', 'finalidade'])).toBe('tipoPagamento');
    expect(suggestClosest('formasPagamento', ['formasPagamentos', 'situacoes'])).toBe('formasPagamentos');
  });
  it('ignores case when comparing', () => {
    expect(suggestClosest('PIX-DINAMICO', ['pix-dinamico', 'boleto'])).toBe('pix-dinamico');
  });
  it('stays silent when nothing is close', () => {
    expect(suggestClosest('xyz', ['descricao', 'tipoPagamento'])).toBeUndefined();
    expect(suggestClosest('abc', [])).toBeUndefined();
  });
});
