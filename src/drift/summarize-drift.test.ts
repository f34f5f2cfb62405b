// What a drift snapshot keeps of a store's report: the first records, their field paths (no values)
// and who made the account's value, each piece within the limits the read-back check enforces.
import { describe, expect, it } from 'vitest';
import type { DriftFinding, DriftReport } from '../model/drift.js';
import { driftSnapshotLimits } from '../model/drift.js';
import { driftSnapshotOf } from '../state/read-checks.js';
import { summarizeDrift } from './summarize-drift.js';

const finding = (i: number, fields: number): DriftFinding => ({
  type: 'modified',
  kind: 'gruposProdutos',
  key: i === 0 ? `Grupo ${'x'.repeat(400)}` : `Grupo ${i}`,
  liveId: i,
  fields: Array.from({ length: fields }, (_, f) => ({ path: `campo${f}`, manifest: 'segredo do manifesto', account: 'valor da conta' })),
  actions: ['update'],
  attribution: { by: 'erp', run: '20260105T030000Z-ab12', at: '2026-01-05T03:00:00.000Z' },
});

const reportOf = (findings: DriftFinding[]) => ({ findings }) as DriftReport;

describe('a drift snapshot of a store', () => {
  it('keeps the first records with their field paths and attribution, cut to the limits and counted beyond them', () => {
    const summary = summarizeDrift(reportOf(Array.from({ length: 40 }, (_, i) => finding(i, i === 1 ? 30 : 2))));
    expect(summary.drifted).toHaveLength(driftSnapshotLimits.records);
    expect(summary.driftedLeftOut).toBe(40 - driftSnapshotLimits.records);
    expect(summary.drifted?.[0]?.key).toHaveLength(driftSnapshotLimits.textLength);
    expect(summary.drifted?.[0]?.key.endsWith('…')).toBe(true);
    expect(summary.drifted?.[1]).toEqual({
      type: 'modified',
      kind: 'gruposProdutos',
      key: 'Grupo 1',
      fields: Array.from({ length: driftSnapshotLimits.fields }, (_, f) => `campo${f}`),
      fieldsLeftOut: 10,
      attribution: { by: 'erp', run: '20260105T030000Z-ab12', at: '2026-01-05T03:00:00.000Z' },
    });
    expect(JSON.stringify(summary)).not.toContain('valor da conta');
    // What it writes passes the check every read-back goes through, whole.
    const row = { target: 'lojas/centro', changes: 40, ...summary };
    expect(driftSnapshotOf({ at: '2026-01-05T03:00:00Z', rows: [row] })?.rows).toEqual([row]);
  });

  it('keeps nothing for a store in sync', () => {
    expect(summarizeDrift(reportOf([]))).toEqual({ drifted: [] });
  });
});
