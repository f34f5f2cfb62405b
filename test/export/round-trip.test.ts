// export end to end against the emulator over HTTP: the round trip (export, then `validate` finds
// nothing wrong and `plan` finds no change) on the fresh seed and on an account populated with
// every kind, the stdout stream, --kinds, and the default schema line.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exportFileName } from '../../src/export/build-export.js';
import { registry } from '../../src/kinds/registry.js';
import { runCli } from '../support/run-cli.js';
import { copyExample, examplePassword, findId, openTestAccount } from './support.js';
import type { TestAccount } from './support.js';

let account: TestAccount | undefined;
afterEach(async () => {
  await account?.close();
  account = undefined;
});

const kindFiles = registry.kinds.map((kind) => exportFileName(kind.key)).sort();

/** Exports into `out`, then checks the round trip: validate clean, plan empty. */
async function roundTrip(open: TestAccount, env: NodeJS.ProcessEnv): Promise<string> {
  const exported = await runCli(['export', '--out', 'out', '--schema', '../../../../schemas/manifest.schema.json'], { cwd: open.dir, env });
  expect(exported.stderr).toBe('');
  expect(exported.code).toBe(0);
  expect(readdirSync(path.join(open.dir, 'out')).sort()).toEqual(kindFiles);

  const validated = await runCli(['validate', 'out'], { cwd: open.dir, env });
  expect(validated.code).toBe(0);
  expect(validated.stdout).toMatch(/\(0 errors, 0 warnings, \d+ notes\)/);

  const planned = await runCli(['plan', 'out', '--detailed-exitcode'], { cwd: open.dir, env });
  expect(planned.stderr).toBe('');
  expect(planned.stdout).toContain('No changes. The account matches the manifests.');
  expect(planned.code).toBe(0);
  return exported.stdout;
}

function readExport(open: TestAccount, file: string): string {
  return readFileSync(path.join(open.dir, 'out', file), 'utf8');
}

