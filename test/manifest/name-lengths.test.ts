// A name longer than its field takes is an error offline, at its line and column, in the same
// pass as every other problem; the record keeps its name for the checks across records (a child
// naming it is not told its parent is undeclared). `plan` refuses it before any request.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { offlineDiagnostics } from '../support/offline-diagnostics.js';
import { runCli } from '../support/run-cli.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-lengths-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const warehouse = (length: number) => `Depósito ${'x'.repeat(length - 'Depósito '.length)}`;
const group = (length: number) => `Grupo ${'g'.repeat(length - 'Grupo '.length)}`;

function manifest(depositLength: number, groupLength: number): string {
  return [
    'version: 1',
    'depositos:',
    `  - descricao: ${warehouse(depositLength)}`,
    'gruposProdutos:',
    `  - nome: ${group(groupLength)}`,
    '  - nome: Filho',
    `    grupoProdutoPai: ${group(groupLength)}`,
    '  - nome: Filho',
    `    grupoProdutoPai: ${group(groupLength)}`,
    '',
  ].join('\n');
}

const diagnosticsOf = (yaml: string) => offlineDiagnostics(dir, yaml);

describe('name lengths, offline', () => {
  it('takes names at the limit', async () => {
    // Less the second Filho (a duplicate): nothing to say.
    expect(await diagnosticsOf(manifest(120, 60).replace(/ {2}- nome: Filho\n.*\n$/, ''))).toEqual([]);
  });

  it('refuses a name one past the limit, with the limit and its source, among the other problems of the run', async () => {
    expect(await diagnosticsOf(manifest(121, 61))).toEqual([
      "m.yaml:3:16: error: too-long: `descricao` has 121 characters; depositos take at most 120 (Bling's documented size of a warehouse's descricao, String(120))",
      '    hint: shorten it: the service may refuse a longer name, or keep only part of it',
      "m.yaml:5:11: error: too-long: `nome` has 61 characters; gruposProdutos take at most 60 (erpsync's own limit: the API documents no size for this field)",
      '    hint: shorten it: the service may refuse a longer name, or keep only part of it',
      // The duplicate is found under the too-long parent's path: the record kept its name.
      expect.stringMatching(/^m\.yaml:8:11: error: duplicate-record: `Grupo g+ > Filho` is declared twice/),
      expect.any(String),
    ]);
  });

  it('counts characters, not bytes: 120 accented letters pass', async () => {
    const lines = await diagnosticsOf(`version: 1\ndepositos:\n  - descricao: ${'ç'.repeat(120)}\n  - descricao: ${'ç'.repeat(121)}\n`);
    expect(lines[0]).toMatch(/^m\.yaml:4:16: error: too-long: `descricao` has 121 characters/);
    expect(lines).toHaveLength(2);
  });

  it('the published schema carries the limit, so editors flag it too', () => {
    const schema = JSON.parse(readFileSync(path.join(repo, 'schemas/depositos.schema.json'), 'utf8')) as { properties: { descricao: { maxLength: number } } };
    expect(schema.properties.descricao.maxLength).toBe(120);
  });

  it('plan refuses it before reading the account (exit 1)', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), manifest(121, 10));
    const run = await runCli(['plan', 'm.yaml', '--sandbox', '--sandbox-state', 'state.json'], { cwd: dir, env: {} });
    expect(run.code).toBe(1);
    expect(run.stderr + run.stdout).toContain('m.yaml:3:16: error: too-long:');
    expect(run.stdout + run.stderr).not.toContain('Plan:');
  });
});
