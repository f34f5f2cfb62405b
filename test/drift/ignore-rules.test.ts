// policy.ignore matching shared by plan and drift: records, fields (with `*`), and units nested in
// another kind's record (logistics services), which rules reach through the container's list field.
import { describe, expect, it } from 'vitest';
import { registry } from '../../src/kinds/registry.js';
import type { KindAdapter } from '../../src/kinds/kind.js';
import type { IgnoreRule } from '../../src/model/desired.js';
import type { UnitKind } from '../../src/model/kinds.js';
import { findIgnoreRule, ignoreTargetOf } from '../../src/model/ignore-rules.js';

const adapter = (kind: UnitKind): KindAdapter => registry.units.find((a) => a.kind === kind) as KindAdapter;
const rule = (fields: Omit<IgnoreRule, 'reason'>): IgnoreRule => ({ ...fields, reason: 'tolerated' });

describe('findIgnoreRule', () => {
  const payment = ignoreTargetOf(adapter('formasPagamentos'), 'Pix', undefined);

  it('matches a record rule only for the whole record, and a field rule only for that field and below', () => {
    const whole = rule({ kind: 'formasPagamentos', key: 'Pix' });
    const taxes = rule({ kind: 'formasPagamentos', field: 'taxas' });
    expect(findIgnoreRule([whole], payment)).toBe(whole);
    expect(findIgnoreRule([whole], payment, 'juros')).toBeUndefined();
    expect(findIgnoreRule([taxes], payment)).toBeUndefined();
    expect(findIgnoreRule([taxes], payment, 'taxas.prazo')).toBe(taxes);
    expect(findIgnoreRule([taxes], payment, 'taxasExtra')).toBeUndefined();
    expect(findIgnoreRule([rule({ kind: 'formasPagamentos', key: 'Boleto' })], payment)).toBeUndefined();
  });

  it('lets `*` stand for any part of a path, keys with dots included', () => {
    const settings = ignoreTargetOf(adapter('configuracoesNfse'), 'configuracoesNfse', undefined);
    const rate = rule({ kind: 'configuracoesNfse', field: 'ISS.tributos.*.percentualISS' });
    expect(findIgnoreRule([rate], settings, 'ISS.tributos.82.99 + 0107.percentualISS')).toBe(rate);
    expect(findIgnoreRule([rate], settings, 'ISS.tributos.82.99 + 0107.descricaoServico')).toBeUndefined();
  });

  it('reaches services through their logistics: whole record, list field, or a field of every item', () => {
    const service = ignoreTargetOf(adapter('logisticasServicos'), 'Entrega > MOTO', 'Entrega');
    const record = rule({ kind: 'logisticas', key: 'Entrega' });
    const list = rule({ kind: 'logisticas', field: 'servicos' });
    const freight = rule({ kind: 'logisticas', key: 'Entrega', field: 'servicos.*.freteItem' });
    expect(findIgnoreRule([record], service)).toBe(record);
    expect(findIgnoreRule([list], service)).toBe(list);
    expect(findIgnoreRule([freight], service)).toBeUndefined();
    expect(findIgnoreRule([freight], service, 'freteItem')).toBe(freight);
    expect(findIgnoreRule([freight], service, 'descricao')).toBeUndefined();
    expect(findIgnoreRule([rule({ kind: 'logisticas', field: 'servicos.0.freteItem' })], service, 'freteItem')).toBeUndefined();
    expect(findIgnoreRule([rule({ kind: 'logisticas', key: 'Outra', field: 'servicos' })], service)).toBeUndefined();
  });
});
