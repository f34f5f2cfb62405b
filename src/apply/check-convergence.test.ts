import { describe, expect, it } from 'vitest';
import { findNonConvergent } from './check-convergence.js';
import type { KindAdapter } from '../kinds/kind.js';
import type { LiveRecord } from '../model/live.js';
import type { Change } from '../model/plan.js';
import type { ApplyResult } from '../model/events.js';

const adapter: KindAdapter = {
  kind: 'situacoes',
  canDelete: true,
  canonicalize: (f) => (typeof f.cor === 'string' ? { ...f, cor: f.cor.toLowerCase() } : f),
  readLive: async () => [],
  execute: async () => ({}),
};

function change(action: Change['action'], key: string, fields: Change['fields'], liveId?: number): Change {
  return { id: `situacoes:${key}:${action}`, action, kind: 'situacoes', key, reason: 'drift', removal: 'none', fields, dependsOn: [], requires: [], wave: 1, ...(liveId ? { liveId } : {}) };
}

function record(id: number, key: string, fields: Record<string, unknown>): LiveRecord {
  return { kind: 'situacoes', id, identity: key, name: key, fields, raw: {}, detailLoaded: true };
}

function result(outcomes: ApplyResult['outcomes']): ApplyResult {
  return { outcomes, applied: outcomes.length, failed: 0, skipped: 0, blocked: 0, interrupted: false };
}

describe('findNonConvergent', () => {
  it('accepts values that took, compared the way the kind compares them', () => {
    const applied = result([
      { change: change('update', 'Vendas > A', [{ path: 'cor', before: '#000000', after: '#ABCDEF' }], 1), outcome: { status: 'applied' } },
      { change: change('create', 'Vendas > B', [{ path: 'nome', before: undefined, after: 'B' }]), outcome: { status: 'applied', id: 2 } },
    ]);
    const live = { records: new Map([['situacoes' as const, [record(1, 'Vendas > A', { cor: '#abcdef' }), record(2, 'Vendas > B', { nome: 'B' })]]]), reads: 1 };
    expect(findNonConvergent(applied, live, [adapter])).toEqual([]);
  });

  it('reports a field the service ignored and a record that is not there', () => {
    const applied = result([
      { change: change('update', 'Vendas > A', [{ path: 'cor', before: '#000000', after: '#abcdef' }], 1), outcome: { status: 'applied' } },
      { change: change('create', 'Vendas > B', [{ path: 'nome', before: undefined, after: 'B' }]), outcome: { status: 'applied', id: 2 } },
      { change: change('delete', 'Vendas > C', [], 3), outcome: { status: 'applied' } },
    ]);
    const live = { records: new Map([['situacoes' as const, [record(1, 'Vendas > A', { cor: '#000000' })]]]), reads: 1 };
    expect(findNonConvergent(applied, live, [adapter])).toEqual(['situacoes "Vendas > A": cor did not take', 'situacoes "Vendas > B" is not in the account after create']);
  });
});
