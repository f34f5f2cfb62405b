// settleReferrers is pure: these tests give it removals and the account's records directly and
// check what it decides for the records that name a removed one — block, order, cascade, or read.
import { describe, expect, it } from 'vitest';
import { registry } from '../kinds/registry.js';
import type { UnitKind } from '../model/kinds.js';
import type { LiveRecord, WholeRead } from '../model/live.js';
import type { Change } from '../model/plan.js';
import { newChange } from './plan-changes.js';
import type { ReferrerContext } from './referrers.js';
import { settleReferrers } from './referrers.js';

function live(kind: UnitKind, id: number, identity: string, fields: Record<string, unknown>): LiveRecord {
  return { kind, id, identity, name: identity, fields, raw: { id }, detailLoaded: true };
}

const boca = live('categoriasProdutos', 1, 'Maquiagem > Boca', { descricao: 'Boca', categoriaPai: 'Maquiagem' });
const olhos = live('categoriasProdutos', 2, 'Maquiagem > Olhos', { descricao: 'Olhos', categoriaPai: 'Maquiagem' });
const link = live('categoriasLojas', 10, 'Loja Virtual > Maquiagem > Boca', { loja: 'Loja Virtual', categoriaProduto: 'Maquiagem > Boca', descricao: 'Boca', codigo: '12' });
const field = live('camposCustomizados', 20, 'Produtos > Acabamento', { modulo: 'Produtos', nome: 'Acabamento', agrupadores: { categoriasProdutos: ['Maquiagem > Olhos', 'Maquiagem > Boca'] } });

const records = new Map<UnitKind, LiveRecord[]>([
  ['categoriasProdutos', [boca, olhos]],
  ['categoriasLojas', [link]],
  ['camposCustomizados', [field]],
]);

function context(options: Partial<ReferrerContext> = {}): ReferrerContext {
  const whole = new Map<UnitKind, WholeRead>([
    ['categoriasLojas', true],
    ['camposCustomizados', true],
  ]);
  return { units: registry.units, liveOf: (kind) => records.get(kind) ?? [], whole, declared: () => false, claimedAs: () => undefined, allowCascade: false, ...options };
}

const remove = (record: LiveRecord, reason: Change['reason'] = 'tombstone'): Change => ({ ...newChange('delete', record.kind, record.identity, reason, []), liveId: record.id });

