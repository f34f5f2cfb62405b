// apply end to end through the CLI against the emulator over HTTP: saved plans (fresh and stale),
// the confirmation rule, and the delete budget.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { closeTestAccount, groupNamesOf, groupsManifest, openTestAccount } from '../support/account.js';
import { runCli } from '../support/run-cli.js';

let emulator: Emulator;
let dir: string;
let env: NodeJS.ProcessEnv;

const groups = groupsManifest;
const groupNames = () => groupNamesOf(emulator);

beforeEach(async () => {
  ({ emulator, dir, env } = await openTestAccount('erpsync-apply-'));
});
afterEach(() => closeTestAccount({ emulator, dir }));

describe('erpsync apply', () => {
  it('applies a saved plan, and the next plan is empty', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), groups(['Maquiagem', 'Perfumaria']));
    const planned = await runCli(['plan', 'm.yaml', '--out', 'plan.json', '--detailed-exitcode'], { cwd: dir, env });
    expect(planned.code).toBe(2);
    expect(groupNames()).toEqual([]);
    const applied = await runCli(['apply', 'plan.json'], { cwd: dir, env: { ...env } });
    // A saved plan was reviewed already, but apply still asks unless told not to.
    expect(applied.code).toBe(3);
    expect(applied.stderr).toContain('--auto-approve');
    expect(groupNames()).toEqual([]);
    const approved = await runCli(['apply', 'plan.json', '--auto-approve'], { cwd: dir, env });
    expect(approved.code).toBe(0);
    expect(groupNames()).toEqual(['Maquiagem', 'Perfumaria']);
    const again = await runCli(['plan', 'm.yaml', '--detailed-exitcode'], { cwd: dir, env });
    expect(again.code).toBe(0);
  });

  it('refuses to save a plan under a name apply would read as a manifest, before reading the account', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), groups(['Maquiagem']));
    emulator.clearLog();
    const refused = await runCli(['plan', 'm.yaml', '--out', 'revert.plan'], { cwd: dir, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("--out names a saved plan's file, which ends in .json");
    expect(emulator.requestLog()).toEqual([]);
  });

  it('refuses a saved plan when a record it touches changed since (exit 3), and changes nothing', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), groups(['Maquiagem']));
    expect((await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env })).code).toBe(0);
    writeFileSync(path.join(dir, 'm.yaml'), `${groups(['Beleza'])}    previousNames: [Maquiagem]\n`);
    expect((await runCli(['plan', 'm.yaml', '--out', 'plan.json'], { cwd: dir, env })).code).toBe(0);
    // Someone renames the group by hand before the plan is applied.
    const id = emulator.snapshot().gruposProdutos[0]?.id;
    const response = await fetch(`${emulator.baseUrl}/grupos-produtos/${id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ nome: 'Mexido à mão' }),
    });
    expect(response.status).toBe(204);
    const stale = await runCli(['apply', 'plan.json', '--auto-approve'], { cwd: dir, env });
    expect(stale.code).toBe(3);
    expect(stale.stderr).toContain('changed since the plan was made');
    expect(groupNames()).toEqual(['Mexido à mão']);
  });

  it('refuses without a terminal and without --auto-approve, and over the delete budget', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), groups(['A', 'B', 'C']));
    const refused = await runCli(['apply', 'm.yaml'], { cwd: dir, env });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('--auto-approve');
    expect(groupNames()).toEqual([]);
    expect((await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env })).code).toBe(0);
    writeFileSync(path.join(dir, 'm.yaml'), 'version: 1\npolicy:\n  prune: [gruposProdutos]\ngruposProdutos: []\n');
    const overBudget = await runCli(['apply', 'm.yaml', '--auto-approve', '--max-deletes', '2'], { cwd: dir, env });
    expect(overBudget.code).toBe(3);
    expect(groupNames()).toEqual(['A', 'B', 'C']);
    expect((await runCli(['apply', 'm.yaml', '--auto-approve', '--max-deletes', '3'], { cwd: dir, env })).code).toBe(0);
    expect(groupNames()).toEqual([]);
  });

  it('creates a child under an unchanged record whose parent the same plan renames (found by the chaos suite)', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), 'version: 1\ngruposProdutos:\n  - nome: A antigo\n  - { nome: B, grupoProdutoPai: A antigo }\n');
    expect((await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env })).code).toBe(0);
    writeFileSync(path.join(dir, 'm.yaml'), 'version: 1\ngruposProdutos:\n  - { nome: A, previousNames: [A antigo] }\n  - { nome: B, grupoProdutoPai: A }\n  - { nome: C, grupoProdutoPai: A > B }\n');
    const applied = await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const byId = new Map(emulator.snapshot().gruposProdutos.map((g) => [g.id, g]));
    const paths = [...byId.values()].map((g) => [byId.get(g.idGrupoPai)?.nome, g.nome].filter(Boolean).join(' > ')).sort();
    expect(paths).toEqual(['A', 'A > B', 'B > C']);
  });

  it('counts a delete whose answer was lost as applied when the retry finds the record gone (found by the chaos suite)', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), groups(['A', 'B']));
    expect((await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env })).code).toBe(0);
    emulator.setFaults({ schedule: [{ method: 'DELETE', nth: 1, fault: 'reset-after' }] });
    writeFileSync(path.join(dir, 'm.yaml'), `${groups(['A'])}policy:\n  prune: [gruposProdutos]\n`);
    const applied = await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(emulator.requestLog().filter((e) => e.method === 'DELETE').map((e) => e.status)).toEqual([204, 404]);
    expect(groupNames()).toEqual(['A']);
  });

  it('adopts a create whose answer was lost instead of sending it twice', async () => {
    emulator.setFaults({ schedule: [{ method: 'POST', path: '/grupos-produtos', nth: 1, fault: 'reset-after' }] });
    writeFileSync(path.join(dir, 'm.yaml'), groups(['Maquiagem']));
    const applied = await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('found after an unknown outcome');
    expect(groupNames()).toEqual(['Maquiagem']);
  });

  it('applies the example store to a fresh sandbox, and a second run has no changes', async () => {
    const example = path.resolve('examples/loja-nova');
    const sandboxEnv = { NFSE_SENHA_PREFEITURA: 'demo' };
    const first = await runCli(['apply', example, '--auto-approve'], { cwd: dir, env: sandboxEnv });
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout.split('\n')[0]).toMatch(/^Account: Loja Sandbox Ltda \(CNPJ 12\.345\.678\/0001-90\) · local sandbox \(state in /);
    expect(first.stdout).toMatch(/Apply: \d+ applied, 0 failed, 0 skipped, 0 blocked\./);
    expect(first.stdout).not.toContain('not converged');
    const second = await runCli(['apply', example, '--auto-approve'], { cwd: dir, env: sandboxEnv });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('No changes.');
  });

  it('moves the default payment method without fighting the old holder', async () => {
    const method = (descricao: string, padrao: string) =>
      `  - descricao: ${descricao}\n    tipoPagamento: pix-dinamico\n    finalidade: recebimentos\n    destino: contas\n    padrao: ${padrao}\n`;
    writeFileSync(path.join(dir, 'm.yaml'), `version: 1\nformasPagamentos:\n${method('Pix A', 'padrao')}${method('Pix B', 'nenhum')}`);
    expect((await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env })).code).toBe(0);
    writeFileSync(path.join(dir, 'm.yaml'), `version: 1\nformasPagamentos:\n${method('Pix A', 'nenhum')}${method('Pix B', 'padrao')}`);
    const moved = await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env });
    expect(moved.code, moved.stdout).toBe(0);
    expect(moved.stdout).toContain('Apply: 1 applied, 0 failed, 0 skipped, 0 blocked.');
    const defaults = emulator.snapshot().formasPagamentos.filter((f) => f.padrao === 1).map((f) => f.descricao);
    expect(defaults).toEqual(['Pix B']);
    expect((await runCli(['plan', 'm.yaml', '--detailed-exitcode'], { cwd: dir, env })).code).toBe(0);
  });

  it('stops starting changes on Ctrl-C, prints the summary, exits 1, and the next run converges', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), groups(Array.from({ length: 12 }, (_, i) => `Grupo ${i}`)));
    emulator.setFaults({ probability: 1, kinds: ['latency'], latencyMs: 40 });
    const interrupt = new AbortController();
    const running = runCli(['apply', 'm.yaml', '--auto-approve', '--concurrency', '1'], { cwd: dir, env, signal: interrupt.signal });
    // Interrupt once the first create reached the emulator, whatever the machine's speed.
    const watcher = setInterval(() => {
      if (emulator.requestLog().some((entry) => entry.method === 'POST')) {
        clearInterval(watcher);
        interrupt.abort();
      }
    }, 2);
    const stopped = await running;
    expect(stopped.code).toBe(1);
    expect(stopped.stdout).toContain('skipped gruposProdutos');
    expect(stopped.stdout).toMatch(/Apply: \d+ applied, 0 failed, \d+ skipped, 0 blocked\./);
    expect(stopped.stdout).toContain('Interrupted');
    const created = groupNames().length;
    expect(created).toBeGreaterThan(0);
    expect(created).toBeLessThan(12);

    emulator.setFaults(undefined);
    expect((await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env })).code).toBe(0);
    expect(groupNames()).toEqual(Array.from({ length: 12 }, (_, i) => `Grupo ${i}`).sort());
  });

  it('skips the dependents of a failed change, applies the independent ones, and exits 1', async () => {
    // A subcategory must have its parent's tipo: the emulator refuses "Eventos" under an expense.
    writeFileSync(
      path.join(dir, 'm.yaml'),
      [
        'version: 1',
        'categoriasReceitasDespesas:',
        '  - { descricao: Eventos, categoriaPai: Despesas comerciais, tipo: receita }',
        '  - { descricao: Feiras, categoriaPai: Eventos, tipo: receita }',
        '  - { descricao: Brindes da loja, categoriaPai: Despesas comerciais, tipo: despesa }',
        '',
      ].join('\n'),
    );
    const applied = await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env });
    expect(applied.code).toBe(1);
    expect(applied.stdout).toContain('failed  categoriasReceitasDespesas "Despesas comerciais > Eventos" create');
    expect(applied.stdout).toContain('skipped categoriasReceitasDespesas "Despesas comerciais > Eventos > Feiras" create');
    expect(applied.stdout).toContain('Apply: 1 applied, 1 failed, 1 skipped, 0 blocked.');
    const names = emulator.snapshot().categoriasReceitasDespesas.map((c) => c.descricao);
    expect(names).toContain('Brindes da loja');
    expect(names).not.toContain('Eventos');
    expect(names).not.toContain('Feiras');
  });
});
