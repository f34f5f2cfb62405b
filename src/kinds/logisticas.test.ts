import { describe, expect, it } from 'vitest';
import { checkLogisticas, logisticas } from './logisticas.js';
import type { ManifestRecord } from '../model/desired.js';

function logisticsAt(index: number, value: Record<string, unknown>): ManifestRecord {
  return { kind: 'logisticas', value, pointer: `/logisticas/${index}`, file: 'logistica.yaml', interpolatedPaths: [] };
}

describe('checkLogisticas', () => {
  it('is wired as the kind check', () => {
    expect(logisticas.checkRecords).toBe(checkLogisticas);
  });

  it('accepts distinct codes, and the same code in two logistics', () => {
    const records = [
      logisticsAt(0, { descricao: 'Motoboy', servicos: [{ codigo: 'EXP' }, { codigo: 'AGD' }] }),
      logisticsAt(1, { descricao: 'Retirada', servicos: [{ codigo: 'EXP' }] }),
      logisticsAt(2, { descricao: 'Sem serviços' }),
    ];
    expect(checkLogisticas(records)).toEqual([]);
  });

  it('reports every repeated code at its own service, naming the first one', () => {
    const record = logisticsAt(0, {
      descricao: 'Motoboy',
      servicos: [{ codigo: 'EXP' }, { codigo: 'AGD' }, { codigo: ' EXP' }, { codigo: 'EXP' }],
    });
    const findings = checkLogisticas([record]);
    expect(findings.map((finding) => [finding.severity, finding.code, finding.path])).toEqual([
      ['error', 'duplicate-service-code', ['servicos', 2, 'codigo']],
      ['error', 'duplicate-service-code', ['servicos', 3, 'codigo']],
    ]);
    expect(findings[0]?.message).toContain('servicos/0');
  });
});
