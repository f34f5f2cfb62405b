import { describe, expect, it } from 'vitest';
import { desiredUnit, openAccount, openEditedAccount, planned, readByIdentity, readScope, requireRecord, writeContext } from '../../test/kinds/adapter-support.js';
import type { EmulatorState } from '../emulator/index.js';
import { diffFields } from '../model/diff-fields.js';
import { gruposProdutos, gruposProdutos as adapter } from './grupos-produtos.js';

const kind = 'gruposProdutos';
const listPath = 'GET /grupos-produtos';

/** Moda > Feminino > Vestidos, and Casa. */
function withGroups(state: EmulatorState): void {
  state.gruposProdutos.push(
    { id: 601, nome: 'Moda', idGrupoPai: 0 },
    { id: 602, nome: 'Feminino', idGrupoPai: 601 },
    { id: 603, nome: 'Vestidos', idGrupoPai: 602 },
    { id: 604, nome: 'Casa', idGrupoPai: 0 },
  );
}

function groupWithId(snapshot: EmulatorState, id: number | undefined) {
  return snapshot.gruposProdutos.find((g) => g.id === id);
}

describe('gruposProdutos adapter: reading', () => {
  it('is wired to its definition and deletes rather than retires', () => {
    expect(adapter.kind).toBe(kind);
    expect(adapter.definition).toBe(gruposProdutos);
    expect([adapter.canDelete, adapter.retire, adapter.immutableFields]).toEqual([true, 'none', undefined]);
  });

  it('reads an account without groups with one request', async () => {
    const { emulator, client } = await openAccount();
    expect(await adapter.readLive(client, readScope())).toEqual([]);
    expect(emulator.counters()).toEqual({ [listPath]: 1 });
  });

  it('builds path identities from grupoProdutoPai.id with one list request and no detail GET', async () => {
    const { emulator, client } = await openEditedAccount(withGroups);
    const desired = [desiredUnit(kind, 'Moda > Feminino', { nome: 'Feminino', grupoProdutoPai: 'Moda' })];
    const records = await readByIdentity(adapter, client, readScope(desired));
    expect([...records.keys()]).toEqual(['Moda', 'Moda > Feminino', 'Moda > Feminino > Vestidos', 'Casa']);
    expect(requireRecord(records, 'Moda > Feminino > Vestidos')).toMatchObject({
      id: 603,
      parent: 'Moda > Feminino',
      fields: { nome: 'Vestidos', grupoProdutoPai: 'Moda > Feminino' },
      raw: { id: 603, nome: 'Vestidos', grupoProdutoPai: { id: 602, nome: 'Feminino' } },
    });
    expect(requireRecord(records, 'Casa').fields).toEqual({ nome: 'Casa' });
    expect(emulator.counters()).toEqual({ [listPath]: 1 });
  });
});

describe('gruposProdutos adapter: writing', () => {
  it('creates a root and a child, resolving the parent created earlier in the run', async () => {
    const { emulator, client } = await openAccount();
    const { id: rootId } = await adapter.execute(planned(kind, 'create', 'Esporte', { desired: { nome: 'Esporte' } }), writeContext(client, []));
    const child = { nome: 'Ciclismo', grupoProdutoPai: 'Esporte' };
    const { id: childId } = await adapter.execute(
      planned(kind, 'create', 'Esporte > Ciclismo', { desired: child }),
      writeContext(client, [], undefined, { [`${kind}:Esporte`]: rootId ?? 0 }),
    );
    const snapshot = emulator.snapshot();
    expect(groupWithId(snapshot, rootId)).toEqual({ id: rootId, nome: 'Esporte', idGrupoPai: 0 });
    expect(groupWithId(snapshot, childId)).toEqual({ id: childId, nome: 'Ciclismo', idGrupoPai: rootId });
    const reread = await readByIdentity(adapter, client);
    expect(diffFields(child, requireRecord(reread, 'Esporte > Ciclismo').fields)).toEqual([]);
  });

  it('renames with a PUT that keeps the parent the manifest does not mention', async () => {
    const { emulator, client } = await openEditedAccount(withGroups);
    const records = await readByIdentity(adapter, client);
    const dresses = requireRecord(records, 'Moda > Feminino > Vestidos');
    await adapter.execute(
      planned(kind, 'update', 'Moda > Feminino > Vestidos longos', { liveId: dresses.id, reason: 'rename', desired: { nome: 'Vestidos longos' } }),
      writeContext(client, [...records.values()], dresses),
    );
    expect(groupWithId(emulator.snapshot(), dresses.id)).toEqual({ id: 603, nome: 'Vestidos longos', idGrupoPai: 602 });
    expect(emulator.counters()).toEqual({ [listPath]: 1, 'PUT /grupos-produtos/603': 1 });
  });

  it('moves a group to another parent, one renamed in the same run', async () => {
    const { emulator, client } = await openEditedAccount(withGroups);
    const records = await readByIdentity(adapter, client);
    const dresses = requireRecord(records, 'Moda > Feminino > Vestidos');
    const desired = { nome: 'Vestidos', grupoProdutoPai: 'Lar' };
    await adapter.execute(
      planned(kind, 'update', 'Lar > Vestidos', { liveId: dresses.id, desired }),
      writeContext(client, [...records.values()], dresses, { [`${kind}:Lar`]: 604 }),
    );
    expect(groupWithId(emulator.snapshot(), dresses.id)).toEqual({ id: 603, nome: 'Vestidos', idGrupoPai: 604 });
  });

  it('deletes a group and has no status operations', async () => {
    const { emulator, client } = await openEditedAccount(withGroups);
    const records = await readByIdentity(adapter, client);
    const home = requireRecord(records, 'Casa');
    await adapter.execute(planned(kind, 'delete', 'Casa', { liveId: home.id, reason: 'prune' }), writeContext(client, [], home));
    expect(groupWithId(emulator.snapshot(), home.id)).toBeUndefined();
    expect(emulator.counters()['DELETE /grupos-produtos/604']).toBe(1);
    await expect(adapter.execute(planned(kind, 'set-status', 'Moda', { liveId: 601 }), writeContext(client, []))).rejects.toMatchObject({ code: 'INTERNAL' });
  });
});
