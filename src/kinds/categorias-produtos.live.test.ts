import { describe, expect, it } from 'vitest';
import { desiredUnit, openAccount, openEditedAccount, planned, readByIdentity, readScope, requireRecord, writeContext } from '../../test/kinds/adapter-support.js';
import type { EmulatorState } from '../emulator/index.js';
import { diffFields } from '../model/diff-fields.js';
import { categoriasProdutos, categoriasProdutos as adapter } from './categorias-produtos.js';

const kind = 'categoriasProdutos';
const listPath = 'GET /categorias/produtos';

/** Roupas > Camisetas > Manga longa, and Calçados. */
function withCatalogue(state: EmulatorState): void {
  state.categoriasProdutos.push(
    { id: 501, descricao: 'Roupas', idCategoriaPai: 0 },
    { id: 502, descricao: 'Camisetas', idCategoriaPai: 501 },
    { id: 503, descricao: 'Manga longa', idCategoriaPai: 502 },
    { id: 504, descricao: 'Calçados', idCategoriaPai: 0 },
  );
}

function categoryWithId(snapshot: EmulatorState, id: number | undefined) {
  return snapshot.categoriasProdutos.find((c) => c.id === id);
}

describe('categoriasProdutos adapter: reading', () => {
  it('is wired to its definition, with the parent immutable and no way to retire', () => {
    expect(adapter.kind).toBe(kind);
    expect(adapter.definition).toBe(categoriasProdutos);
    expect(adapter.immutableFields).toEqual(['categoriaPai']);
    expect([adapter.canDelete, adapter.retire]).toEqual([true, 'none']);
  });

  it('reads an account without product categories with one request', async () => {
    const { emulator, client } = await openAccount();
    expect(await adapter.readLive(client, readScope())).toEqual([]);
    expect(emulator.counters()).toEqual({ [listPath]: 1 });
  });

  it('builds path identities from categoriaPai.id with one list request and no detail GET', async () => {
    const { emulator, client } = await openEditedAccount(withCatalogue);
    const desired = [desiredUnit(kind, 'Roupas > Camisetas', { descricao: 'Camisetas', categoriaPai: 'Roupas' })];
    const records = await readByIdentity(adapter, client, readScope(desired, true));
    expect([...records.keys()]).toEqual(['Roupas', 'Roupas > Camisetas', 'Roupas > Camisetas > Manga longa', 'Calçados']);
    expect(requireRecord(records, 'Roupas > Camisetas > Manga longa')).toMatchObject({
      id: 503,
      name: 'Manga longa',
      parent: 'Roupas > Camisetas',
      fields: { descricao: 'Manga longa', categoriaPai: 'Roupas > Camisetas' },
      raw: { id: 503, descricao: 'Manga longa', categoriaPai: { id: 502 } },
    });
    expect(requireRecord(records, 'Roupas').fields).toEqual({ descricao: 'Roupas' });
    expect([...records.values()].some((r) => r.system)).toBe(false);
    expect(emulator.counters()).toEqual({ [listPath]: 1 });
  });
});

describe('categoriasProdutos adapter: writing', () => {
  it('creates a root and a child under it, and reads them back without drift', async () => {
    const { emulator, client } = await openAccount();
    const root = { descricao: 'Acessórios' };
    const { id: rootId } = await adapter.execute(planned(kind, 'create', 'Acessórios', { desired: root }), writeContext(client, []));
    const child = { descricao: 'Bolsas', categoriaPai: 'Acessórios' };
    const { id: childId } = await adapter.execute(
      planned(kind, 'create', 'Acessórios > Bolsas', { desired: child }),
      writeContext(client, [], undefined, { [`${kind}:Acessórios`]: rootId ?? 0 }),
    );
    const snapshot = emulator.snapshot();
    expect(categoryWithId(snapshot, rootId)).toEqual({ id: rootId, descricao: 'Acessórios', idCategoriaPai: 0 });
    expect(categoryWithId(snapshot, childId)).toEqual({ id: childId, descricao: 'Bolsas', idCategoriaPai: rootId });

    const reread = await readByIdentity(adapter, client);
    expect(diffFields(child, requireRecord(reread, 'Acessórios > Bolsas').fields)).toEqual([]);
  });

  it('renames with a PUT that carries no parent, so the category stays where it is', async () => {
    const { emulator, client } = await openEditedAccount(withCatalogue);
    const records = await readByIdentity(adapter, client);
    const shirts = requireRecord(records, 'Roupas > Camisetas');
    const desired = { descricao: 'Camisas', categoriaPai: 'Roupas' };
    await adapter.execute(planned(kind, 'update', 'Roupas > Camisas', { liveId: shirts.id, reason: 'rename', desired }), writeContext(client, [...records.values()], shirts));
    expect(categoryWithId(emulator.snapshot(), shirts.id)).toEqual({ id: 502, descricao: 'Camisas', idCategoriaPai: 501 });
    expect(emulator.counters()).toEqual({ [listPath]: 1, 'PUT /categorias/produtos/502': 1 });
  });

  it('deletes a leaf category and has no status operations', async () => {
    const { emulator, client } = await openEditedAccount(withCatalogue);
    const records = await readByIdentity(adapter, client);
    const shoes = requireRecord(records, 'Calçados');
    await adapter.execute(planned(kind, 'delete', 'Calçados', { liveId: shoes.id, reason: 'prune' }), writeContext(client, [], shoes));
    expect(categoryWithId(emulator.snapshot(), shoes.id)).toBeUndefined();
    await expect(adapter.execute(planned(kind, 'retire', 'Roupas', { liveId: 501 }), writeContext(client, []))).rejects.toMatchObject({ code: 'INTERNAL' });
  });
});
