// A fleet without a Bling account: three targets of erpsync.config.yaml that are sandboxes
// (`sandbox: true`, or a state file of their own), each a distinct account. They plan and apply
// as a fleet, under CI too (the config asks for the sandbox explicitly), and converge.
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetReport } from '../../src/model/fleet.js';
import { runCli } from '../support/run-cli.js';

const example = path.resolve(import.meta.dirname, '../../examples/loja-nova');
let dir: string;
let env: NodeJS.ProcessEnv;

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-sandbox-targets-'));
  env = { CI: 'true', NFSE_SENHA_PREFEITURA: 'demo', ERPSYNC_LOCK_DIR: path.join(dir, '.locks') };
  cpSync(example, path.join(dir, 'base'), { recursive: true });
  write('overlays/centro/estoque.yaml', 'version: 1\ndepositos:\n  - descricao: Loja Centro\n');
  write(
    'erpsync.config.yaml',
    [
      'version: 1',
      'targets:',
      '  lojas/centro:',
      '    sandbox: true',
      '    manifests: [base, overlays/centro]',
      '  lojas/sul:',
      '    sandbox: true',
      '    manifests: [base]',
      '  homologacao:',
      '    description: Ensaios antes da produção',
      '    sandbox: { state: .erpsync/homologacao.json }',
      '    manifests: [base]',
      '',
    ].join('\n'),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sandbox targets in erpsync.config.yaml', () => {
  it('are listed with their state files', async () => {
    const listed = await runCli(['targets'], { cwd: dir, env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trim().split('\n')).toEqual([
      'homologacao  sandbox (state in .erpsync/homologacao.json)  manifests: base  — Ensaios antes da produção',
      'lojas/centro  sandbox (state in .erpsync/sandbox-lojas.centro.json)  manifests: base + overlays/centro',
      'lojas/sul  sandbox (state in .erpsync/sandbox-lojas.sul.json)  manifests: base',
    ]);
  });

  it('are three distinct accounts: a fleet plans each, and applies all three without locking itself out', async () => {
    const planned = await runCli(['plan', '--all-targets', '--json', '--detailed-exitcode'], { cwd: dir, env });
    expect(planned.code, planned.stderr).toBe(2);
    const report = JSON.parse(planned.stdout) as FleetReport;
    expect(report.rows.map((r) => r.target)).toEqual(['homologacao', 'lojas/centro', 'lojas/sul']);
    const ids = report.rows.map((r) => r.account?.id);
    expect(ids.every((id) => typeof id === 'string' && /^[0-9a-f]{32}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(3);
    // The overlay adds one warehouse to one store.
    const changes = Object.fromEntries(report.rows.map((r) => [r.target, r.changes]));
    expect(changes['lojas/centro']).toBe((changes['lojas/sul'] ?? 0) + 1);
    expect(changes.homologacao).toBe(changes['lojas/sul']);
    for (const state of ['homologacao.json', 'sandbox-lojas.centro.json', 'sandbox-lojas.sul.json']) expect(existsSync(path.join(dir, '.erpsync', state)), state).toBe(true);

    const applied = await runCli(['apply', '--all-targets', '--auto-approve'], { cwd: dir, env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout + applied.stderr).not.toMatch(/\block/i);
    expect(applied.stdout).toContain('Fleet apply: 3 store(s), 3 changed, 0 failed');

    const again = await runCli(['plan', '--all-targets', '--json', '--detailed-exitcode'], { cwd: dir, env });
    expect(again.code, again.stderr).toBe(0);
    // A state file is the same account on every run.
    expect((JSON.parse(again.stdout) as FleetReport).rows.map((r) => r.account?.id)).toEqual(ids);
  });

  it('one target names itself and its state on the first line, and the CI matrix groups by account', async () => {
    const one = await runCli(['plan', '--target', 'lojas/centro', '--json'], { cwd: dir, env });
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ target: { mode: 'sandbox', name: 'lojas/centro', id: 'sandbox:.erpsync/sandbox-lojas.centro.json', account: { nome: 'Loja Sandbox Ltda' } } });
    const text = await runCli(['plan', '--target', 'lojas/centro'], { cwd: dir, env });
    expect(text.stdout.split('\n')[0]).toBe('Account: Loja Sandbox Ltda (CNPJ 12.345.678/0001-90) · local sandbox (state in .erpsync/sandbox-lojas.centro.json) · target lojas/centro');

    const matrix = await runCli(['targets', '--json', '--check'], { cwd: dir, env });
    expect(matrix.code, matrix.stderr).toBe(0);
    const { include } = JSON.parse(matrix.stdout) as { include: { target: string; baseUrl: string; group: string }[] };
    expect(include.map((e) => e.baseUrl)).toEqual(['sandbox:.erpsync/homologacao.json', 'sandbox:.erpsync/sandbox-lojas.centro.json', 'sandbox:.erpsync/sandbox-lojas.sul.json']);
    expect(new Set(include.map((e) => e.group)).size).toBe(3);
  });
});
