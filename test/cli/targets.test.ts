// Named targets from erpsync.config.yaml at the repository root: each target plans its own
// manifests (layered base + overlay) with its own variables, the config file is never read as a
// manifest, and a folder scan skips YAML that is not a manifest.
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { runCli } from '../support/run-cli.js';

let homolog: Emulator;
let producao: Emulator;
let dir: string;
let env: NodeJS.ProcessEnv;

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}

beforeEach(async () => {
  homolog = await createEmulator({ rateLimit: 0, company: { id: 'a'.repeat(32), nome: 'Loja Nova Homologação Ltda' } });
  producao = await createEmulator({ rateLimit: 0, company: { id: 'b'.repeat(32), nome: 'Loja Nova Cosméticos Ltda' } });
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-targets-'));
  env = { HML_TOKEN: homolog.token, PRD_TOKEN: producao.token };
  write(
    'erpsync.config.yaml',
    [
      '# yaml-language-server: $schema=../schemas/config.schema.json',
      'version: 1',
      'targets:',
      '  homolog:',
      `    baseUrl: ${homolog.baseUrl}`,
      '    credentials: { tokenEnv: HML_TOKEN }',
      '    manifests: [base, overlays/homolog]',
      '    envFile: ambientes/homolog.env',
      '    variables: { PREFIXO: "[HML] " }',
      '    rate: 1000',
      '  producao:',
      `    baseUrl: ${producao.baseUrl}`,
      '    credentials: { tokenEnv: PRD_TOKEN }',
      '    manifests: base',
      '    variables: { PREFIXO: "", CODIGO: 100200 }',
      '    rate: 1000',
      '',
    ].join('\n'),
  );
  write('ambientes/homolog.env', "# staging values\nCODIGO='900'\n");
  write('base/grupos.yaml', 'version: 1\ngruposProdutos:\n  - nome: ${PREFIXO}Maquiagem\n  - nome: Perfumaria ${CODIGO}\n');
  write('base/docker-compose.yml', 'services:\n  db:\n    image: postgres\n');
  write('overlays/homolog/grupos.yaml', 'version: 1\ngruposProdutos:\n  - nome: Perfumaria 900\n    ensure: absent\n');
});
afterEach(async () => {
  await Promise.all([homolog.close(), producao.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const created = (json: string): string[] => (JSON.parse(json) as { changes: { action: string; key: string }[] }).changes.map((c) => `${c.action} ${c.key}`).sort();

describe('named targets', () => {
  it('plan each target with no paths: its own manifests, its own values, its own account', async () => {
    const hml = await runCli(['plan', '--target', 'homolog', '--json'], { cwd: dir, env });
    expect(hml.stderr.split('\n')[0]).toBe(`Account: Loja Nova Homologação Ltda (CNPJ 12.345.678/0001-90) · ${new URL(homolog.baseUrl).host} · target homolog`);
    expect(hml.code).toBe(0);
    // The overlay's tombstone replaced the base's record of the same identity.
    expect(created(hml.stdout)).toEqual(['create [HML] Maquiagem']);
    expect(JSON.parse(hml.stdout).target).toMatchObject({ name: 'homolog', account: { id: 'a'.repeat(32) } });

    const prd = await runCli(['plan', '--target', 'producao', '--json'], { cwd: dir, env });
    expect(prd.code).toBe(0);
    expect(created(prd.stdout)).toEqual(['create Maquiagem', 'create Perfumaria 100200']);
    expect(JSON.parse(prd.stdout).target).toMatchObject({ name: 'producao', account: { id: 'b'.repeat(32) } });

    // Each run read its own account only.
    expect(producao.requestLog().length).toBeGreaterThan(0);
    expect(homolog.requestLog().length).toBeGreaterThan(0);
    expect(await runCli(['apply', '--target', 'producao', '--auto-approve'], { cwd: dir, env })).toMatchObject({ code: 0 });
    expect(producao.snapshot().gruposProdutos.map((g) => g.nome).sort()).toEqual(['Maquiagem', 'Perfumaria 100200']);
    expect(homolog.snapshot().gruposProdutos).toEqual([]);
  });

  it('never reads the config file as a manifest, and skips other YAML with a note', async () => {
    const validate = await runCli(['validate', '.'], { cwd: dir, env: { ERPSYNC_VAR_PREFIXO: '', ERPSYNC_VAR_CODIGO: '900' } });
    expect(validate.stdout + validate.stderr).not.toContain('unknown top-level key `targets`');
    expect(validate.stdout + validate.stderr).toContain('base/docker-compose.yml:1:1: note: not-a-manifest');
    expect(validate.stdout + validate.stderr).toContain('overlays/homolog/grupos.yaml');
    // Without layers (paths on the command line), the same identity twice is still an error.
    expect(validate.code).toBe(1);
    expect(validate.stdout + validate.stderr).toContain('duplicate-record');
    const base = await runCli(['validate', 'base'], { cwd: dir, env: { ERPSYNC_VAR_PREFIXO: '', ERPSYNC_VAR_CODIGO: '1' } });
    expect(base.code).toBe(0);
  });
});
