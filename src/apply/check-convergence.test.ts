import { describe, expect, it } from 'vitest';
import { checkReadBack, describeReadBack } from './check-convergence.js';
import { code } from '../model/field-types.js';
import type { KindAdapter } from '../kinds/kind.js';
import type { LiveRecord } from '../model/live.js';
import type { Change } from '../model/plan.js';
import type { ApplyResult } from '../model/events.js';

const adapter: KindAdapter = {
  kind: 'situacoes',
  canDelete: true,
  fieldTypes: { cor: { type: 'colour' }, codigo: code },
  readLive: async () => [],
  execute: async () => ({}),
};

function change(action: Change['action'], key: string, fields: Change['fields'], liveId?: number): Change {
  const verify = action === 'delete' ? 'answer' : 'read-back';
  return { id: `situacoes:${key}:${action}`, action, kind: 'situacoes', key, reason: 'drift', removal: 'none', fields, dependsOn: [], requires: [], wave: 1, verify, ...(liveId ? { liveId } : {}) };
}

function record(id: number, key: string, fields: Record<string, unknown>): LiveRecord {
  return { kind: 'situacoes', id, identity: key, name: key, fields, raw: {}, detailLoaded: true };
}

function result(outcomes: ApplyResult['outcomes']): ApplyResult {
  return { outcomes, applied: outcomes.length, failed: 0, skipped: 0, blocked: 0, interrupted: false };
}

describe('checkReadBack', () => {
  it('accepts values that took, compared the way the kind compares them', () => {
    const applied = result([
      { change: change('update', 'Vendas > A', [{ path: 'cor', before: '#000000', after: '#ABCDEF' }], 1), outcome: { status: 'applied' } },
      { change: change('create', 'Vendas > B', [{ path: 'nome', before: undefined, after: 'B' }]), outcome: { status: 'applied', id: 2 } },
    ]);
    const live = { records: new Map([['situacoes' as const, [record(1, 'Vendas > A', { cor: '#abcdef' }), record(2, 'Vendas > B', { nome: 'B' })]]]), reads: 1 };
    expect(describeReadBack(checkReadBack(applied, live, [adapter])).notConverged).toEqual([]);
  });

  it('reports a field the service ignored and a record that is not there', () => {
    const applied = result([
      { change: change('update', 'Vendas > A', [{ path: 'cor', before: '#000000', after: '#abcdef' }], 1), outcome: { status: 'applied' } },
      { change: change('create', 'Vendas > B', [{ path: 'nome', before: undefined, after: 'B' }]), outcome: { status: 'applied', id: 2 } },
      { change: change('delete', 'Vendas > C', [], 3), outcome: { status: 'applied' } },
    ]);
    const live = { records: new Map([['situacoes' as const, [record(1, 'Vendas > A', { cor: '#000000' })]]]), reads: 1 };
    expect(describeReadBack(checkReadBack(applied, live, [adapter])).notConverged).toEqual([
      'situacoes "Vendas > B" is not in the account after create',
      'situacoes "Vendas > A": cor was not kept: sent "#abcdef", the account holds "#000000"',
    ]);
  });

  it('notes a value kept in another form that means the same, and fails none', () => {
    const applied = result([{ change: change('update', 'Vendas > A', [{ path: 'codigo', before: '', after: '85011019' }], 1), outcome: { status: 'applied' } }]);
    const live = { records: new Map([['situacoes' as const, [record(1, 'Vendas > A', { codigo: '8501.10.19' })]]]), reads: 1 };
    const check = describeReadBack(checkReadBack(applied, live, [adapter]));
    expect(check.notConverged).toEqual([]);
    expect(check.notes).toEqual(['the account holds "8501.10.19" where the manifest has "85011019" (situacoes "Vendas > A" codigo); they mean the same, so it is no change']);
  });
});
