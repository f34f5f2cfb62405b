// The revert's steps judged against the account: what the journal says, held against what the
// account holds now, by the plan's comparator.
import { describe, expect, it } from 'vitest';
import type { JournalChangeLine, JournalReadBackLine, JournalRun } from '../model/journal.js';
import type { UnitKind } from '../model/kinds.js';
import type { LiveRecord, LiveState } from '../model/live.js';
import { judgeSteps, revertStepsOf } from './revert-steps.js';

function runOf(changes: Partial<JournalChangeLine>[], readBack: Omit<JournalReadBackLine, 'type' | 'at'>[] = []): JournalRun {
  return {
    header: {
      type: 'run',
      formatVersion: 1,
      run: '20261128T000000000Z-abcdef',
      startedAt: '2026-11-28T00:00:00.000Z',
      erpsyncVersion: '0.1.0',
      source: 'manifests',
      git: null,
      target: { name: '', id: 'sandbox', mode: 'sandbox' },
      account: { id: 'a', nome: 'Loja', cnpj: '' },
      actor: { type: 'user' },
      changes: changes.length,
    },
    file: 'run.jsonl',
    changes: changes.map((c, i) => ({ type: 'change', at: '', change: `c${i}`, action: 'update', reason: 'drift', kind: 'formasPagamentos', key: 'Boleto', outcome: 'applied', fields: [], ...c })),
    readBack: readBack.map((r) => ({ type: 'read-back', at: '', ...r })),
    unfinished: [],
    status: 'finished',
    trust: 'verified',
    notes: [],
  };
}

function record(kind: UnitKind, id: number, identity: string, fields: Record<string, unknown>): LiveRecord {
  return { kind, id, identity, name: identity.split(' > ').at(-1) ?? identity, fields, raw: {}, detailLoaded: true };
}

function account(...records: LiveRecord[]): LiveState {
  const byKind = new Map<UnitKind, LiveRecord[]>();
  for (const r of records) byKind.set(r.kind, [...(byKind.get(r.kind) ?? []), r]);
  return { records: byKind, reads: 0 };
}

const boleto = (fields: Record<string, unknown>) => record('formasPagamentos', 7, 'Boleto', { descricao: 'Boleto', tipoPagamento: 15, ...fields });
const updatedBoleto = (left: Record<string, unknown>) =>
  runOf([{ liveId: 7, id: 7, fields: [{ path: 'juros', before: 1, after: 2.5 }], before: { id: 7, identity: 'Boleto', name: 'Boleto', fields: { descricao: 'Boleto', tipoPagamento: 15, juros: 1 } } }], [
    { change: 'c0', record: { id: 7, identity: 'Boleto', name: 'Boleto', fields: { descricao: 'Boleto', tipoPagamento: 15, ...left } } },
  ]);

