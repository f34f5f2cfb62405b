// `erpsync compare`: two sandbox stores, one set up from the example shop and one from a copy with
// hand-made differences (a field changed, a record added, a record left out), compared in text,
// JSON and Markdown; and a store against a folder of manifests. Records are matched by name: the
// two accounts' ids differ throughout.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompareReport } from '../../src/model/compare.js';
import { runCli } from '../support/run-cli.js';

const example = path.resolve(import.meta.dirname, '../../examples/loja-nova');
let dir = '';
const env: NodeJS.ProcessEnv = { CI: 'true', NFSE_SENHA_PREFEITURA: 'demo' };
const run = (args: string[]) => runCli(args, { cwd: dir, env });

function edit(file: string, from: string, to: string): void {
  const full = path.join(dir, file);
  const text = readFileSync(full, 'utf8');
  expect(text).toContain(from);
  writeFileSync(full, text.replace(from, to));
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-compare-'));
  env.ERPSYNC_LOCK_DIR = path.join(dir, '.locks');
  cpSync(example, path.join(dir, 'modelo'), { recursive: true });
  cpSync(example, path.join(dir, 'outra'), { recursive: true });
  // The other store: a fee changed, a warehouse more, the consigned shelf never made.
  edit('outra/financeiro.yaml', 'valor: 2.49', 'valor: 3.1');
  edit('outra/estoque.yaml', '  - descricao: Consignado\n    desconsiderarSaldo: true\n', '  - descricao: Vitrine\n');
  mkdirSync(path.join(dir, 'vazio'));
  writeFileSync(
    path.join(dir, 'erpsync.config.yaml'),
    ['version: 1', 'targets:', '  modelo:', '    sandbox: true', '    manifests: [modelo]', '  outra:', '    sandbox: true', '    manifests: [outra]', ''].join('\n'),
  );
  for (const target of ['modelo', 'outra']) {
    const applied = await run(['apply', '--target', target, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('erpsync compare', () => {
  it('prints the differences of two stores record by record and field by field, and exits 2', async () => {
    const text = await run(['compare', '--target', 'modelo', '--target', 'outra']);
    expect(text.code, text.stderr).toBe(2);
    const lines = text.stdout.split('\n');
    expect(lines[0]).toMatch(/^Account: .* target modelo$/);
    expect(lines[1]).toMatch(/^Account: .* target outra$/);
    expect(text.stdout).toContain('3 difference(s): 1 differ, 1 only in target modelo, 1 only in target outra;');
    expect(text.stdout).toContain('~ formasPagamentos "Boleto bancário"\n    taxas.valor: 2.49 (target modelo) → 3.1 (target outra)');
    expect(text.stdout).toContain('< depositos "Consignado"  (only in target modelo)');
    expect(text.stdout).toContain('> depositos "Vitrine"  (only in target outra)');
  });

  it('gives the same comparison as JSON and as Markdown', async () => {
    const json = await run(['compare', '--target', 'modelo', '--target', 'outra', '--json']);
    expect(json.code, json.stderr).toBe(2);
    const report = JSON.parse(json.stdout) as CompareReport;
    expect(report.left.target).toBe('modelo');
    expect(report.right.target).toBe('outra');
    expect(report.summary).toMatchObject({ differs: 1, onlyLeft: 1, onlyRight: 1 });
    expect(report.summary.same).toBeGreaterThan(20);
    expect(report.records).toEqual([
      { kind: 'formasPagamentos', key: 'Boleto bancário', status: 'differs', fields: [{ path: 'taxas.valor', left: 2.49, right: 3.1 }] },
      { kind: 'depositos', key: 'Consignado', status: 'only-left', fields: [] },
      { kind: 'depositos', key: 'Vitrine', status: 'only-right', fields: [] },
    ]);

    const markdown = await run(['compare', '--target', 'modelo', '--target', 'outra', '--format', 'markdown']);
    expect(markdown.code, markdown.stderr).toBe(2);
    expect(markdown.stdout).toContain('| record | field | target modelo | target outra |');
    expect(markdown.stdout).toContain('| `formasPagamentos` Boleto bancário | `taxas.valor` | 2.49 | 3.1 |');
    expect(markdown.stdout).toContain('| `depositos` Consignado | — | present | *absent* |');
  });

  it('compares a folder of manifests with a store: the same store compares equal (exit 0)', async () => {
    const same = await run(['compare', '--target', 'modelo', 'modelo']);
    expect(same.code, same.stdout + same.stderr).toBe(0);
    expect(same.stdout).toMatch(/No differences: \d+ record\(s\) the same on both sides\./);
    const other = await run(['compare', '--target', 'outra', 'modelo', '--json']);
    expect(other.code).toBe(2);
    expect((JSON.parse(other.stdout) as CompareReport).left.manifests?.length).toBeGreaterThan(3);
  });

  it('refuses a usage it cannot compare', async () => {
    const alone = await run(['compare', '--target', 'modelo']);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain('compare takes two targets');
  });
});
