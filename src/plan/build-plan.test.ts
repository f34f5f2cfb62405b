// buildPlan is pure: these tests give it desired and live states directly (no API involved) and
// check matching, actions, dependencies and waves.
import { describe, expect, it } from 'vitest';
import { gruposProdutos } from '../kinds/grupos-produtos.js';
import { buildPlan } from './build-plan.js';
import type { KindAdapter } from '../kinds/kind.js';
import type { LiveRecord } from '../model/live.js';
import { defaultPolicy } from '../model/desired.js';
import type { DesiredRecord, DesiredState, Policy } from '../model/desired.js';

const groups: KindAdapter = {
  kind: 'gruposProdutos',
  definition: gruposProdutos,
  canDelete: true,
  readLive: async () => [],
  execute: async () => ({}),
};

const at = { file: 'm.yaml', line: 1, col: 1 };

function desiredGroup(nome: string, options: { pai?: string; previousNames?: string[]; ensure?: 'absent'; protect?: boolean; id?: number } = {}): DesiredRecord {
  const identity = options.pai ? `${options.pai} > ${nome}` : nome;
  return {
    kind: 'gruposProdutos',
    identity,
    name: nome,
    fields: { nome, ...(options.pai ? { grupoProdutoPai: options.pai } : {}) },
    tool: { ensure: options.ensure ?? 'present', protect: options.protect ?? false, previousNames: options.previousNames ?? [], ...(options.id ? { id: options.id } : {}) },
    secretVariables: {},
    position: at,
    source: { kind: 'gruposProdutos', value: {}, pointer: '/gruposProdutos/0', file: 'm.yaml', interpolatedPaths: [] },
    locate: () => at,
  };
}

function liveGroup(id: number, nome: string, parent?: string): LiveRecord {
  return {
    kind: 'gruposProdutos',
    id,
    identity: parent ? `${parent} > ${nome}` : nome,
    name: nome,
    fields: { nome, ...(parent ? { grupoProdutoPai: parent } : {}) },
    raw: { id, nome },
    ...(parent ? { parent } : {}),
    detailLoaded: false,
  };
}

function plan(records: DesiredRecord[], live: LiveRecord[], policy: Partial<Policy> = {}) {
  const desired: DesiredState = {
    files: ['m.yaml'],
    digest: 'd',
    declaredKinds: new Set(['gruposProdutos']),
    records: new Map([['gruposProdutos', records]]),
    policy: { ...defaultPolicy, ...policy },
  };
  return buildPlan(desired, { records: new Map([['gruposProdutos', live]]), reads: 1 }, [groups], {
    target: { mode: 'sandbox', id: 'sandbox:test', name: 'sandbox', account: { id: 'test-account', nome: 'Loja Teste Ltda', cnpj: '12.345.678/0001-90' } },
    allowReplace: false,
    allowCascade: false,
    rate: 2,
  });
}