describe('judgeSteps', () => {
  it('compares by meaning: a CNPJ by its digits, a decimal at its precision', () => {
    const run = updatedBoleto({ juros: 2.5, dadosCartao: { cnpjCredenciadora: '11.222.333/0001-81' } });
    const judged = judgeSteps(revertStepsOf(run), account(boleto({ juros: 2.5000001, dadosCartao: { cnpjCredenciadora: '11222333000181' } })), run, false);
    expect(judged.conflicts).toEqual([]);
    expect(judged.undo.map((s) => [s.key, s.pin])).toEqual([['Boleto', 7]]);
  });

  it('shows a field changed since the run with what the account holds and what the run left', () => {
    const run = updatedBoleto({ juros: 2.5 });
    const judged = judgeSteps(revertStepsOf(run), account(boleto({ juros: 7 })), run, false);
    expect(judged.conflicts.map((c) => [c.why, c.overridable])).toEqual([['changed since the run: juros is 7, the run left 2.5', true]]);
    expect(judged.undo).toEqual([]);
    expect(judgeSteps(revertStepsOf(run), account(boleto({ juros: 7 })), run, true).undo.map((s) => s.key)).toEqual(['Boleto']);
  });

  it('never removes a created record the read-back did not see, nor one whose id the account holds under another name', () => {
    const run = runOf(
      [
        { action: 'create', reason: 'missing', kind: 'gruposProdutos', key: 'Forjado', id: 40 },
        { action: 'create', reason: 'missing', kind: 'gruposProdutos', key: 'Maquiagem', id: 41 },
        { action: 'create', reason: 'missing', kind: 'gruposProdutos', key: 'Cabelos', id: 42 },
      ],
      [
        { change: 'c1', record: { id: 41, identity: 'Maquiagem', name: 'Maquiagem', fields: { nome: 'Maquiagem' } } },
        { change: 'c2', record: { id: 42, identity: 'Cabelos', name: 'Cabelos', fields: { nome: 'Cabelos' } } },
      ],
    );
    const live = account(record('gruposProdutos', 40, 'Forjado', { nome: 'Forjado' }), record('gruposProdutos', 41, 'Perfumaria', { nome: 'Perfumaria' }), record('gruposProdutos', 42, 'Cabelos', { nome: 'Cabelos' }));
    const judged = judgeSteps(revertStepsOf(run), live, run, true);
    expect(judged.undo.map((s) => [s.key, s.pin])).toEqual([['Cabelos', 42]]);
    expect(judged.conflicts.map((c) => [c.step.key, c.why, c.overridable])).toEqual([
      ['Forjado', "the run's read-back never saw it, so the journal cannot show the run created it", false],
      ['Maquiagem', 'the account holds its id 41 under another name, "Perfumaria"', false],
    ]);
  });

  it('leaves a created record that is gone: nothing to undo, or another record of its name to keep', () => {
    const run = runOf([
      { action: 'create', reason: 'missing', kind: 'gruposProdutos', key: 'Maquiagem', id: 41 },
      { action: 'create', reason: 'missing', kind: 'gruposProdutos', key: 'Cabelos', id: 42 },
    ]);
    const judged = judgeSteps(revertStepsOf(run), account(record('gruposProdutos', 99, 'Cabelos', { nome: 'Cabelos' })), run, true);
    expect(judged.undo).toEqual([]);
    expect(judged.conflicts.map((c) => [c.step.key, c.why, c.overridable])).toEqual([['Cabelos', 'the record the run created (id 42) is gone; the one of that name now (id 99) is another', false]]);
  });

  it('re-creates a deleted record unless one took its place, and never pins a singleton', () => {
    const run = runOf([
      { action: 'delete', reason: 'tombstone', kind: 'gruposProdutos', key: 'Velas', liveId: 50, id: 50, before: { id: 50, identity: 'Velas', name: 'Velas', fields: { nome: 'Velas' } } },
      { action: 'delete', reason: 'tombstone', kind: 'gruposProdutos', key: 'Kits', liveId: 51, id: 51, before: { id: 51, identity: 'Kits', name: 'Kits', fields: { nome: 'Kits' } } },
      { kind: 'configuracoesNfse', key: 'configuracoesNfse', liveId: 0, id: 0, before: { id: 0, identity: 'configuracoesNfse', name: '', fields: { envioEmail: { remetente: '' } } }, written: { envioEmail: { remetente: 'Loja' } } },
    ]);
    const live = account(record('gruposProdutos', 60, 'Kits', { nome: 'Kits' }), record('configuracoesNfse', 0, 'configuracoesNfse', { envioEmail: { remetente: 'Loja' } }));
    const judged = judgeSteps(revertStepsOf(run), live, run, false);
    expect(judged.undo.map((s) => [s.key, s.pin])).toEqual([
      ['Velas', undefined],
      ['configuracoesNfse', undefined],
    ]);
    expect(judged.conflicts.map((c) => [c.step.key, c.why, c.overridable])).toEqual([['Kits', 'it was re-created since the run (id 60)', true]]);
  });

  it('names a reference the journal holds as an id as the account read names it', () => {
    const run = runOf([{ action: 'create', reason: 'missing', kind: 'camposCustomizados', key: 'Produtos > Cor', id: 70, written: { modulo: 'Produtos', nome: 'Cor', tipoCampo: 13 } }]);
    const live = account(record('tiposCamposCustomizados', 13, 'Texto', { nome: 'Texto' }), record('camposCustomizados', 70, 'Produtos > Cor', { modulo: 'Produtos', nome: 'Cor', tipoCampo: 'Texto' }));
    expect(judgeSteps(revertStepsOf(run), live, run, false).conflicts).toEqual([]);
  });
});