describe('settleReferrers', () => {
  it('blocks a removal named by undeclared records, naming each and the ways out', () => {
    const changes = [remove(boca)];
    const settled = settleReferrers(changes, context());
    expect(changes).toHaveLength(1);
    expect(changes[0]?.action).toBe('blocked');
    expect(changes[0]?.note).toContain('categoriasLojas "Loja Virtual > Maquiagem > Boca", camposCustomizados "Produtos > Acabamento"');
    expect(changes[0]?.note).toContain('--allow-cascade');
    expect(settled.preconditions.size).toBe(0);
  });

  it('with --allow-cascade deletes the link and takes the name out of the grouping before the removal', () => {
    const changes = [remove(boca)];
    const settled = settleReferrers(changes, context({ allowCascade: true }));
    const [removal, ...cascades] = changes;
    expect(cascades.map((c) => `${c.action} ${c.kind} ${c.reason}`)).toEqual(['delete categoriasLojas cascade', 'update camposCustomizados cascade']);
    expect(cascades[1]?.fields).toEqual([{ path: 'agrupadores.categoriasProdutos', before: ['Maquiagem > Olhos', 'Maquiagem > Boca'], after: ['Maquiagem > Olhos'] }]);
    expect(removal?.dependsOn).toEqual(cascades.map((c) => c.id).sort());
    expect(settled.preconditions.get(removal?.id ?? '')?.referrers).toEqual([
      { kind: 'categoriasLojas', id: 10 },
      { kind: 'camposCustomizados', id: 20 },
    ]);
  });

  it('takes two removed names out of one grouping in one change', () => {
    const changes = [remove(boca), remove(olhos)];
    settleReferrers(changes, context({ allowCascade: true }));
    const updates = changes.filter((c) => c.kind === 'camposCustomizados');
    expect(updates).toHaveLength(1);
    expect(updates[0]?.fields[0]?.after).toEqual([]);
  });

  it('asks for the kinds whose read may miss a referrer, and blocks until they are read', () => {
    const changes = [remove(boca)];
    const settled = settleReferrers(changes, context({ whole: new Map([['camposCustomizados', true]]) }));
    expect(changes[0]?.action).toBe('blocked');
    expect(settled.toRead?.kinds).toEqual(['categoriasLojas']);
    expect(settled.toRead?.removing.get('categoriasProdutos')).toEqual([{ id: 1, identity: 'Maquiagem > Boca' }]);
  });

  it('orders the removal after declared referrers that the plan removes or changes away from it', () => {
    const unlink = { ...newChange('delete', 'categoriasLojas', link.identity, 'tombstone', []), liveId: link.id };
    const regroup = { ...newChange('update', 'camposCustomizados', field.identity, 'drift', [], { ...field.fields, agrupadores: { categoriasProdutos: ['Maquiagem > Olhos'] } }), liveId: field.id };
    const changes = [remove(boca), unlink, regroup];
    settleReferrers(changes, context({ declared: () => true }));
    expect(changes[0]?.action).toBe('delete');
    expect(changes[0]?.dependsOn).toEqual([regroup.id, unlink.id].sort());
  });

  it('blocks while a declared referrer keeps naming it (a field left out keeps its live value)', () => {
    const untouched = { ...newChange('update', 'camposCustomizados', field.identity, 'drift', [], { modulo: 'Produtos', nome: 'Acabamento', obrigatorio: true }), liveId: field.id };
    const unlink = { ...newChange('delete', 'categoriasLojas', link.identity, 'tombstone', []), liveId: link.id };
    const changes = [remove(boca), unlink, untouched];
    settleReferrers(changes, context({ declared: () => true }));
    expect(changes[0]?.action).toBe('blocked');
    expect(changes[0]?.note).toContain('camposCustomizados "Produtos > Acabamento"');
  });

  it('blocks a replacement of a record others name without --allow-cascade, naming the way out', () => {
    const changes = [remove(boca, 'replace'), newChange('create', 'categoriasProdutos', 'Rosto > Boca', 'replace', [])];
    settleReferrers(changes, context({ claimedAs: () => 'Rosto > Boca' }));
    expect(changes[0]?.action).toBe('blocked');
    expect(changes[0]?.note).toContain('re-creates it under a new id');
    expect(changes[0]?.note).toContain('plan with --allow-cascade to have them name the new record');
    // Blocked whole: a create alone would leave the old record beside the new one.
    expect(changes[1]?.action).toBe('blocked');
    expect(changes[1]?.note).toContain('whose removal is blocked: nothing is created either');
  });

  describe('with --allow-cascade, a replacement', () => {
    const withoutLink = (kind: UnitKind) => (kind === 'categoriasLojas' ? [] : (records.get(kind) ?? []));
    const replaced = () => [remove(boca, 'replace'), newChange('create', 'categoriasProdutos', 'Rosto > Boca', 'replace', [])];

    it('has its referrers name the new record, after its create and before the old one is deleted', () => {
      const changes = replaced();
      const settled = settleReferrers(changes, context({ allowCascade: true, liveOf: withoutLink, claimedAs: () => 'Rosto > Boca' }));
      const [removal, create, repoint] = changes;
      expect([removal?.action, repoint?.action, repoint?.kind, repoint?.reason, repoint?.removal]).toEqual(['delete', 'update', 'camposCustomizados', 'cascade', 'none']);
      expect(repoint?.fields).toEqual([{ path: 'agrupadores.categoriasProdutos', before: ['Maquiagem > Olhos', 'Maquiagem > Boca'], after: ['Maquiagem > Olhos', 'Rosto > Boca'] }]);
      expect(repoint?.desired).toMatchObject({ modulo: 'Produtos', nome: 'Acabamento', agrupadores: { categoriasProdutos: ['Maquiagem > Olhos', 'Rosto > Boca'] } });
      expect(repoint?.note).toContain('changed to name the new record "Rosto > Boca"');
      expect(removal?.dependsOn).toEqual([repoint?.id]);
      expect(create?.dependsOn).toEqual([]);
      expect(settled.preconditions.get(removal?.id ?? '')?.referrers).toEqual([{ kind: 'camposCustomizados', id: 20 }]);
    });

    it('stays blocked where a referrer cannot name another record in place (a store link)', () => {
      const changes = replaced();
      settleReferrers(changes, context({ allowCascade: true, claimedAs: () => 'Rosto > Boca' }));
      expect(changes.map((c) => c.action)).toEqual(['blocked', 'blocked']);
      expect(changes[0]?.note).toContain('categoriasLojas "Loja Virtual > Maquiagem > Boca" names it in categoriaProduto, which the API cannot change in place');
    });

    it('stays blocked when the new record takes the old one’s name', () => {
      const changes = [remove(boca, 'replace'), newChange('create', 'categoriasProdutos', boca.identity, 'replace', [])];
      settleReferrers(changes, context({ allowCascade: true, liveOf: withoutLink, claimedAs: () => boca.identity }));
      expect(changes[0]?.action).toBe('blocked');
      expect(changes[0]?.note).toContain('under the same name');
    });
  });
});
