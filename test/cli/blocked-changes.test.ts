// Blocked changes count: a change the manifests ask for and apply cannot make (here: removing the
// account's own `fixa` payment method) keeps a pipeline from taking the plan for done. Three sandbox
// stores: 01 has a change, 02 a change and a blocked one, 03 only a blocked one. `plan
// --detailed-exitcode` exits 2 for 03 alone and for the fleet; the fleet table counts them in a
// `blocked` column; every apply — one store, a saved plan, a fleet's saved plans, a live fleet —
// sends the rest, exits 1 and names each blocked change with its reason.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetReport } from '../../src/model/fleet.js';
import type { Plan } from '../../src/model/plan.js';
import { runCli } from '../support/run-cli.js';
import type { SandboxStore } from '../support/fleet.js';
import { writeSandboxFleet } from '../support/fleet.js';

let dir = '';
let env: NodeJS.ProcessEnv = {};
let stores: SandboxStore[] = [];

const run = (args: string[]) => runCli(args, { cwd: dir, env });
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
};
const rowsOf = (stdout: string) => new Map((JSON.parse(stdout) as FleetReport).rows.map((r) => [r.target, r]));
const accountOf = (store: SandboxStore | undefined) =>
  (store as SandboxStore).open((emulator) => ({ groups: emulator.snapshot().gruposProdutos.map((g) => g.nome).sort(), payments: emulator.snapshot().formasPagamentos.map((f) => f.descricao) }));
const blockedLine = 'formasPagamentos "Dinheiro": a fixa record of the account: erpsync never removes it';

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-blocked-'));
  env = { ERPSYNC_LOCK_DIR: path.join(dir, '.locks'), CI: 'true' };
  const manifests = [['groups'], ['groups', 'fixa'], ['fixa']];
  stores = writeSandboxFleet(dir, 3, (i) => ({ manifests: manifests[i - 1] ?? [] }));
  write('groups/grupos.yaml', 'version: 1\ngruposProdutos:\n  - nome: Velas\n');
  write('fixa/formas.yaml', 'version: 1\nformasPagamentos:\n  - descricao: Dinheiro\n    ensure: absent\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('blocked changes count', () => {
  it('plan --detailed-exitcode exits 2 for a plan whose only change is blocked, alone and in a fleet whose table counts them', async () => {
    expect((await run(['plan', '--target', 'lojas/loja-03'])).code).toBe(0);
    const alone = await run(['plan', '--target', 'lojas/loja-03', '--detailed-exitcode']);
    expect(alone.code, alone.stderr).toBe(2);
    expect(alone.stdout).toContain('Plan: 1 blocked.');
    expect((await run(['plan', '--target', 'lojas/loja-01', '--detailed-exitcode'])).code).toBe(2);

    const fleet = await run(['plan', '--all-targets', '--detailed-exitcode', '--out', 'plans']);
    expect(fleet.code, fleet.stderr).toBe(2);
    const table = fleet.stdout.slice(fleet.stdout.lastIndexOf('\nstore'));
    expect(table).toMatch(/^\nstore +account +changes +blocked +result$/m);
    expect(table).toMatch(/^lojas\/loja-01 .* 1 +0 +1 changes$/m);
    expect(table).toMatch(/^lojas\/loja-02 .* 1 +1 +1 changes, 1 blocked$/m);
    expect(table).toMatch(/^lojas\/loja-03 .* 0 +1 +1 blocked$/m);
    expect(table).toContain('Fleet plan: 3 store(s), 2 with changes, 0 failed, 2 with blocked changes');
    const markdown = await run(['plan', '--all-targets', '--format', 'markdown']);
    // A pull request's Markdown: the plan's table, each action counted, blocked changes among them.
    expect(markdown.stdout).toContain('| store | account | creates | updates | deletes | blocked | error |\n|---|---|---:|---:|---:|---:|---|');
    expect(markdown.stdout).toMatch(/\| lojas\/loja-03 \| .* \| – \| – \| – \| 1 \| – \|/);
    const json = rowsOf((await run(['plan', '--all-targets', '--detailed-exitcode', '--json'])).stdout);
    expect([...json.values()].map((r) => [r.target, r.changes, r.blocked, r.exitCode])).toEqual([
      ['lojas/loja-01', 1, 0, 2],
      ['lojas/loja-02', 1, 1, 2],
      ['lojas/loja-03', 0, 1, 2],
    ]);
  });

  it('apply of a saved plan holding only a blocked change exits 1 naming it, and writes nothing', async () => {
    expect((await run(['plan', '--target', 'lojas/loja-03', '--out', 'three.json'])).code).toBe(0);
    const applied = await run(['apply', 'three.json', '--target', 'lojas/loja-03', '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(1);
    expect(applied.stderr).toContain('error: 1 blocked change(s) cannot be applied (exit 1)');
    expect(applied.stderr).toContain(`  ${blockedLine}`);
    expect((await accountOf(stores[2])).payments).toContain('Dinheiro');
  });

  it('apply DIR applies the rest of every store\'s plan, exits 1 and names each store\'s blocked changes', async () => {
    const applied = await run(['apply', 'plans', '--auto-approve', '--json']);
    expect(applied.code, applied.stderr).toBe(1);
    const rows = rowsOf(applied.stdout);
    expect([...rows.values()].map((r) => [r.target, r.applied ?? 0, r.blocked, r.exitCode])).toEqual([
      ['lojas/loja-01', 1, 0, 0],
      ['lojas/loja-02', 1, 1, 1],
      ['lojas/loja-03', 0, 1, 1],
    ]);
    for (const name of ['lojas/loja-02', 'lojas/loja-03']) expect(applied.stderr).toContain(`error: 1 blocked change(s) in ${name} cannot be applied (exit 1)`);
    expect(applied.stderr).not.toContain('in lojas/loja-01');
    expect(await accountOf(stores[1])).toMatchObject({ groups: ['Velas'], payments: expect.arrayContaining(['Dinheiro']) });
  });

  it('a live fleet apply and a single store\'s apply exit 1 with the word blocked in the table and each blocked change named', async () => {
    const fleet = await run(['apply', '--all-targets', '--auto-approve']);
    expect(fleet.code, fleet.stderr).toBe(1);
    expect(fleet.stdout).toMatch(/^lojas\/loja-01 .* 0 +0 +no changes$/m);
    expect(fleet.stdout).toMatch(/^lojas\/loja-02 .* 0 +1 +1 blocked$/m);
    expect(fleet.stdout).toContain('Fleet apply: 3 store(s), 0 changed, 0 failed, 2 with blocked changes');
    expect(fleet.stderr).toContain(`error: 1 blocked change(s) in lojas/loja-03 cannot be applied (exit 1)`);

    const alone = await run(['apply', '--target', 'lojas/loja-02', '--auto-approve']);
    expect(alone.code, alone.stdout + alone.stderr).toBe(1);
    expect(alone.stderr).toContain(`  ${blockedLine}`);
    for (const store of stores) expect((await accountOf(store)).payments, store.name).toContain('Dinheiro');
    // The saved plans held each blocked change with its reason, for a pipeline to read.
    const plan = JSON.parse(readFileSync(path.join(dir, 'plans/lojas/loja-03.json'), 'utf8')) as Plan;
    expect(plan.changes.map((c) => [c.action, c.key])).toEqual([['blocked', 'Dinheiro']]);
  });
});
