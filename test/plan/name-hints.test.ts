// Names the planner cannot judge by identity alone, warned about before apply: a create and a
// removal in one kind whose records differ only a little in the name (and in nothing else the
// manifest sets) suggest previousNames; a create whose name differs from a live record's only in
// case or accents would make a twin.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openTestAccount } from '../export/support.js';
import type { TestAccount } from '../export/support.js';
import { runCli } from '../support/run-cli.js';

let account: TestAccount | undefined;
afterEach(async () => {
  await account?.close();
  account = undefined;
});

const payment = (descricao: string, finalidade: string) => `  - { descricao: ${descricao}, tipoPagamento: boleto, finalidade: ${finalidade}, destino: contas }\n`;

async function open(): Promise<(file: string, yaml: string, ...args: string[]) => ReturnType<typeof runCli>> {
  account = await openTestAccount();
  const { dir, env } = account;
  return (file, yaml, ...args) => {
    writeFileSync(path.join(dir, file), yaml);
    return runCli([args[0] ?? 'plan', file, ...args.slice(1)], { cwd: dir, env });
  };
}

const warnings = (stderr: string) => stderr.split('\n').filter((line) => line.includes('warning:') || line.startsWith('    hint:'));

describe('names that differ slightly', () => {
  it('a delete and a create that differ only a little in the name suggest previousNames; other fields that differ do not', async () => {
    const run = await open();
    const before = `version: 1\npolicy: { prune: [gruposProdutos, formasPagamentos] }\ngruposProdutos:\n  - nome: Revenda\n  - nome: Maquiagem\nformasPagamentos:\n${payment('Boleto Itaú', 'recebimentos')}`;
    expect((await run('a.yaml', before, 'apply', '--auto-approve')).code).toBe(0);
    const after = `version: 1\npolicy: { prune: [gruposProdutos, formasPagamentos] }\ngruposProdutos:\n  - nome: Revendas\n  - nome: Maquiagem\nformasPagamentos:\n${payment('Boleto Itau', 'pagamentos')}`;
    const plan = await run('b.yaml', after);
    expect(plan.code).toBe(0);
    expect(warnings(plan.stderr)).toEqual([
      expect.stringMatching(/^b\.yaml:4:11: warning: looks-like-rename: `Revendas` is created while `Revenda` \(id \d+\) is removed, and the two differ only a little in the name$/),
      '    hint: if this is a rename, add `previousNames: ["Revenda"]`: the record is then updated and keeps its id and what refers to it',
    ]);
  });

  it('a create whose name differs from a live record only in case or accents is a twin in the making', async () => {
    const run = await open();
    expect((await run('a.yaml', 'version: 1\ngruposProdutos:\n  - nome: Acessórios\n', 'apply', '--auto-approve')).code).toBe(0);
    const plan = await run('b.yaml', 'version: 1\ngruposProdutos:\n  - nome: ACESSORIOS\n');
    expect(warnings(plan.stderr)).toEqual([
      expect.stringMatching(/^b\.yaml:3:11: warning: near-duplicate-in-account: `ACESSORIOS` is created beside the gruposProdutos record `Acessórios` \(id \d+\), which differs from it only in case, accents, look-alike letters or invisible characters$/),
      '    hint: the account would hold two records that look the same; to manage that one, write its name as the account has it, or rename it with `previousNames: ["Acessórios"]`',
    ]);
  });
});
