// drift --adopt of records the account has and no manifest names: written into the target's own
// file (its overlay) in the manifest language — references by name — with the file's comments and
// order kept, after which drift is clean; into a file other stores read, it is refused.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

let dir = '';
const env: NodeJS.ProcessEnv = { CI: 'true' };
const run = (args: string[]) => runCli(args, { cwd: dir, env });
const read = (file: string) => readFileSync(path.join(dir, file), 'utf8');

const base = `version: 1
# the groups every store shares
gruposProdutos:
  - nome: Revenda
  - nome: Nacionais # made here
    grupoProdutoPai: Revenda
`;
const overlay = `version: 1
# loja-a keeps consigned goods apart
depositos:
  - descricao: Consignado
    desconsiderarSaldo: true
`;

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-adopt-unmanaged-'));
  env.ERPSYNC_LOCK_DIR = path.join(dir, '.locks');
  write('base/grupos.yaml', base);
  write('overlays/loja-a/estoque.yaml', overlay);
  // What someone made by hand in loja-a's ERP: a group under Revenda.
  write('hand/grupos.yaml', `${base}  - nome: Outlet\n    grupoProdutoPai: Revenda\n`);
  write('hand/estoque.yaml', overlay);
  write(
    'erpsync.config.yaml',
    ['version: 1', 'targets:', '  loja-a:', '    sandbox: true', '    manifests: [base, overlays/loja-a]', '  loja-b:', '    sandbox: true', '    manifests: [base]', '  loja-c:', '    sandbox: true', '    manifests: [base, overlays/loja-c]', ''].join('\n'),
  );
  for (const [target, paths] of [['loja-a', ['hand']], ['loja-b', []]] as const) {
    const applied = await run(['apply', ...paths, '--target', target, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  }
  const drift = await run(['drift', '--target', 'loja-a']);
  expect(drift.code).toBe(2);
  expect(drift.stdout).toContain('Outlet');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('drift --adopt of unmanaged records', () => {
  it('writes the record into the target\'s own overlay, by name, comments kept; the next drift is clean', async () => {
    const adopted = await run(['drift', '--target', 'loja-a', '--adopt']);
    expect(adopted.code, adopted.stderr).toBe(2);
    // The warehouse every account starts with holds the default, and is the store's own to manage.
    expect(adopted.stdout).toContain('Adopted into overlays/loja-a/estoque.yaml: gruposProdutos "Revenda > Outlet" (unmanaged); depositos "Geral" (unmanaged)');
    expect(read('overlays/loja-a/estoque.yaml')).toBe(`${overlay}  - descricao: Geral\n    padrao: true\n\ngruposProdutos:\n  - nome: Outlet\n    grupoProdutoPai: Revenda\n`);
    expect(read('base/grupos.yaml')).toBe(base);
    const again = await run(['drift', '--target', 'loja-a']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const other = await run(['drift', '--target', 'loja-b']);
    expect(other.code, other.stdout + other.stderr).toBe(0);
  });

  it('adds to the list of a kind the file declares, at its end', async () => {
    write('hand/estoque.yaml', `${overlay}  - descricao: Vitrine\n`);
    expect((await run(['apply', 'hand', '--target', 'loja-a', '--auto-approve'])).code).toBe(0);
    const adopted = await run(['drift', '--target', 'loja-a', '--adopt']);
    expect(adopted.stdout).toContain('Adopted into overlays/loja-a/estoque.yaml: depositos "Vitrine" (unmanaged)');
    expect(read('overlays/loja-a/estoque.yaml')).toBe(`${overlay}  - descricao: Geral\n    padrao: true\n  - descricao: Vitrine\n\ngruposProdutos:\n  - nome: Outlet\n    grupoProdutoPai: Revenda\n`);
    expect((await run(['drift', '--target', 'loja-a'])).code).toBe(0);
  });

  it('edits only where the record goes: flow style, its spacing, quotes and comments stay byte for byte', async () => {
    const styled = `version:   1   # spacing of the author's own
# loja-c delivers itself
logisticas:
  - descricao: 'Entrega própria'
    situacao: habilitada
    servicos:
      - {codigo: MOTO, descricao: "Motoboy", freteItem: 4.5, estimativaEntrega: 1, aliases: [Expressa, Moto]}
depositos:
  - {descricao: Consignado, desconsiderarSaldo: true}   # kept apart
`;
    write('overlays/loja-c/loja.yaml', styled);
    write('hand-c/grupos.yaml', base);
    write('hand-c/loja.yaml', `${styled}  - descricao: Vitrine\n`);
    expect((await run(['apply', 'hand-c', '--target', 'loja-c', '--auto-approve'])).code).toBe(0);
    const adopted = await run(['drift', '--target', 'loja-c', '--adopt']);
    expect(adopted.stdout).toContain('Adopted into overlays/loja-c/loja.yaml: depositos "Geral" (unmanaged); depositos "Vitrine" (unmanaged)');
    const after = read('overlays/loja-c/loja.yaml');
    // Every line of the file as it was, unchanged and in order; the records only after them.
    expect(after.slice(0, styled.length)).toBe(styled);
    expect(after.slice(styled.length)).toBe('  - descricao: Geral\n    padrao: true\n  - descricao: Vitrine\n');
    expect((await run(['drift', '--target', 'loja-c'])).code).toBe(0);
  });

  it('refuses a file other targets read, naming them', async () => {
    write('hand-b/grupos.yaml', `${base}  - nome: Importados\n    grupoProdutoPai: Revenda\n`);
    expect((await run(['apply', 'hand-b', '--target', 'loja-b', '--auto-approve'])).code).toBe(0);
    const refused = await run(['drift', '--target', 'loja-b', '--adopt']);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain('Not adopted into base/grupos.yaml: the file is shared with loja-a');
    expect(read('base/grupos.yaml')).toBe(base);
  });
});
