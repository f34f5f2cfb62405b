// One run of the journal as history shows it, from the lines a killed run leaves: a change that
// started and never ended is unknown in the text and counted as unknown in the JSON summary.
import { describe, expect, it } from 'vitest';
import { parseJournalRun } from '../state/journal-evidence.js';
import { renderHistoryText, renderRunText, summarizeRun } from './history-report.js';

const lines = [
  { type: 'run', formatVersion: 1, run: '20261126T230000000Z-abcdef', startedAt: '2026-11-26T23:00:00.000Z', erpsyncVersion: '0.1.0', source: 'manifests', git: null, target: { name: 'loja', id: 'sandbox:loja', mode: 'sandbox' }, account: { id: '1', nome: 'Loja', cnpj: '' }, actor: { type: 'user', user: 'maria', host: 'pc' }, changes: 3 },
  { type: 'start', at: '2026-11-26T23:00:01.000Z', change: 'c1' },
  { type: 'change', at: '2026-11-26T23:00:01.000Z', change: 'c1', action: 'create', reason: 'missing', kind: 'gruposProdutos', key: 'Velas', outcome: 'applied', id: 7, fields: [] },
  { type: 'start', at: '2026-11-26T23:00:02.000Z', change: 'c2' },
];

describe('history of a killed run', () => {
  it('shows the change that started and never ended as unknown', () => {
    // The last line was cut mid-write by the kill: it does not parse and is left out.
    const run = parseJournalRun(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n{"type":"change","at":"2026-11-26T23:00:0`, 'x.jsonl');
    expect(run?.status).toBe('interrupted');
    if (!run) return;
    expect(summarizeRun(run)).toMatchObject({ status: 'interrupted', planned: 3, applied: 1, unknown: 1 });
    expect(renderHistoryText({ runs: [run], damaged: [] })[0]).toContain('  loja  interrupted  1 applied, 1 unknown  not in git  by maria@pc');
    expect(renderRunText(run)).toEqual(expect.arrayContaining(['Run 20261126T230000000Z-abcdef — interrupted (no closing line: the run was killed or crashed midway)', 'applied  create gruposProdutos "Velas" (id 7)', 'unknown  c2 — started, never reported as ended']));
  });
});
