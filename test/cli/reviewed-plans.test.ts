// Reviewed plans in a git checkout, on three emulated accounts: the merge applies exactly the plans
// of the reviewed commit. Plans whose manifests changed since (the main branch moved past them) are
// refused whole, naming the stores, before any request; plans applied outside a checkout are not
// checked against manifests they cannot see. A store whose account changed in between is refused
// alone (exit 3) while the others apply, and each store's journal names the commit its plan was made
// from, the commit of the checkout that applied it and the person who ran it — for a fleet's saved
// plans as for a copy of a template store (--from-target).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetReport } from '../../src/model/fleet.js';
import type { Plan } from '../../src/model/plan.js';
import type { summarizeRun } from '../../src/report/history-report.js';
import type { FleetAccounts } from '../support/fleet.js';
import { openFleetAccounts } from '../support/fleet.js';
import { runCli } from '../support/run-cli.js';

let dir = '';
let env: NodeJS.ProcessEnv = {};
let fleet: FleetAccounts;

const run = (args: string[], cwd = dir) => runCli(args, { cwd, env });
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
};
const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' }).trim();
const commit = (message: string) => {
  git('add', '-A');
  git('commit', '-qm', message);
  return git('rev-parse', 'HEAD');
};
const groups = (names: readonly string[]) => `version: 1\ngruposProdutos:\n${names.map((n) => `  - nome: ${n}\n`).join('')}`;
const groupsOf = (i: number) => (fleet.stores[i - 1]?.emulator.snapshot().gruposProdutos ?? []).map((g) => g.nome).sort();
const requestsSent = () => fleet.stores.reduce((n, s) => n + s.emulator.requestLog().length, 0);
const clearLogs = () => fleet.stores.forEach((s) => s.emulator.clearLog());
type RunSummary = ReturnType<typeof summarizeRun>;
const history = async (cwd = dir) => (JSON.parse((await run(['history', '--json'], cwd)).stdout) as { runs: RunSummary[] }).runs;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-reviewed-'));
  fleet = await openFleetAccounts(dir, 3, (i) => ({ manifests: ['base'], variables: { LOJA: String(i) } }));
  env = { ...fleet.env, CI: 'true', GITHUB_ACTOR: 'ana', USER: 'runner' };
  write('base/grupos.yaml', groups(['Maquiagem', 'Loja ${LOJA}']));
  write('.gitignore', '.erpsync/\n.locks/\n');
  git('init', '-q');
  commit('three stores');
});
afterAll(async () => {
  await fleet.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('reviewed plans applied from a git checkout', () => {
  it('refuses, before any request, saved plans whose manifests changed since they were made, naming the stores', async () => {
    const reviewed = git('rev-parse', 'HEAD');
    expect((await run(['plan', '--all-targets', '--out', 'plans'])).code).toBe(0);
    expect((await run(['plan', '--target', 'lojas/loja-02', '--out', 'two.json'])).code).toBe(0);
    const saved = JSON.parse(readFileSync(path.join(dir, 'plans/lojas/loja-01.json'), 'utf8')) as Plan;
    expect(saved.origin).toEqual({ manifests: [], git: { revision: reviewed, dirty: false } });

    // The main branch moves past the reviewed commit.
    write('base/grupos.yaml', groups(['Maquiagem', 'Perfumaria', 'Loja ${LOJA}']));
    commit('perfume too');
    clearLogs();
    const refused = await run(['apply', 'plans', '--auto-approve']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('erpsync: the manifests changed since these plans were made: plan again (lojas/loja-01, lojas/loja-02, lojas/loja-03); nothing was applied');
    const alone = await run(['apply', 'two.json', '--target', 'lojas/loja-02', '--auto-approve']);
    expect(alone.code).toBe(3);
    expect(alone.stderr).toContain('the manifests changed since this plan was made: plan again (lojas/loja-02)');
    expect(requestsSent()).toBe(0);

    // Outside a checkout (the plan and the config alone) there are no manifests to compare: nothing new is said.
    const outside = mkdtempSync(path.join(tmpdir(), 'erpsync-outside-'));
    try {
      for (const file of ['erpsync.config.yaml', 'two.json']) copyFileSync(path.join(dir, file), path.join(outside, file));
      const applied = await run(['apply', 'two.json', '--target', 'lojas/loja-02', '--auto-approve'], outside);
      expect(applied.code, applied.stderr).toBe(0);
      expect(groupsOf(2)).toEqual(['Loja 2', 'Maquiagem']);
      const [journaled] = await history(outside);
      expect(journaled).toMatchObject({ target: 'lojas/loja-02', source: 'saved-plan', git: null, planGit: { revision: reviewed, dirty: false }, commit: reviewed, by: 'ana' });
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('refuses a store whose account changed in between alone; the others apply and journal both commits and the actor', async () => {
    const planned = git('rev-parse', 'HEAD');
    expect((await run(['plan', '--all-targets', '--out', 'plans'])).code).toBe(0);
    // The main branch moves on without touching the manifests, and store 03 is edited by hand.
    write('README.md', 'the stores\n');
    const merged = commit('readme');
    const three = fleet.stores[2]?.emulator;
    const created = await fetch(`${three?.baseUrl}/grupos-produtos`, { method: 'POST', headers: { authorization: `Bearer ${three?.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ nome: 'Perfumaria' }) });
    expect(created.status).toBe(201);

    const applied = await run(['apply', 'plans', '--auto-approve', '--json']);
    expect(applied.code, applied.stderr).toBe(3);
    const rows = new Map((JSON.parse(applied.stdout) as FleetReport).rows.map((r) => [r.target, r]));
    expect(rows.get('lojas/loja-03')).toMatchObject({ exitCode: 3, error: expect.stringContaining('the account changed since the plan was made') });
    expect(rows.get('lojas/loja-01')?.exitCode).toBe(0);
    expect(rows.get('lojas/loja-02')?.exitCode).toBe(0);
    expect(groupsOf(1)).toEqual(['Loja 1', 'Maquiagem', 'Perfumaria']);
    expect(groupsOf(2)).toEqual(['Loja 2', 'Maquiagem', 'Perfumaria']);
    expect(groupsOf(3)).toEqual(['Perfumaria']);

    const runs = (await history()).filter((r) => r.planGit?.revision === planned);
    expect(runs.map((r) => r.target).sort()).toEqual(['lojas/loja-01', 'lojas/loja-02']);
    for (const r of runs) expect(r).toMatchObject({ source: 'saved-plan', git: { revision: merged, dirty: false }, commit: planned, by: 'ana', actor: { user: 'ana' } });
    const text = await run(['history', '--target', 'lojas/loja-01']);
    expect(text.stdout).toContain(`planned at ${planned.slice(0, 12)}, applied at ${merged.slice(0, 12)}  by ana@`);
  });

  it('a copy of a template store across the fleet journals the template and the commit', async () => {
    const head = git('rev-parse', 'HEAD');
    const one = fleet.stores[0]?.emulator;
    await fetch(`${one?.baseUrl}/grupos-produtos`, { method: 'POST', headers: { authorization: `Bearer ${one?.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ nome: 'Velas' }) });
    const applied = await run(['apply', '--all-targets', '--from-target', 'lojas/loja-01', '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(groupsOf(2)).toContain('Velas');
    const runs = (await history()).filter((r) => r.template !== undefined);
    expect(runs.map((r) => r.target).sort()).toEqual(['lojas/loja-02', 'lojas/loja-03']);
    for (const r of runs) expect(r).toMatchObject({ template: 'lojas/loja-01', git: { revision: head }, planGit: { revision: head }, by: 'ana' });
    const text = await run(['history', '--target', 'lojas/loja-02']);
    expect(text.stdout).toContain(`${head.slice(0, 12)} from target lojas/loja-01  by ana@`);
  });
});
