import { describe, expect, it } from 'vitest';
import { registry } from '../kinds/registry.js';
import type { JournalRun } from '../model/journal.js';
import { buildDashboardModel } from './dashboard-data.js';
import type { DriftSnapshot } from './dashboard-data.js';

const run = (id: string, target: string, startedAt: string): JournalRun => ({
  header: {
    type: 'run',
    formatVersion: 1,
    run: id,
    startedAt,
    erpsyncVersion: '0.1.0',
    source: 'manifests',
    git: { revision: 'abcdef0123456789abcdef0123456789abcdef01', dirty: false },
    target: { name: target, id: 'sandbox:1', mode: 'sandbox' },
    account: { id: 'acc', nome: 'Loja', cnpj: '' },
    actor: { type: 'ci', url: 'https://ci.example/run/9', user: 'deployer' },
    changes: 1,
  },
  file: `${id}.jsonl`,
  runner: 'github agencia/lojas run 9',
  changes: [{ type: 'change', at: startedAt, change: 'c1', action: 'update', reason: 'drift', kind: 'formasPagamentos', key: 'Pix', outcome: 'applied', fields: [{ path: 'taxas.aliquota', before: 1, after: 2 }, { path: 'senha', before: undefined, after: undefined, sensitive: true }] }],
  readBack: [],
  unfinished: [],
  status: 'finished',
  trust: 'verified',
  notes: [],
});

const options = { today: '2026-11-26', days: 7, adapters: registry.units };

describe('the dashboard model', () => {
  it('words the latest drift\'s records with who changed them, and each run with its commit, actor and runner', () => {
    const snapshots: DriftSnapshot[] = [
      { at: '2026-11-20T02:00:00.000Z', rows: [{ target: 'loja', changes: 5 }] },
      {
        at: '2026-11-26T02:00:00.000Z',
        rows: [{ target: 'loja', changes: 4, owners: ['@agencia/lojas'], drifted: [{ type: 'modified', kind: 'formasPagamentos', key: 'Pix', fields: ['taxas.aliquota'], fieldsLeftOut: 1, attribution: { by: 'erp', run: 'r1', at: '2026-11-25T03:00:00.000Z' } }], driftedLeftOut: 3 }],
      },
    ];
    const [store] = buildDashboardModel([run('r1', 'loja', '2026-11-25T03:00:00.000Z')], snapshots, options).stores;
    expect(store?.drift).toBe('drifted');
    expect(store?.drifts).toBe('d.....d');
    expect(store?.owners).toEqual(['@agencia/lojas']);
    expect(store?.recordsLeftOut).toBe(3);
    expect(store?.records).toEqual([
      {
        type: 'modified',
        title: 'Modified in the ERP',
        record: 'formasPagamentos "Pix"',
        fields: ['taxas.aliquota'],
        fieldsLeftOut: 1,
        by: 'changed in the ERP since erpsync run r1 (2026-11-25T03:00:00.000Z), the last run that touched it (that run applied abcdef012345, by deployer https://ci.example/run/9)',
      },
    ]);
    expect(store?.recent).toEqual([
      ['r1', '2026-11-25T03:00:00.000Z', 'finished', 1, 0, [['applied', 'update', 'formasPagamentos', 'Pix', ['taxas.aliquota: 1 → 2', 'senha: (sensitive) changed']]], 0, 'abcdef012345', 'deployer https://ci.example/run/9', 'github agencia/lojas run 9'],
    ]);
  });

  it('tells a result without records from one in sync, and makes hostile text printable', () => {
    const hostile = 'loja \u202e evil\u0007';
    const snapshots: DriftSnapshot[] = [
      {
        at: '2026-11-26T02:00:00.000Z',
        rows: [
          { target: 'older', changes: 2 },
          { target: 'clean', changes: 0, drifted: [] },
          { target: hostile, changes: 1, error: 'token <b>rejected</b>\u001b[31m', owners: ['@org/\u200bteam'], drifted: [{ type: 'missing', kind: 'gruposProdutos', key: `${'A'.repeat(290)}\u200b`, fields: [] }] },
        ],
      },
    ];
    const stores = buildDashboardModel([], snapshots, options).stores;
    const byName = new Map(stores.map((s) => [s.name, s]));
    expect(byName.get('older')).toMatchObject({ drift: 'drifted', drifted: 2, records: null, recordsLeftOut: 0, owners: [] });
    expect(byName.get('clean')).toMatchObject({ drift: 'in-sync', records: [] });
    expect(byName.get('loja \\u202e evil\\u0007')).toMatchObject({
      drift: 'error',
      driftError: 'token <b>rejected</b>\\u001b[31m',
      owners: ['@org/\\u200bteam'],
      records: [{ type: 'missing', title: 'Missing from the ERP', record: `gruposProdutos "${'A'.repeat(290)}\\u200b"`, fields: [], fieldsLeftOut: 0 }],
    });
  });
});
