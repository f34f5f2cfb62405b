import { describe, expect, it } from 'vitest';
import { checkConfiguracoesNfse, configuracoesNfse } from './configuracoes-nfse.js';
import type { ManifestRecord } from '../model/desired.js';

function settings(tributos: unknown[]): ManifestRecord {
  return { kind: 'configuracoesNfse', value: { ISS: { tributos } }, pointer: '/configuracoesNfse', file: 'nfse.yaml', interpolatedPaths: [] };
}

const estetica = { CNAE: '96.02-5', descricaoServico: 'Estética', codigo: { listaServico: '0602' } };
const maquiagem = { CNAE: '96.02-5', descricaoServico: 'Maquiagem', codigo: { listaServico: '0601' } };

describe('checkConfiguracoesNfse', () => {
  it('is wired as the kind check and keeps the city-hall password secret', () => {
    expect(configuracoesNfse.checkRecords).toBe(checkConfiguracoesNfse);
    expect(configuracoesNfse.secretFields).toEqual([['adicionais', 'cadastroPrefeitura', 'senha']]);
  });

  it('accepts one default among distinct tax entries, and settings without ISS', () => {
    const record = settings([{ ...estetica, padrao: true }, { ...maquiagem, padrao: false }]);
    const empty: ManifestRecord = { ...record, value: { adicionais: { tipoEmissao: 'N' } } };
    expect(checkConfiguracoesNfse([record, empty])).toEqual([]);
  });

  it('reports a second default tax entry at its padrao', () => {
    const record = settings([{ ...estetica, padrao: true }, { ...maquiagem, padrao: true }]);
    const findings = checkConfiguracoesNfse([record]);
    expect(findings.map((finding) => [finding.code, finding.path])).toEqual([['multiple-defaults', ['ISS', 'tributos', 1, 'padrao']]]);
    expect(findings[0]?.message).toContain('ISS/tributos/0');
  });

  it('reports two tax entries with the same CNAE and service list item, since that pair matches them', () => {
    const record = settings([estetica, maquiagem, { ...estetica, CNAE: ' 96.02-5 ', descricaoServico: 'Limpeza de pele' }]);
    expect(checkConfiguracoesNfse([record]).map((finding) => [finding.code, finding.path])).toEqual([
      ['duplicate-tax-entry', ['ISS', 'tributos', 2]],
    ]);
  });
});
