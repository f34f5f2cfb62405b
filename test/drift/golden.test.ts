// Golden drift reports in all four formats on an account with every kind of finding: modified in
// the ERP, missing from it, unmanaged (records and a nested service, each with a snippet), pending
// from git (against a baseline commit, and from the manifests' own intent without one), and
// policy.ignore rules that kept differences out (and one that matched nothing). The JSON is what
// its published schema describes.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import type { CliRun } from '../support/run-cli.js';
import { openDriftAccount } from './support.js';
import type { DriftAccount } from './support.js';
import type { DriftReport } from '../../src/model/drift.js';

const golden = (name: string) => path.join(import.meta.dirname, 'golden', name);

let account: DriftAccount;
const runs = new Map<string, CliRun>();

/** Ids depend on the emulator's id sequence, commits on git: neither is what these files check. */
function normalize(text: string): string {
  return text
    .replaceAll(account.emulator.baseUrl, '<base-url>')
    // Every emulated account has an id of its own.
    .replaceAll(account.emulator.snapshot().empresa.id, '<account-id>')
    .replaceAll(new URL(account.emulator.baseUrl).host, '<host>')
    .replace(/\b\d{11}\b/g, '<id>')
    .replace(/\(([0-9a-f]{7})\)/g, '(<commit>)')
    // Journal runs (drift names the run that last touched a record) and when they started.
    .replace(/\b\d{8}T\d{9}Z-[0-9a-f]{6}\b/g, '<run>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, '<time>');
}

const baselineArgs = ['--baseline', 'HEAD~1'];

beforeAll(async () => {
  account = await openDriftAccount();
  const variants: Record<string, string[]> = {
    text: [...baselineArgs],
    json: [...baselineArgs, '--json'],
    markdown: [...baselineArgs, '--format', 'markdown'],
    junit: [...baselineArgs, '--format', 'junit', '--out', 'reports/drift.xml'],
    'no-baseline': [],
  };
  for (const [name, args] of Object.entries(variants)) runs.set(name, await runCli(['drift', 'manifests', ...args], { cwd: account.dir, env: account.env }));
});
afterAll(async () => {
  await account.close();
});

function run(name: string): CliRun {
  const result = runs.get(name);
  if (!result) throw new Error(`no run named ${name}`);
  return result;
}

describe('erpsync drift golden reports', () => {
  it.each([
    ['text', 'drift.txt'],
    ['json', 'drift.json'],
    ['markdown', 'drift.md'],
    ['junit', 'drift.junit.xml'],
    ['no-baseline', 'drift-no-baseline.txt'],
  ])('%s', async (name, file) => {
    const result = run(name);
    // Every run names its account first: on stdout for text, on stderr when stdout is a report.
    const banner = 'Account: Loja Sandbox Ltda (CNPJ 12.345.678/0001-90) · <host> · token from BLING_ACCESS_TOKEN\n';
    expect(normalize(result.stderr)).toBe(name === 'text' || name === 'no-baseline' ? '' : banner);
    expect(result.code).toBe(2);
    await expect(normalize(result.stdout)).toMatchFileSnapshot(golden(file));
  });

  it('has every kind of finding, and counts what each ignore rule kept out', () => {
    const report = JSON.parse(run('json').stdout) as DriftReport;
    expect(report.summary).toMatchObject({ modified: 4, missing: 1, pending: 4, unmanaged: 8, ignored: 2 });
    expect(report.pendingBasis).toBe('baseline');
    expect(report.ignored.map((i) => [i.rule.kind, i.count])).toEqual([
      ['logisticas', 1],
      ['situacoes', 1],
      ['formasPagamentos', 0],
    ]);
    const byType = (type: string) => report.findings.filter((f) => f.type === type).map((f) => `${f.kind} ${f.key}`);
    expect(byType('pending')).toEqual([
      'formasPagamentos Boleto bancário',
      'categoriasReceitasDespesas Eventos e feiras > Estandes',
      'gruposProdutos Marcas da casa',
      'gruposProdutos Revenda > Importados',
    ]);
    expect(byType('missing')).toEqual(['categoriasProdutos Maquiagem > Lábios']);
    // The freight of the motoboy service differs in the account, but a rule tolerates it.
    expect(report.findings.some((f) => f.kind === 'logisticasServicos' && f.key === 'Entrega própria > MOTO')).toBe(false);
    expect(report.managed.find((m) => m.key === 'Vendas > Em conferência')).toMatchObject({ status: 'ignored' });
  });

  it('prints JSON that schemas/drift.schema.json takes, and the schema refuses a key it does not know', () => {
    const schema = JSON.parse(readFileSync(new URL('../../schemas/drift.schema.json', import.meta.url), 'utf8')) as object;
    const validate = new Ajv2020({ strict: true, allErrors: true }).compile(schema);
    const report = JSON.parse(run('json').stdout) as DriftReport;
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...report, findings: [{ ...report.findings[0], values: [] }] })).toBe(false);
  });

  it('without a baseline reports only renames and removals as pending, and says why', () => {
    const text = run('no-baseline').stdout;
    expect(text).toContain('Drift: 5 modified, 2 missing, 2 pending from git, 8 unmanaged');
    expect(text).toContain('No --baseline was given');
  });

  it('writes the full report to --out as well', () => {
    expect(readFileSync(path.join(account.dir, 'reports', 'drift.xml'), 'utf8')).toBe(run('junit').stdout);
  });
});
