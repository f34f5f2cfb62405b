// GET /empresas/me/dados-basicos: the seeded company of a fresh account, the shape of the official
// schema (EmpresasDadosBasicosDTO), and createEmulator's `company` option for a second account.
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
});
