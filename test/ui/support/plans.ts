// Small plans and change records for reporter and UI tests: plain data, as buildPlan makes them.
import type { Change, ChangeAction, Plan } from '../../../src/plan/model.js';

export function makeChange(action: ChangeAction, key: string, wave: number, extra: Partial<Change> = {}): Change {
  return {
    id: `gruposProdutos:${key}:${action}`,
    action,
    kind: 'gruposProdutos',
    key,
    reason: action === 'create' ? 'missing' : action === 'delete' ? 'prune' : 'drift',
    fields: action === 'create' ? [{ path: 'nome', before: undefined, after: key }] : [],
    dependsOn: [],
    wave,
    ...extra,
  };
}

export function makePlan(changes: Change[]): Plan {
  return {
    formatVersion: 1,
    target: { mode: 'sandbox', id: 'sandbox:.erpsync/sandbox.json', name: 'sandbox' },
    manifestDigest: 'sha256:0',
    kinds: ['gruposProdutos'],
    changes,
    fingerprints: {},
    absent: [],
    warnings: [],
    cost: { reads: 1, writes: changes.length, seconds: Math.ceil(changes.length / 2.5), rate: 2.5 },
  };
}
