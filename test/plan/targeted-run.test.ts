// Targeted runs (--only / --exclude) through the CLI against the emulator: the plan keeps the
// selected changes and what they depend on (said so, even past an --exclude), says it is partial
// on its first line and in its saved file, a saved targeted plan applies exactly its selection,
// and drift reports only the selected records.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { openTestAccount } from '../export/support.js';
import type { TestAccount } from '../export/support.js';
import type { DriftReport } from '../../src/model/drift.js';
import type { Plan } from '../../src/model/plan.js';
import { parseSelection, selectorOf } from '../../src/model/selection.js';

let account: TestAccount | undefined;
afterEach(async () => {
  await account?.close();
  account = undefined;
});

const manifests =
  'version: 1\ngruposProdutos:\n  - nome: Revenda\n  - nome: Nacionais\n    grupoProdutoPai: Revenda\n  - nome: Importados\n    grupoProdutoPai: Revenda\n' +
  'formasPagamentos:\n  - descricao: Pix da loja\n    tipoPagamento: pix-estatico\n    finalidade: pagamentos-e-recebimentos\n    destino: caixa-e-bancos\n';

async function open(): Promise<TestAccount & { run: (...args: string[]) => ReturnType<typeof runCli> }> {
  account = await openTestAccount();
  mkdirSync(path.join(account.dir, 'm'));
  writeFileSync(path.join(account.dir, 'm/store.yaml'), manifests);
  const { dir, env } = account;
  return Object.assign(account, { run: (...args: string[]) => runCli(args, { cwd: dir, env }) });
}

const planSchema = JSON.parse(readFileSync(fileURLToPath(new URL('../../schemas/plan.schema.json', import.meta.url)), 'utf8')) as object;
const validatePlan = new Ajv2020({ strict: true, allErrors: true }).compile(planSchema);
const keys = (plan: Plan) => plan.changes.map((c) => `${c.action} ${c.kind}/${c.key} w${c.wave}`);

describe('selection patterns', () => {
  it('match KIND and KIND/IDENTITY with globs, nested units through their container, and refuse unknown kinds', () => {
    const selection = parseSelection(['gruposProdutos/Revenda > *', 'logisticas/Entrega', 'formas*'], ['formasPagamentos/Boleto?'])!;
    const selected = selectorOf(selection);
    expect(selected({ kind: 'gruposProdutos', key: 'Revenda > Nacionais' })).toBe(true);
    expect(selected({ kind: 'gruposProdutos', key: 'Revenda' })).toBe(false);
    expect(selected({ kind: 'logisticasServicos', key: 'Entrega > MOTO', container: { kind: 'logisticas', key: 'Entrega' } })).toBe(true);
    expect(selected({ kind: 'formasPagamentos', key: 'Pix' })).toBe(true);
    expect(selected({ kind: 'formasPagamentos', key: 'Boleto1' })).toBe(false);
    expect(parseSelection([], [])).toBeUndefined();
    expect(() => parseSelection(['grupos'], [])).toThrow('--only grupos: no kind is called that');
    expect(() => parseSelection([], ['gruposProdutos/'])).toThrow('--exclude takes KIND or KIND/IDENTITY');
  });
});

