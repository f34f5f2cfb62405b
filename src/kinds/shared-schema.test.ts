import { describe, expect, it } from 'vitest';
import { defineEnum, defineListRecord, describeLabels } from './shared-schema.js';

describe('defineEnum', () => {
  it('accepts codes and labels in one enum and documents the table', () => {
    const { field, schema } = defineEnum({ path: ['tipo'], labels: { tef: 1, pos: 2 }, summary: 'Capture mode.' });
    expect(field).toEqual({ path: ['tipo'], labels: { tef: 1, pos: 2 } });
    expect(schema).toEqual({ enum: [1, 2, 'tef', 'pos'], description: 'Capture mode. Code or label: 1 tef, 2 pos.' });
  });

  it('keeps read-only codes in the label table but out of the schema', () => {
    const { field, schema } = defineEnum({
      path: ['tipo'],
      labels: { despesa: 1, receita: 2, 'transferencia-entrada': 4 },
      readOnlyCodes: [4],
      summary: 'Kind.',
    });
    expect(field.readOnlyCodes).toEqual([4]);
    expect(schema.enum).toEqual([1, 2, 'despesa', 'receita']);
    expect(schema.description).toBe('Kind. Code or label: 1 despesa, 2 receita. Read-only (returned by the API, refused here): 4 transferencia-entrada.');
  });
});

describe('describeLabels', () => {
  it('lists code and label pairs, optionally only some codes', () => {
    expect(describeLabels({ habilitada: 'H', desabilitada: 'D' })).toBe('H habilitada, D desabilitada');
    expect(describeLabels({ habilitada: 'H', desabilitada: 'D' }, ['D'])).toBe('D desabilitada');
  });
});

describe('defineListRecord', () => {
  it('requires the identity always and the create fields only outside tombstones', () => {
    const schema = defineListRecord(
      { nome: { type: 'string' }, cor: { type: 'string' } },
      { title: 'T', description: 'D', identity: ['nome'], requiredUnlessAbsent: ['cor'] },
    );
    expect(schema.required).toEqual(['nome']);
    expect(schema.if).toEqual({ properties: { ensure: { const: 'absent' } }, required: ['ensure'] });
    expect(schema.else).toEqual({ properties: { cor: true }, required: ['cor'] });
    expect(schema.additionalProperties).toBe(false);
  });

  it('has no conditional when nothing beyond the identity is required', () => {
    const schema = defineListRecord({ nome: { type: 'string' } }, { title: 'T', description: 'D', identity: ['nome'], requiredUnlessAbsent: [] });
    expect(Object.keys(schema)).not.toContain('if');
  });
});
