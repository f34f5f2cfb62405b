import { describe, expect, it } from 'vitest';
import { checkFormasPagamentos, formasPagamentos } from './formas-pagamentos.js';
import type { ManifestRecord } from '../model/desired.js';

function methodAt(index: number, value: Record<string, unknown>, file = 'financeiro.yaml'): ManifestRecord {
  return { kind: 'formasPagamentos', value, pointer: `/formasPagamentos/${index}`, file, interpolatedPaths: [] };
}

const card = { bandeira: 1, tipo: 2 };

describe('checkFormasPagamentos', () => {
  it('is wired as the kind check', () => {
    expect(formasPagamentos.checkRecords).toBe(checkFormasPagamentos);
  });

  it('accepts card data on credit and debit cards', () => {
    const records = [
      methodAt(0, { descricao: 'Crédito', tipoPagamento: 3, dadosCartao: card }),
      methodAt(1, { descricao: 'Débito', tipoPagamento: 4, dadosCartao: card }),
      methodAt(2, { descricao: 'PIX', tipoPagamento: 17 }),
    ];
    expect(checkFormasPagamentos(records)).toEqual([]);
  });

  it('reports card data on any other payment type, pointing at dadosCartao', () => {
    const pix = methodAt(0, { descricao: 'PIX', tipoPagamento: 17, dadosCartao: card });
    const findings = checkFormasPagamentos([pix]);
    expect(findings).toEqual([
      expect.objectContaining({ severity: 'error', code: 'card-data-without-card-type', record: pix, path: ['dadosCartao'] }),
    ]);
    expect(findings[0]?.message).toContain('not 17');
  });

  it('allows one default and one default for returns', () => {
    const records = [
      methodAt(0, { descricao: 'PIX', padrao: 1 }),
      methodAt(1, { descricao: 'Dinheiro', padrao: 2 }),
      methodAt(2, { descricao: 'Boleto', padrao: 0 }),
    ];
    expect(checkFormasPagamentos(records)).toEqual([]);
  });

  it('reports a second default on the later record, naming the first one and where it is', () => {
    const first = methodAt(0, { descricao: 'PIX', padrao: 1 }, 'a.yaml');
    const second = methodAt(3, { descricao: 'Boleto', padrao: 1 }, 'b.yaml');
    const third = methodAt(4, { descricao: 'Crédito', padrao: 1 }, 'b.yaml');
    const findings = checkFormasPagamentos([first, second, third]);
    expect(findings.map((finding) => [finding.code, finding.record, finding.path])).toEqual([
      ['multiple-defaults', second, ['padrao']],
      ['multiple-defaults', third, ['padrao']],
    ]);
    expect(findings[0]?.message).toContain('"PIX" at a.yaml#/formasPagamentos/0');
  });

  it('counts the default for returns separately and ignores tombstones', () => {
    const records = [
      methodAt(0, { descricao: 'Dinheiro', padrao: 2 }),
      methodAt(1, { descricao: 'Antigo', padrao: 2, ensure: 'absent' }),
      methodAt(2, { descricao: 'Vale', padrao: 2 }),
    ];
    expect(checkFormasPagamentos(records).map((finding) => [finding.code, finding.record.value.descricao])).toEqual([
      ['multiple-defaults', 'Vale'],
    ]);
  });
});
