// A token without a resource's scope gets 403 `insufficient_scope` (real-observations #4); the
// client turns it into an AUTH_SCOPE error naming the kind and the resource, and a run that meets
// it says what to grant. In-use refusals carry the real `fields[].code` 64 (real-observations #14).
import { describe, expect, it } from 'vitest';
import { ApiError, createApiClient, createStaticTokenProvider } from '../../src/api/index.js';
import { readSandboxOptions } from '../../src/cli/sandbox-command.js';
import { runCli } from '../support/run-cli.js';
import { onCleanup, startEmulator, tempDir } from './support.js';

describe('a token missing a scope', () => {
  it('reads what it may, and gets a typed error naming the kind and resource for the rest', async () => {
    const emulator = await startEmulator({ scopes: ['empresas', 'formas-pagamentos'] });
    const client = createApiClient({ baseUrl: emulator.baseUrl, credentials: createStaticTokenProvider(emulator.token), rate: Number.POSITIVE_INFINITY });
    onCleanup(() => client.close());
    expect((await client.listAll('/formas-pagamentos')).length).toBeGreaterThan(0);
    const error = await client.listAll('/categorias/receitas-despesas', undefined, { kind: 'categoriasReceitasDespesas' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'AUTH_SCOPE', status: 403, category: 'forbidden', type: 'insufficient_scope' });
    expect((error as ApiError).message).toBe(
      'GET /categorias/receitas-despesas?pagina=1&limite=100: 403 the access token lacks the scope for categoriasReceitasDespesas (/categorias/receitas-despesas) — insufficient_scope',
    );
    expect((error as ApiError).details.join('\n')).toMatch(/erpsync doctor/);
    // Only the one 403: a scope error is not retried.
    expect(emulator.requestLog().filter((e) => e.status === 403)).toHaveLength(1);
  });

  it('stops a plan with exit 1 and the kind it could not read', async () => {
    const emulator = await startEmulator({ scopes: ['empresas', 'formas-pagamentos'] });
    const dir = await tempDir();
    const { writeFile } = await import('node:fs/promises');
    await writeFile(`${dir}/m.yaml`, 'version: 1\ncategoriasReceitasDespesas:\n  - { descricao: Marketing, tipo: despesa }\n');
    const run = await runCli(['plan', 'm.yaml', '--base-url', emulator.baseUrl], { cwd: dir, env: { BLING_ACCESS_TOKEN: emulator.token } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/403 the access token lacks the scope for categoriasReceitasDespesas \(\/categorias\/receitas-despesas\)/);
    expect(run.stderr).not.toContain(emulator.token);
  });

  it('is what `erpsync sandbox --scopes` serves', () => {
    expect(readSandboxOptions(['--scopes', 'empresas, logisticas'], {}, '/tmp').emulator.scopes).toEqual(['empresas', 'logisticas']);
    expect(readSandboxOptions([], { ERPSYNC_SANDBOX_SCOPES: 'depositos' }, '/tmp').emulator.scopes).toEqual(['depositos']);
    expect(readSandboxOptions([], {}, '/tmp').emulator.scopes).toBeUndefined();
  });
});

describe('real error codes', () => {
  it('answers a DELETE of a record in use with fields[].code 64', async () => {
    const emulator = await startEmulator();
    const client = createApiClient({ baseUrl: emulator.baseUrl, credentials: createStaticTokenProvider(emulator.token), rate: Number.POSITIVE_INFINITY });
    onCleanup(() => client.close());
    const situation = await client.request<{ id: number }>({ method: 'POST', path: '/situacoes', body: { idModuloSistema: 98310, nome: 'Separando', cor: '#112233', idHerdado: 9 } });
    await client.request({ method: 'POST', path: '/situacoes/transicoes', body: { modulo: { id: 98310 }, situacaoOrigem: { id: 6 }, situacaoDestino: { id: situation.data.id }, acoes: [], ativo: true } });
    const error = await client.request({ method: 'DELETE', path: `/situacoes/${situation.data.id}` }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, fields: [expect.objectContaining({ code: 64 })] });
  });
});