describe('erpsync export round trip', () => {
  it('holds on the fresh seed: only what a new account has besides its own records', async () => {
    account = await openTestAccount();
    const summary = await roundTrip(account, account.env);
    expect(summary).toContain('formas-pagamentos.yaml: 4 records, 2 of the account\'s own left out');
    expect(summary).toContain('categorias-receitas-despesas.yaml: 0 records, 62 of the account\'s own left out');
    const payments = readExport(account, 'formas-pagamentos.yaml');
    expect(payments).not.toContain('Dinheiro');
    expect(payments).toContain('tipoPagamento: pix-estatico');
    expect(readExport(account, 'situacoes.yaml')).toContain('situacoes: []');
    // The built-in transitions are the account's own; its default warehouse is not (it can be retired).
    expect(readExport(account, 'transicoes.yaml')).toContain('transicoes: []');
    expect(readExport(account, 'depositos.yaml')).toMatch(/- descricao: Geral\n\s+padrao: true/);
  });

  it('holds on an account populated with every kind, edited in the ERP too', async () => {
    account = await openTestAccount();
    const env = { ...account.env, NFSE_SENHA_PREFEITURA: examplePassword };
    copyExample(account, 'loja-nova', 'loja');
    const applied = await runCli(['apply', 'loja', '--auto-approve', '--concurrency', '1'], { cwd: account.dir, env });
    expect(applied.code).toBe(0);
    // Edits no manifest made: a retired method, a retired service, a disabled logistics, and a
    // default category given another DRE group. (The fresh account's "Pix" is the example's own.)
    await account.call('PATCH', `/formas-pagamentos/${await findId(account, '/formas-pagamentos', 'Cartão de débito')}/situacao`, { situacao: 0 });
    const services = (await account.call('GET', '/logisticas/servicos')) as { data: { id: number; codigo: string }[] };
    await account.call('PATCH', `/logisticas/${services.data.find((s) => s.codigo === 'MOTO-AGENDADA')?.id}/situacoes`, { ativo: false });
    await account.call('PUT', `/logisticas/${await findId(account, '/logisticas', 'Retirada na loja')}`, { descricao: 'Retirada na loja', situacao: 'D' });
    const tarifa = await findId(account, '/categorias/receitas-despesas', 'Tarifa bancária');
    await account.call('PUT', `/categorias/receitas-despesas/${tarifa}`, { descricao: 'Tarifa bancária', tipo: 1, idCategoriaPai: 0, grupoDRE: 11 });
    // …and in the newer kinds: a warehouse retired, a transition switched off, a store link recoded.
    await account.call('PUT', `/depositos/${await findId(account, '/depositos', 'Consignado')}`, { descricao: 'Consignado', situacao: 0, padrao: false, desconsiderarSaldo: true });
    const transitions = (await account.call('GET', '/situacoes/modulos/98310/transicoes')) as { data: { id: number; situacaoOrigem: { nome: string }; situacaoDestino: { id: number; nome: string }; acoes: number[] }[] };
    const toSeparating = transitions.data.find((t) => t.situacaoOrigem.nome === 'Aguardando pagamento' && t.situacaoDestino.nome === 'Separando pedido');
    const origem = (await account.call('GET', '/situacoes/modulos/98310')) as { data: { id: number; nome: string }[] };
    await account.call('PUT', `/situacoes/transicoes/${toSeparating?.id}`, {
      situacaoOrigem: { id: origem.data.find((s) => s.nome === 'Aguardando pagamento')?.id },
      situacaoDestino: { id: toSeparating?.situacaoDestino.id },
      acoes: toSeparating?.acoes,
      ativo: false,
    });
    const links = (await account.call('GET', '/categorias/lojas')) as { data: { id: number; loja: { id: number }; descricao: string; categoriaProduto: { id: number } }[] };
    const link = links.data.find((l) => l.descricao === 'Maquiagem');
    await account.call('PUT', `/categorias/lojas/${link?.id}`, { loja: link?.loja, descricao: 'Maquiagem', codigo: '101', categoriaProduto: link?.categoriaProduto });
    // …and custom fields: one switched off, another given a choice and made mandatory.
    const productFields = (await account.call('GET', '/campos-customizados/modulos/14693216702')) as { data: { id: number; nome: string }[] };
    const contactFields = (await account.call('GET', '/campos-customizados/modulos/14693216701')) as { data: { id: number; nome: string }[] };
    await account.call('PATCH', `/campos-customizados/${contactFields.data.find((f) => f.nome === 'Tipo de pele')?.id}/situacoes`, { situacao: 0 });
    const tone = productFields.data.find((f) => f.nome === 'Tom de pele')?.id;
    const toneDetail = (await account.call('GET', `/campos-customizados/${tone}`)) as { data: Record<string, unknown> & { opcoes: { id: number; nome: string }[] } };
    await account.call('PUT', `/campos-customizados/${tone}`, { ...toneDetail.data, obrigatorio: true, opcoes: [...toneDetail.data.opcoes, { nome: 'Negro' }] });

    await roundTrip(account, env);
    for (const file of kindFiles) {
      const text = readExport(account, file);
      expect(text).not.toContain(examplePassword);
      await expect(text).toMatchFileSnapshot(path.join(import.meta.dirname, 'golden', 'loja-nova', file));
    }
  });

  it('needs the secret variables it writes to plan', async () => {
    account = await openTestAccount();
    copyExample(account, 'loja-nova', 'loja');
    const env = { ...account.env, NFSE_SENHA_PREFEITURA: examplePassword };
    expect((await runCli(['apply', 'loja', '--auto-approve'], { cwd: account.dir, env })).code).toBe(0);
    const exported = await runCli(['export', '--out', 'out', '--kinds', 'configuracoesNfse'], { cwd: account.dir, env: account.env });
    expect(exported.stdout).toContain('set NFSE_SENHA_PREFEITURA before `erpsync plan`');
    const withoutSecret = await runCli(['plan', 'out'], { cwd: account.dir, env: account.env });
    expect(withoutSecret.code).toBe(1);
    expect(withoutSecret.stderr).toContain('NFSE_SENHA_PREFEITURA');
    const withSecret = await runCli(['plan', 'out', '--detailed-exitcode'], { cwd: account.dir, env });
    expect(withSecret.code).toBe(0);
  });
});

describe('erpsync export', () => {
  it('writes one multi-document stream to stdout that is itself a manifest file', async () => {
    account = await openTestAccount();
    const exported = await runCli(['export'], { cwd: account.dir, env: account.env });
    expect(exported.code).toBe(0);
    expect(exported.stderr).toContain(`Exported ${registry.kinds.length} kind(s)`);
    expect(exported.stdout.split('\n---\n')).toHaveLength(registry.kinds.length);
    writeFileSync(path.join(account.dir, 'store.yaml'), exported.stdout);
    expect((await runCli(['validate', 'store.yaml'], { cwd: account.dir, env: {} })).code).toBe(0);
    expect((await runCli(['plan', 'store.yaml', '--detailed-exitcode'], { cwd: account.dir, env: account.env })).code).toBe(0);
  });

  it('exports the kinds asked for, with a schema line that points at the bundled schema', async () => {
    account = await openTestAccount();
    const exported = await runCli(['export', '--kinds', 'gruposProdutos, situacoes', '--out', 'deep/out', '--json'], { cwd: account.dir, env: account.env });
    expect(exported.code).toBe(0);
    const summary = JSON.parse(exported.stdout) as { files: { file: string }[] };
    expect(summary.files.map((f) => f.file)).toEqual(['grupos-produtos.yaml', 'situacoes.yaml']);
    const dir = path.join(account.dir, 'deep', 'out');
    const first = readFileSync(path.join(dir, 'situacoes.yaml'), 'utf8').split('\n')[0] ?? '';
    const schema = first.replace('# yaml-language-server: $schema=', '');
    expect(existsSync(path.resolve(dir, schema))).toBe(true);
  });

  it('refuses an unknown kind with a suggestion', async () => {
    account = await openTestAccount();
    const refused = await runCli(['export', '--kinds', 'gruposProduto'], { cwd: account.dir, env: account.env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('did you mean `gruposProdutos`');
  });
});
