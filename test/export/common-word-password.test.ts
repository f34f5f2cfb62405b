// A city-hall password that is a common word or number (`2024`, `loja`) is masked where it is —
// in its secret field — and nowhere else: export writes the names that hold the same text
// intact, planning the export against the same account plans nothing, and the reports (drift as
// JSON and Markdown, plan as JSON) show the names as they are. The account is the sandbox.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

const names = { categoriasProdutos: ['Coleção 2024', 'loja nova', 'Loja 2024'], gruposProdutos: ['Linha 2024 loja', '2024'] };
const manifest = [
  'version: 1',
  'configuracoesNfse:',
  '  adicionais:',
  '    cadastroPrefeitura:',
  '      login: lojabela',
  '      senha: ${NFSE_SENHA_PREFEITURA}',
  'categoriasProdutos:',
  ...names.categoriasProdutos.map((n) => `  - descricao: "${n}"`),
  'gruposProdutos:',
  ...names.gruposProdutos.map((n) => `  - nome: "${n}"`),
  '',
].join('\n');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-common-password-'));
  writeFileSync(path.join(dir, 'm.yaml'), manifest);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe.each(['2024', 'loja'])('with the city-hall password %j', (password) => {
  const env = () => ({ NFSE_SENHA_PREFEITURA: password, ERPSYNC_LOCK_DIR: path.join(dir, 'locks') });
  const run = (args: string[]) => runCli([...args, '--sandbox'], { cwd: dir, env: env() });

  it('export writes every name intact, the password only as its variable, and the export plans clean', async () => {
    expect((await run(['apply', 'm.yaml', '--auto-approve'])).code).toBe(0);
    const exported = await run(['export', '--out', 'out']);
    expect(exported.code, exported.stderr).toBe(0);
    const files = Object.fromEntries(readdirSync(path.join(dir, 'out')).map((f) => [f, readFileSync(path.join(dir, 'out', f), 'utf8')]));
    const all = Object.values(files).join('\n');
    expect(all).not.toContain('[redacted]');
    for (const name of names.categoriasProdutos) expect(files['categorias-produtos.yaml']).toContain(name);
    for (const name of names.gruposProdutos) expect(files['grupos-produtos.yaml']).toContain(name);
    expect(files['configuracoes-nfse.yaml']).toMatch(/senha: \$\{NFSE_SENHA_PREFEITURA\}/);
    expect(files['configuracoes-nfse.yaml']).toContain('login: lojabela');

    const planned = await run(['plan', 'out', '--detailed-exitcode']);
    expect(planned.stdout + planned.stderr).toContain('No changes.');
    expect(planned.code).toBe(0);
  });

  it('reports show the names as they are', async () => {
    expect((await run(['apply', 'm.yaml', '--auto-approve'])).code).toBe(0);
    writeFileSync(path.join(dir, 'other.yaml'), 'version: 1\ngruposProdutos:\n  - nome: Outro\n');
    const json = await run(['drift', 'other.yaml', '--format', 'json']);
    const markdown = await run(['drift', 'other.yaml', '--format', 'markdown']);
    const plan = await run(['plan', 'other.yaml', '--json']);
    for (const output of [json.stdout, markdown.stdout, plan.stdout]) expect(output).not.toContain('[redacted]');
    for (const name of names.gruposProdutos) expect(markdown.stdout).toContain(name);
    const report = JSON.parse(json.stdout) as { findings: { key: string }[] };
    expect(report.findings.map((f) => f.key)).toEqual(expect.arrayContaining(names.gruposProdutos));
  });
});
