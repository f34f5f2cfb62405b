// The state file keeps the account's secrets sealed: the city-hall password never sits in it as
// text, comes back with the key file beside it, and is simply gone without that key.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readStateFile, writeStateFile } from './persistence.js';
import { buildSeed } from './seed.js';

const password = 'senha-da-prefeitura-123';
let dir: string | undefined;

afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function stateWithPassword() {
  const state = buildSeed('fresh');
  state.nfseConfiguracoes.adicionais.cadastroPrefeitura = { login: 'loja', senha: password };
  return { formatVersion: 1 as const, state, auth: { access: [], refresh: [] } };
}

describe('state file secrets (found by the secrets suite: the sandbox state held the password as text)', () => {
  it('seals the password in the file and opens it with the key beside it', async () => {
    dir = await mkdtemp(join(tmpdir(), 'erpsync-persistence-'));
    const file = join(dir, 'sandbox.json');
    await writeStateFile(file, stateWithPassword());
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(password);
    expect(text).toContain('"login": "loja"');
    expect((await stat(`${file}.key`)).mode & 0o777).toBe(0o600);
    expect((await readStateFile(file))?.state.nfseConfiguracoes.adicionais.cadastroPrefeitura).toEqual({ login: 'loja', senha: password });
  });

  it('reads a sealed password as empty without its key, and an empty one needs no key', async () => {
    dir = await mkdtemp(join(tmpdir(), 'erpsync-persistence-'));
    const file = join(dir, 'sandbox.json');
    await writeStateFile(file, stateWithPassword());
    await rm(`${file}.key`);
    expect((await readStateFile(file))?.state.nfseConfiguracoes.adicionais.cadastroPrefeitura.senha).toBe('');
    const plain = join(dir, 'plain.json');
    await writeStateFile(plain, { formatVersion: 1, state: buildSeed('fresh'), auth: { access: [], refresh: [] } });
    await expect(stat(`${plain}.key`)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