describe('targeted runs', () => {
  it('plan --only keeps what the selection depends on, says so, and says it is partial on its first line', async () => {
    const { run } = await open();
    const text = await run('plan', 'm', '--only', 'gruposProdutos/Revenda > Nacionais');
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines[1]).toBe('Plan (partial: --only gruposProdutos/Revenda > Nacionais; 1 change(s) added as dependencies): 2 to create.');
    expect(text.stdout).toContain('+ gruposProdutos "Revenda" — create: not in the account (wave 1)\n    included: a selected change depends on it');

    const json = await run('plan', 'm', '--only', 'gruposProdutos/Revenda > Nacionais', '--json');
    const plan = JSON.parse(json.stdout) as Plan;
    expect(validatePlan(plan), JSON.stringify(validatePlan.errors)).toBe(true);
    expect(plan.selection).toEqual({ only: ['gruposProdutos/Revenda > Nacionais'], exclude: [], addedDependencies: ['gruposProdutos:Revenda:create'] });
    expect(keys(plan)).toEqual(['create gruposProdutos/Revenda w1', 'create gruposProdutos/Revenda > Nacionais w2']);
    expect(plan.cost.writes).toBe(2);
    const markdown = await run('plan', 'm', '--only', 'gruposProdutos/Revenda > Nacionais', '--format', 'markdown');
    expect(markdown.stdout.split('\n')[0]).toBe('### erpsync plan (partial: `--only gruposProdutos/Revenda > Nacionais`): 2 to create');
  });

  it('--exclude leaves records out, except what a selected change depends on', async () => {
    const { run } = await open();
    const plan = JSON.parse((await run('plan', 'm', '--exclude', 'formasPagamentos', '--exclude', 'gruposProdutos/Revenda', '--json')).stdout) as Plan;
    expect(keys(plan)).toEqual(['create gruposProdutos/Revenda w1', 'create gruposProdutos/Revenda > Importados w2', 'create gruposProdutos/Revenda > Nacionais w2']);
    expect(plan.selection?.addedDependencies).toEqual(['gruposProdutos:Revenda:create']);
    const onlyPix = JSON.parse((await run('plan', 'm', '--only', 'formasPagamentos/P?x da *', '--json')).stdout) as Plan;
    expect(keys(onlyPix)).toEqual(['create formasPagamentos/Pix da loja w1']);
    expect(onlyPix.selection?.addedDependencies).toEqual([]);
  });

  it('a logistics selects the services declared in it; a service alone brings its logistics as a dependency', async () => {
    const { run, dir } = await open();
    const logistics = readFileSync(fileURLToPath(new URL('../scenarios/20-logisticas-create/manifests/', import.meta.url)) + 'manifest.yaml', 'utf8');
    writeFileSync(path.join(dir, 'm/logisticas.yaml'), logistics);
    const whole = JSON.parse((await run('plan', 'm', '--only', 'logisticas/Entrega*', '--json')).stdout) as Plan;
    expect(keys(whole)).toEqual(['create logisticas/Entrega própria w1', 'create logisticasServicos/Entrega própria > MOTO w2', 'create logisticasServicos/Entrega própria > RETIRA w2']);
    expect(whole.selection?.addedDependencies).toEqual([]);
    const service = JSON.parse((await run('plan', 'm', '--only', 'logisticasServicos/* > MOTO', '--json')).stdout) as Plan;
    expect(keys(service)).toEqual(['create logisticas/Entrega própria w1', 'create logisticasServicos/Entrega própria > MOTO w2']);
    expect(service.selection?.addedDependencies).toEqual(['logisticas:Entrega própria:create']);
  });

  it('a saved targeted plan applies exactly its selection; its selection cannot be edited or overridden', async () => {
    const { run, dir } = await open();
    expect((await run('plan', 'm', '--only', 'formasPagamentos', '--out', 'p.json')).code).toBe(0);
    const saved = JSON.parse(readFileSync(path.join(dir, 'p.json'), 'utf8')) as Plan;
    expect(saved.selection?.only).toEqual(['formasPagamentos']);

    const overridden = await run('apply', 'p.json', '--only', 'gruposProdutos', '--auto-approve');
    expect(overridden.code).toBe(1);
    expect(overridden.stderr).toContain('a saved plan carries its own delete budget, replacements and selection: plan again with --only/--exclude');
    writeFileSync(path.join(dir, 'edited.json'), JSON.stringify({ ...saved, selection: { ...saved.selection, only: ['gruposProdutos'] } }));
    expect((await run('apply', 'edited.json', '--auto-approve')).code).toBe(3);

    const applied = await run('apply', 'p.json', '--auto-approve');
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const rest = JSON.parse((await run('plan', 'm', '--json')).stdout) as Plan;
    expect(rest.selection).toBeUndefined();
    expect(keys(rest)).toEqual(['create gruposProdutos/Revenda w1', 'create gruposProdutos/Revenda > Importados w2', 'create gruposProdutos/Revenda > Nacionais w2']);
    expect((await run('plan', 'm', '--only', 'formasPagamentos')).stdout.split('\n')[1]).toBe('No changes (partial: --only formasPagamentos).');
  });

  it('apply --only applies the selection, and drift --only reports only the selected records', async () => {
    const { run } = await open();
    const applied = await run('apply', 'm', '--only', 'gruposProdutos', '--auto-approve');
    expect(applied.code).toBe(0);
    const groups = await run('drift', 'm', '--only', 'gruposProdutos', '--json');
    expect(groups.code).toBe(0);
    const report = JSON.parse(groups.stdout) as DriftReport;
    expect(report.summary).toMatchObject({ managed: 3, inSync: 3, missing: 0, unmanaged: 0 });
    expect(report.warnings).toEqual(['a targeted drift (--only gruposProdutos): records outside the selection are not reported']);
    const payments = JSON.parse((await run('drift', 'm', '--only', 'formasPagamentos/Pix da loja', '--json')).stdout) as DriftReport;
    expect(payments.findings.map((f) => `${f.type} ${f.key}`)).toEqual(['missing Pix da loja']);
    const unknown = await run('plan', 'm', '--only', 'grupos');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--only grupos: no kind is called that');
  });

  it('a pattern that takes in no record is a mistake (exit 1) naming the closest identities, in plan, apply and drift', async () => {
    const { run } = await open();
    for (const command of ['plan', 'apply', 'drift']) {
      const typo = await run(command, 'm', '--only', 'gruposProdutos/Revnda', ...(command === 'apply' ? ['--auto-approve'] : []));
      expect(typo.code, `${command}: ${typo.stdout}${typo.stderr}`).toBe(1);
      expect(typo.stderr).toContain('erpsync: --only gruposProdutos/Revnda matches no record; the closest: gruposProdutos/Revenda');
    }
    const excluded = await run('plan', 'm', '--exclude', 'formasPagamentos/Pix da lojja');
    expect(excluded.code).toBe(1);
    expect(excluded.stderr).toContain('--exclude formasPagamentos/Pix da lojja matches no record; the closest: formasPagamentos/Pix da loja');
    const undeclared = await run('plan', 'm', '--only', 'depositos');
    expect(undeclared.code).toBe(1);
    expect(undeclared.stderr).toContain('--only depositos matches no record: the manifests declare no depositos record, and the account holds none this run read');
    expect(account?.emulator.snapshot().gruposProdutos).toEqual([]);
  });
});