const summary = (result: ReturnType<typeof plan>) => result.plan.changes.map((c) => `${c.action} ${c.key}${c.liveId ? ` #${c.liveId}` : ''} w${c.wave}`);

describe('buildPlan', () => {
  it('creates parents before children, in waves', () => {
    const result = plan([desiredGroup('Pele'), desiredGroup('Hidratantes', { pai: 'Pele' })], []);
    expect(summary(result)).toEqual(['create Pele w1', 'create Pele > Hidratantes w2']);
    expect(result.plan.changes[1]?.dependsOn).toEqual(['gruposProdutos:Pele:create']);
  });

  it('plans nothing when the account matches', () => {
    const result = plan([desiredGroup('Pele')], [liveGroup(10, 'Pele')]);
    expect(result.plan.changes).toEqual([]);
    expect(result.diagnostics).toEqual([]);
  });

  it('renames through previousNames instead of deleting and creating', () => {
    const result = plan([desiredGroup('Skincare', { previousNames: ['Pele'] })], [liveGroup(10, 'Pele')], { prune: ['gruposProdutos'] });
    expect(summary(result)).toEqual(['update Skincare #10 w1']);
    expect(result.plan.changes[0]?.reason).toBe('rename');
    expect(result.plan.changes[0]?.fields).toEqual([{ path: 'nome', before: 'Pele', after: 'Skincare' }]);
  });

  it('renames a child and its parent in one plan (found by the chaos suite: the child was created again)', () => {
    const result = plan(
      [desiredGroup('Skincare', { previousNames: ['Pele'] }), desiredGroup('Séruns', { pai: 'Skincare', previousNames: ['Óleos'] })],
      [liveGroup(10, 'Pele'), liveGroup(11, 'Óleos', 'Pele')],
      { prune: ['gruposProdutos'] },
    );
    expect(summary(result)).toEqual(['update Skincare #10 w1', 'update Skincare > Séruns #11 w1']);
    expect(result.plan.changes[1]?.fields).toEqual([{ path: 'nome', before: 'Óleos', after: 'Séruns' }]);
  });

  it('matches the current name before a previous one: a swap by names alone is no change, and says so', () => {
    const result = plan(
      [desiredGroup('B', { previousNames: ['A'] }), desiredGroup('A', { previousNames: ['B'] })],
      [liveGroup(1, 'A'), liveGroup(2, 'B')],
    );
    expect(summary(result)).toEqual([]);
    expect(result.diagnostics.map((d) => `${d.severity} ${d.code}`)).toEqual(['warning previous-name-in-use', 'warning previous-name-in-use']);
  });

  it('swaps two names by renaming both records when each is pinned by id, and the swap settles', () => {
    const result = plan([desiredGroup('B', { id: 1 }), desiredGroup('A', { id: 2 })], [liveGroup(1, 'A'), liveGroup(2, 'B')]);
    expect(summary(result).sort()).toEqual(['update A #2 w1', 'update B #1 w1']);
    expect(summary(plan([desiredGroup('B', { id: 1 }), desiredGroup('A', { id: 2 })], [liveGroup(1, 'B'), liveGroup(2, 'A')]))).toEqual([]);
  });

  it('moves a record to another parent when its name is found elsewhere', () => {
    const result = plan([desiredGroup('Pele'), desiredGroup('Corpo'), desiredGroup('Óleos', { pai: 'Corpo' })], [liveGroup(1, 'Pele'), liveGroup(2, 'Corpo'), liveGroup(3, 'Óleos', 'Pele')]);
    expect(summary(result)).toEqual(['update Corpo > Óleos #3 w1']);
    expect(result.plan.changes[0]?.fields).toEqual([{ path: 'grupoProdutoPai', before: 'Pele', after: 'Corpo' }]);
  });

  it('prunes unmanaged records of owned kinds, children first, and warns past the budget', () => {
    const live = [liveGroup(1, 'Velho'), liveGroup(2, 'Filho', 'Velho'), ...Array.from({ length: 10 }, (_, i) => liveGroup(100 + i, `G${i}`))];
    const result = plan([], live, { prune: ['gruposProdutos'] });
    const velho = result.plan.changes.find((c) => c.key === 'Velho');
    const filho = result.plan.changes.find((c) => c.key === 'Velho > Filho');
    expect(velho?.action).toBe('delete');
    expect(velho?.dependsOn).toEqual([filho?.id]);
    expect((velho?.wave ?? 0) > (filho?.wave ?? 0)).toBe(true);
    expect(result.plan.warnings[0]).toContain('12 records, more than the budget of 10');
  });

  it("passes over the account's own records when pruning, but blocks a tombstone of one", () => {
    const builtIn = { ...liveGroup(7, 'Padrão'), system: 'built-in' as const };
    expect(plan([], [builtIn], { prune: ['gruposProdutos'] }).plan.changes).toEqual([]);
    const tombstone = plan([desiredGroup('Padrão', { ensure: 'absent' })], [builtIn]);
    expect(summary(tombstone)).toEqual(['blocked Padrão #7 w1']);
  });

  it('never removes protected records, and leaves unowned kinds alone', () => {
    const blocked = plan([desiredGroup('Pele', { ensure: 'absent', protect: true })], [liveGroup(1, 'Pele'), liveGroup(2, 'Outro')]);
    expect(summary(blocked)).toEqual(['blocked Pele #1 w1']);
    expect(blocked.plan.changes[0]?.reason).toBe('protected');
  });

  it('blocks deleting a parent whose children stay', () => {
    const result = plan([desiredGroup('Pele', { ensure: 'absent' }), desiredGroup('Óleos', { pai: 'Pele' })], [liveGroup(1, 'Pele'), liveGroup(2, 'Óleos', 'Pele')]);
    expect(result.plan.changes.map((c) => c.action)).toEqual(['blocked']);
    expect(result.plan.changes[0]?.note).toContain('Óleos');
  });

  it('reports two live records with one identity, and a pinned id that does not exist', () => {
    const duplicate = plan([desiredGroup('Pele')], [liveGroup(1, 'Pele'), liveGroup(2, 'Pele')]);
    expect(duplicate.diagnostics.map((d) => d.code)).toEqual(['duplicate-live-records']);
    expect(duplicate.diagnostics[0]?.message).toContain('ids 1, 2');
    const pinned = plan([desiredGroup('Pele', { id: 99 })], [liveGroup(1, 'Pele')]);
    expect(pinned.diagnostics.map((d) => d.code)).toEqual(['pinned-id-not-found']);
  });

  it('reports a parent found neither in the manifests nor in the account', () => {
    const result = plan([desiredGroup('Óleos', { pai: 'Inexistente' })], []);
    expect(result.diagnostics.map((d) => [d.code, d.position])).toEqual([['unresolved-reference', at]]);
  });

  it('is deterministic', () => {
    const records = [desiredGroup('B'), desiredGroup('A'), desiredGroup('C', { pai: 'A' })];
    expect(JSON.stringify(plan(records, []).plan)).toBe(JSON.stringify(plan([...records].reverse(), []).plan));
  });
});
