// GET /empresas/me/dados-basicos: the seeded company of a fresh account, the shape of the official
// schema (EmpresasDadosBasicosDTO), createEmulator's `company` option for a second account, and a
// company id of its own for every new state file.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';

const open: Emulator[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

async function company(emulator: Emulator): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${emulator.baseUrl}/empresas/me/dados-basicos`, { headers: { authorization: `Bearer ${emulator.token}` } });
  return { status: response.status, body: await response.json() };
}

describe('the company route', () => {
  it('answers the seeded company in the data envelope, and another one when asked', async () => {
    const first = await createEmulator({ rateLimit: 0 });
    const second = await createEmulator({ rateLimit: 0, company: { id: 'b'.repeat(32), nome: 'Loja Dois Ltda' } });
    open.push(first, second);
    const a = await company(first);
    expect(a.status).toBe(200);
    expect(a.body).toEqual({
      data: { id: expect.stringMatching(/^[0-9a-f]{32}$/), nome: 'Loja Sandbox Ltda', cnpj: '12.345.678/0001-90', email: expect.any(String), dataContrato: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) },
    });
    expect((await company(second)).body).toMatchObject({ data: { id: 'b'.repeat(32), nome: 'Loja Dois Ltda', cnpj: '12.345.678/0001-90' } });
    expect(second.snapshot().empresa?.nome).toBe('Loja Dois Ltda');
  });

  it('gives every new state file an account id of its own, and keeps it in the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'erpsync-company-'));
    try {
      const idOf = async (stateFile: string): Promise<string> => {
        const emulator = await createEmulator({ rateLimit: 0, stateFile });
        const body = (await company(emulator)).body as { data: { id: string } };
        await emulator.close();
        return body.data.id;
      };
      const centro = await idOf(join(dir, 'centro.json'));
      const sul = await idOf(join(dir, 'sul.json'));
      expect(centro).toMatch(/^[0-9a-f]{32}$/);
      expect(sul).not.toBe(centro);
      expect(JSON.parse(await readFile(join(dir, 'centro.json'), 'utf8'))).toMatchObject({ state: { empresa: { id: centro } } });
      // An existing state file is the same account on every start.
      expect(await idOf(join(dir, 'centro.json'))).toBe(centro);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
