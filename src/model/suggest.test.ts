import { describe, expect, it } from 'vitest';
import { suggestClose, suggestClosest } from './suggest.js';

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

describe('suggestClose', () => {
  it('lists close matches, closest first, accents and case ignored', () => {
    expect(suggestClose('Prestacao de servico', ['Venda de mercadoria', 'Prestação de serviço', 'Prestação de serviços'])).toEqual(['Prestação de serviço', 'Prestação de serviços']);
    expect(suggestClose('zzz', ['Geral'])).toEqual([]);
  });
});
