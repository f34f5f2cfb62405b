import { classifyRemoval, countsAgainstBudget } from '../../../src/model/plan.js';
import type { Change, ChangeAction, Plan } from '../../../src/model/plan.js';
// Small plans and change records for reporter and UI tests: plain data, as buildPlan makes them.

export function makeChange(action: ChangeAction, key: string, wave: number, extra: Partial<Change> = {}): Change {
  return {
    id: `gruposProdutos:${key}:${action}`,
    action,
    kind: 'gruposProdutos',
    key,
    reason: action === 'create' ? 'missing' : action === 'delete' ? 'prune' : 'drift',
    removal: classifyRemoval(action, extra.reason ?? (action === 'create' ? 'missing' : action === 'delete' ? 'prune' : 'drift')),
    fields: action === 'create' ? [{ path: 'nome', before: undefined, after: key }] : [],
    dependsOn: [],
    requires: [],
    wave,
    ...extra,
  };
}

export function makePlan(changes: Change[]): Plan {
  return {
    formatVersion: 2,
    target: { mode: 'sandbox', id: 'sandbox:.erpsync/sandbox.json', name: 'sandbox', account: { id: 'test-account', nome: 'Loja Teste Ltda', cnpj: '12.345.678/0001-90' } },
    manifestDigest: 'sha256:0',
    kinds: ['gruposProdutos'],
    changes,
    budget: { limit: 10, source: 'default', removals: changes.filter(countsAgainstBudget).length, exceeded: changes.filter(countsAgainstBudget).length > 10 },
    renames: [],
    warnings: [],
    cost: { reads: 1, writes: changes.length, seconds: Math.ceil(changes.length / 2.5), rate: 2.5 },
  };
}
