// The journal end to end through the CLI against the emulator over HTTP: every apply (from
// manifests, from a saved plan) appends a run with its header, each change's fields before and
// after and its outcome, the read-back and a closing line; `history` lists and shows them.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { closeTestAccount, groupsManifest, openTestAccount } from '../support/account.js';
import { runCli } from '../support/run-cli.js';
import { parseJournalRun } from '../../src/state/journal-evidence.js';
import { actorOf } from '../../src/workflows/journal-writer.js';

let emulator: Emulator;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  ({ emulator, dir, env } = await openTestAccount('erpsync-journal-'));
  env = { ...env, USER: 'maria' };
});
afterEach(() => closeTestAccount({ emulator, dir }));

function journalRuns() {
  const folder = path.join(dir, '.erpsync/journal');
  return readdirSync(folder)
    .sort()
    .map((name) => parseJournalRun(readFileSync(path.join(folder, name), 'utf8'), name));
}

function git(...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, stdio: 'ignore' });
}

describe('the journal', () => {
  it('records each apply: header, changes with before/after and outcome, read-back, closing line', async () => {
    git('init', '-q');
    writeFileSync(path.join(dir, 'm.yaml'), `${groupsManifest(['Maquiagem', 'Perfumaria'])}policy:\n  prune: [gruposProdutos]\n`);
    git('add', 'm.yaml');
    git('commit', '-qm', 'first');
    const revision = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim();
    expect((await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env })).code).toBe(0);

    // Renamed by hand in the ERP, then the manifests change (uncommitted): one update, one delete.
    const perfumaria = emulator.snapshot().gruposProdutos.find((g) => g.nome === 'Perfumaria');
    await fetch(`${emulator.baseUrl}/grupos-produtos/${perfumaria?.id}`, { method: 'PUT', headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ nome: 'Perfumes' }) });
    writeFileSync(path.join(dir, 'm.yaml'), `${groupsManifest(['Maquiagem', 'Perfumaria'])}    previousNames: [Perfumes]\n`);
    expect((await runCli(['plan', 'm.yaml', '--out', 'plan.json'], { cwd: dir, env })).code).toBe(0);
    expect((await runCli(['apply', 'plan.json', '--auto-approve'], { cwd: dir, env })).code).toBe(0);

    const [first, second] = journalRuns();
    expect(first?.status).toBe('finished');
    expect(first?.header).toMatchObject({ source: 'manifests', git: { revision, dirty: false }, target: { name: 'default', id: emulator.baseUrl }, actor: { type: 'user', user: 'maria' }, changes: 2 });
    expect(first?.header.erpsyncVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(first?.changes.map((c) => [c.action, c.key, c.outcome])).toEqual([
      ['create', 'Maquiagem', 'applied'],
      ['create', 'Perfumaria', 'applied'],
    ]);
    const created = first?.changes.find((c) => c.key === 'Perfumaria');
    expect(created?.id).toBe(perfumaria?.id);
    expect(created?.written).toMatchObject({ nome: 'Perfumaria' });
    expect(first?.end).toMatchObject({ applied: 2, failed: 0, interrupted: false });

    // The saved plan was made from the uncommitted manifests and applied from the same checkout.
    expect(second?.header).toMatchObject({ source: 'saved-plan', git: { revision, dirty: true }, planGit: { revision, dirty: true } });
    const update = second?.changes.find((c) => c.action === 'update');
    expect(update).toMatchObject({ key: 'Perfumaria', liveId: perfumaria?.id, outcome: 'applied', before: { identity: 'Perfumes', fields: { nome: 'Perfumes' } }, written: { nome: 'Perfumaria' } });
    expect(update?.fields).toContainEqual({ path: 'nome', before: 'Perfumes', after: 'Perfumaria' });
    expect(second?.status).toBe('finished');

    const history = await runCli(['history'], { cwd: dir, env });
    expect(history.code).toBe(0);
    expect(history.stdout.trim().split('\n')).toHaveLength(2);
    expect(history.stdout).toContain(revision.slice(0, 12));
    expect(history.stdout).toContain('by maria@');
    const shown = await runCli(['history', second?.header.run.slice(0, 22) ?? ''], { cwd: dir, env });
    expect(shown.stdout).toContain('applied  update gruposProdutos "Perfumaria"');
    expect(shown.stdout).toContain('nome: "Perfumes" → "Perfumaria"');
    const json = JSON.parse((await runCli(['history', '--json'], { cwd: dir, env })).stdout) as { runs: { run: string; status: string; applied: number }[] };
    expect(json.runs.map((r) => [r.status, r.applied])).toEqual([
      ['finished', 2],
      ['finished', 1],
    ]);
  });

  it('an apply that changes nothing writes no run; the journal folder comes from the target', async () => {
    writeFileSync(path.join(dir, 'erpsync.config.yaml'), `version: 1\ntargets:\n  loja:\n    sandbox: true\n    journal: audit/loja\n`);
    writeFileSync(path.join(dir, 'm.yaml'), groupsManifest(['Maquiagem']));
    const sandboxEnv = { USER: 'maria' };
    expect((await runCli(['apply', 'm.yaml', '--target', 'loja', '--auto-approve'], { cwd: dir, env: sandboxEnv })).code).toBe(0);
    expect((await runCli(['apply', 'm.yaml', '--target', 'loja', '--auto-approve'], { cwd: dir, env: sandboxEnv })).code).toBe(0);
    expect(readdirSync(path.join(dir, 'audit/loja'))).toHaveLength(1);
    const listed = JSON.parse((await runCli(['history', '--target', 'loja', '--json'], { cwd: dir, env: sandboxEnv })).stdout) as { runs: { target: string }[] };
    expect(listed.runs.map((r) => r.target)).toEqual(['loja']);
  });

  it('a fleet apply journals each store as a run of its own target', async () => {
    writeFileSync(path.join(dir, 'erpsync.config.yaml'), `version: 1\ntargets:\n  lojas/a:\n    sandbox: true\n  lojas/b:\n    sandbox: true\n`);
    writeFileSync(path.join(dir, 'm.yaml'), groupsManifest(['Maquiagem']));
    const applied = await runCli(['apply', 'm.yaml', '--all-targets', '--auto-approve'], { cwd: dir, env: { USER: 'maria' } });
    expect(applied.code, applied.stderr).toBe(0);
    const runs = journalRuns();
    expect(runs.map((r) => r?.header.target.name).sort()).toEqual(['lojas/a', 'lojas/b']);
    expect(runs.every((r) => r?.status === 'finished' && r.changes.length === 1)).toBe(true);
    const listed = JSON.parse((await runCli(['history', '--target', 'lojas/b', '--json'], { cwd: dir, env: { USER: 'maria' } })).stdout) as { runs: { target: string }[] };
    expect(listed.runs.map((r) => r.target)).toEqual(['lojas/b']);
  });

  it('names the actor: a CI run by its URL, the person by GITHUB_ACTOR, GITLAB_USER_LOGIN or the OS user, and a uid without a name does not fail', () => {
    expect(actorOf({ GITHUB_RUN_ID: '7', GITHUB_REPOSITORY: 'o/r', GITHUB_ACTOR: 'ana', USER: 'runner' })).toEqual({ type: 'ci', url: 'https://github.com/o/r/actions/runs/7', user: 'ana' });
    expect(actorOf({ CI_JOB_URL: 'https://gitlab.example/j/1', GITLAB_USER_LOGIN: 'bia', USER: 'runner' })).toEqual({ type: 'ci', url: 'https://gitlab.example/j/1', user: 'bia' });
    expect(actorOf({ CI_JOB_URL: 'https://gitlab.example/j/1', USER: 'runner' })).toEqual({ type: 'ci', url: 'https://gitlab.example/j/1', user: 'runner' });
    expect(actorOf({ GITHUB_ACTOR: 'ana', USER: 'joao' })).toMatchObject({ type: 'user', user: 'ana' });
    expect(actorOf({ USER: 'joao' })).toMatchObject({ type: 'user', user: 'joao' });
    expect(actorOf({}).type).toBe('user');
  });
});
