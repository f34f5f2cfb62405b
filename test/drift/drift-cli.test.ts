// erpsync drift through the CLI against the emulator: exit codes (0 clean, 2 drift, 1 error, a
// usage mistake included), the account's own records only on request, baselines from git, the
// sandbox banner kept out of piped reports, and the markdown cap pointing at the full report.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { openTestAccount } from '../export/support.js';
import type { TestAccount } from '../export/support.js';
import type { DriftReport } from '../../src/model/drift.js';

let account: TestAccount | undefined;
afterEach(async () => {
  await account?.close();
  account = undefined;
});

async function open(): Promise<TestAccount> {
  account = await openTestAccount();
  return account;
}

function write(dir: string, file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}

function git(dir: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@erpsync.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: dir, stdio: 'ignore' });
}

const groups = 'version: 1\ngruposProdutos:\n  - nome: Revenda\n  - nome: Nacionais\n    grupoProdutoPai: Revenda\n';

describe('erpsync drift', () => {
  it('exits 0 and says so when the account matches', async () => {
    const { dir, env } = await open();
    write(dir, 'm/groups.yaml', groups);
    expect((await runCli(['apply', 'm', '--auto-approve'], { cwd: dir, env })).code).toBe(0);
    const text = await runCli(['drift', 'm'], { cwd: dir, env });
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')[0]).toMatch(/^Account: Loja Sandbox Ltda \(CNPJ 12\.345\.678\/0001-90\) · 127\.0\.0\.1:\d+ · token from BLING_ACCESS_TOKEN$/);
    expect(text.stdout.split('\n')[1]).toBe('No drift: the account matches the manifests (2 managed records, 2 in sync).');
    const junit = await runCli(['drift', 'm', '--format', 'junit'], { cwd: dir, env });
    expect(junit.code).toBe(0);
    expect(junit.stdout).toContain('tests="2" failures="0" errors="0" skipped="0"');
  });

  it('lists the account\'s own records as unmanaged only with --include-builtin, and ignore rules still apply', async () => {
    const { dir, env } = await open();
    write(
      dir,
      'm/pay.yaml',
      'version: 1\npolicy:\n  ignore:\n    - kind: formasPagamentos\n      key: Sem pagamento\n      reason: system method\nformasPagamentos:\n  - descricao: Pix\n    tipoPagamento: pix-estatico\n    finalidade: pagamentos-e-recebimentos\n    destino: caixa-e-bancos\n',
    );
    const unmanaged = (report: DriftReport) => report.findings.filter((f) => f.type === 'unmanaged').map((f) => f.key);
    const plain = JSON.parse((await runCli(['drift', 'm', '--json'], { cwd: dir, env })).stdout) as DriftReport;
    expect(unmanaged(plain)).toEqual(['Boleto bancário', 'Cartão de crédito', 'Cartão de débito']);
    expect(plain.summary.accountOwn).toBe(2);
    expect(plain.ignored[0]?.count).toBe(0);
    const all = JSON.parse((await runCli(['drift', 'm', '--json', '--include-builtin'], { cwd: dir, env })).stdout) as DriftReport;
    expect(unmanaged(all)).toEqual(['Boleto bancário', 'Cartão de crédito', 'Cartão de débito', 'Dinheiro']);
    expect(all.ignored[0]?.count).toBe(1);
  });

  it('reads the kinds that may name a removal the manifests intend, as plan does, and counts them', async () => {
    const { dir, env, emulator } = await open();
    write(dir, 'before/vendas.yaml', 'version: 1\nsituacoes:\n  - modulo: Vendas\n    nome: Em separação\n    herdado: Em andamento\ntransicoes:\n  - modulo: Vendas\n    de: Em aberto\n    para: Em separação\n');
    write(dir, 'm/vendas.yaml', 'version: 1\nsituacoes:\n  - modulo: Vendas\n    nome: Em separação\n    ensure: absent\n');
    expect((await runCli(['apply', 'before', '--auto-approve'], { cwd: dir, env })).code).toBe(0);
    const gets = () => Object.entries(emulator.counters()).filter(([request]) => request.startsWith('GET /') && !request.startsWith('GET /empresas'));
    const sum = (entries: [string, number][]) => entries.reduce((n, [, count]) => n + count, 0);
    const before = sum(gets());
    const transitionReads = () => sum(gets().filter(([request]) => request.includes('/transicoes')));
    const transitionsBefore = transitionReads();
    const drift = await runCli(['drift', 'm', '--json'], { cwd: dir, env });
    expect(drift.code).toBe(2);
    const report = JSON.parse(drift.stdout) as DriftReport;
    const note = report.findings.find((f) => f.key === 'Vendas > Em separação')?.note ?? '';
    expect(note).toContain('named by 1 record(s) that no manifest declares (transicoes "Vendas > Em aberto → Em separação")');
    expect(note).not.toContain('plan again');
    // The transitions were read for the removal, once, and the report's reads count every request.
    expect(transitionReads() - transitionsBefore).toBe(1);
    expect(report.reads).toBe(sum(gets()) - before);
  });

  it('exits 1, not 2, on a usage mistake and on manifests that do not resolve', async () => {
    const { dir, env } = await open();
    write(dir, 'm/groups.yaml', 'version: 1\ngruposProdutos:\n  - nome: Nacionais\n    grupoProdutoPai: Ninguém\n');
    const format = await runCli(['drift', 'm', '--format', 'pdf'], { cwd: dir, env });
    expect(format.code).toBe(1);
    expect(format.stderr).toContain('--format takes text, json, markdown, junit, not `pdf`');
    expect((await runCli(['drift', 'm', '--no-such-flag'], { cwd: dir, env })).code).toBe(1);
    const unresolved = await runCli(['drift', 'm'], { cwd: dir, env });
    expect(unresolved.code).toBe(1);
    expect(unresolved.stderr).toContain('unresolved-reference');
  });

  it('reports every record as pending when the manifests did not exist at the baseline', async () => {
    const { dir, env } = await open();
    write(dir, 'README.md', 'store\n');
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', '.');
    git(dir, 'commit', '-q', '-m', 'start');
    write(dir, 'm/groups.yaml', groups);
    git(dir, 'add', '.');
    git(dir, 'commit', '-q', '-m', 'manifests');
    const report = JSON.parse((await runCli(['drift', 'm', '--json', '--baseline', 'HEAD~1'], { cwd: dir, env })).stdout) as DriftReport;
    expect(report.findings.map((f) => [f.type, f.key, f.note])).toEqual([
      ['pending', 'Revenda', expect.stringMatching(/^added to the manifests since HEAD~1 \([0-9a-f]{7}\), not applied yet$/)],
      ['pending', 'Revenda > Nacionais', expect.stringMatching(/^added to the manifests since HEAD~1/)],
    ]);
    const missingRef = await runCli(['drift', 'm', '--baseline', 'no-such-ref'], { cwd: dir, env });
    expect(missingRef.code).toBe(1);
    expect(missingRef.stderr).toContain('cannot read the baseline from git');
  });

  it('keeps the sandbox banner out of a piped report, and a cut markdown report names the full one', async () => {
    const { dir } = await open();
    write(dir, 'm/groups.yaml', groups);
    const result = await runCli(['drift', 'm', '--format', 'markdown', '--markdown-limit', '400', '--out', 'reports/drift.md'], { cwd: dir, env: {} });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('· local sandbox (state in');
    expect(result.stdout.startsWith('## erpsync drift: 2 missing')).toBe(true);
    expect(result.stdout.length).toBeLessThanOrEqual(400);
    expect(result.stdout).toContain('The full report: reports/drift.md.');
    const full = readFileSync(path.join(dir, 'reports', 'drift.md'), 'utf8');
    expect(full).toContain('`Revenda > Nacionais`');
    expect(full).not.toContain('Report cut here');
  });
});
