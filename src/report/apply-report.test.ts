// Plain and NDJSON apply reporters: the lines each event becomes, with a fixed clock, and never an
// escape code; the confirmation rule.
import { describe, expect, it } from 'vitest';
import { registry } from '../kinds/registry.js';
import { makeChange, makePlan } from '../../test/ui/support/plans.js';
import type { ApplyReportEvent } from '../model/events.js';
import { acceptsAnswer, confirmationFor, createJsonApplyReporter, createPlainApplyReporter } from './apply-report.js';

const a = makeChange('create', 'Maquiagem', 1);
const b = makeChange('delete', 'Antigo', 2, { liveId: 7 });
const plan = makePlan([a, b]);

const run: [number, ApplyReportEvent][] = [
  [0, { type: 'plan', plan }],
  [1_000, { type: 'apply-start', changes: 2, waves: 2 }],
  [1_000, { type: 'wave-start', wave: 1, changes: 1 }],
  [1_000, { type: 'change-start', change: a }],
  [2_000, { type: 'change-end', change: a, outcome: { status: 'applied', id: 31 }, requests: 1 }],
  [2_000, { type: 'wave-start', wave: 2, changes: 1 }],
  [2_000, { type: 'change-start', change: b }],
  [3_000, { type: 'change-end', change: b, outcome: { status: 'failed', error: 'HTTP 409: em uso', code: 'API_ERROR' }, requests: 3 }],
  [5_000, { type: 'apply-end', applied: 1, failed: 1, skipped: 0, blocked: 0, interrupted: false, requests: 3 }],
  [5_000, { type: 'verify-start' }],
  [6_000, { type: 'verify-end', notConverged: ['gruposProdutos "Maquiagem" nome'] }],
];

function feed(make: (write: (line: string) => void, now: () => number) => { report: (e: ApplyReportEvent) => void }): string[] {
  const lines: string[] = [];
  let clock = 0;
  const reporter = make((line) => lines.push(line), () => clock);
  for (const [at, event] of run) {
    clock = at;
    reporter.report(event);
  }
  return lines;
}

describe('plain apply reporter', () => {
  it('prints the plan, a line per wave and finished change, the summary with its cost, and what did not converge', () => {
    const lines = feed((write, now) => createPlainApplyReporter({ write, now, adapters: registry.units }));
    const afterPlan = lines.slice(lines.indexOf('Applying 2 change(s) in 2 wave(s)…'));
    expect(lines[0]).toBe('Plan: 1 to create, 1 to delete.');
    expect(afterPlan).toEqual([
      'Applying 2 change(s) in 2 wave(s)…',
      'Wave 1: 1 change(s)',
      '  ok      gruposProdutos "Maquiagem" create (id 31)',
      'Wave 2: 1 change(s)',
      '  failed  gruposProdutos "Antigo" delete: HTTP 409: em uso',
      '',
      'Apply: 1 applied, 1 failed, 0 skipped, 0 blocked.',
      '  3 request(s) in 0:04 (0.8 req/s).',
      '  not converged: gruposProdutos "Maquiagem" nome',
    ]);
    expect(lines.join('\n')).not.toContain('\u001B');
  });

  it('says how to finish an interrupted run, and when the person said no', () => {
    const lines: string[] = [];
    const reporter = createPlainApplyReporter({ write: (line) => lines.push(line), now: () => 0, adapters: registry.units });
    reporter.report({ type: 'apply-start', changes: 1, waves: 1 });
    reporter.report({ type: 'apply-end', applied: 0, failed: 0, skipped: 1, blocked: 0, interrupted: true, requests: 0 });
    reporter.report({ type: 'cancelled' });
    expect(lines.slice(-2)).toEqual(['Interrupted: the changes not started were skipped; run apply again to finish.', 'Apply cancelled; nothing was changed.']);
  });
});

describe('NDJSON apply reporter', () => {
  it('writes one JSON object per event, changes by reference, with the time since it started', () => {
    const lines = feed((write, now) => createJsonApplyReporter({ write, now }));
    expect(lines).toHaveLength(run.length);
    const events = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.map((e) => e.type)).toEqual(run.map(([, e]) => e.type));
    expect(events[0]).toMatchObject({
      type: 'plan',
      summary: { create: 1, change: 0, remove: 1, blocked: 0 },
      changes: [
        { id: 'gruposProdutos:Maquiagem:create', action: 'create', kind: 'gruposProdutos', key: 'Maquiagem', wave: 1, reason: 'missing', fields: ['nome'] },
        { id: 'gruposProdutos:Antigo:delete', action: 'delete', liveId: 7, wave: 2, reason: 'prune', fields: [] },
      ],
      elapsedMs: 0,
    });
    expect(events[4]).toEqual({
      type: 'change-end',
      change: { id: 'gruposProdutos:Maquiagem:create', kind: 'gruposProdutos', key: 'Maquiagem', action: 'create', wave: 1 },
      outcome: { status: 'applied', id: 31 },
      requests: 1,
      elapsedMs: 2_000,
    });
    expect(events[8]).toEqual({ type: 'apply-end', applied: 1, failed: 1, skipped: 0, blocked: 0, interrupted: false, requests: 3, elapsedMs: 5_000 });
    expect(lines.join('\n')).not.toContain('\u001B');
  });

  it('never carries field values, which may be secret', () => {
    const secret = makeChange('update', 'Com senha', 1, { fields: [{ path: 'senha', before: 'old-secret', after: 'new-secret', sensitive: true }] });
    const lines: string[] = [];
    createJsonApplyReporter({ write: (line) => lines.push(line), now: () => 0 }).report({ type: 'plan', plan: makePlan([secret]) });
    expect(lines[0]).toContain('"fields":["senha"]');
    expect(lines[0]).not.toContain('secret"');
  });
});

describe('confirmation', () => {
  it('asks for yes, or for the number of deletes when the plan deletes', () => {
    const creates = confirmationFor(makePlan([a]));
    expect(creates.expected).toBe('yes');
    expect(['yes', ' YES ', 'Yes'].map((x) => acceptsAnswer(creates, x))).toEqual([true, true, true]);
    expect(['y', 'sim', ''].map((x) => acceptsAnswer(creates, x))).toEqual([false, false, false]);
    const deletes = confirmationFor(makePlan([a, b, makeChange('retire', 'Velho', 2, { liveId: 8 })]));
    expect(deletes.question).toBe('This deletes or retires 2 record(s) in Loja Teste Ltda (CNPJ 12.345.678/0001-90), target sandbox. Type 2 to apply:');
    expect(creates.question).toBe('Apply these changes to Loja Teste Ltda (CNPJ 12.345.678/0001-90), target sandbox? Type yes to apply:');
    expect(['2', ' 2'].map((x) => acceptsAnswer(deletes, x))).toEqual([true, true]);
    expect(['yes', '3'].map((x) => acceptsAnswer(deletes, x))).toEqual([false, false]);
  });
});
