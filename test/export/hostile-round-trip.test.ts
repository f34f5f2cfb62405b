// Export of an account holding what the manifest language cannot take as is: `${…}` in names
// (a credential's variable, $HOME), terminal escapes, an empty name, a colour `red`, duplicates.
// The exported set must validate (with notes for what was left out), plan with no changes, and
// show no variable's value: text from the account is written as data (`$${`), never interpolated.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { runCli } from '../support/run-cli.js';

const clientSecret = 'cs-HOSTILE-4d1e9a77';
const home = '/home/hostile-user';

let emulator: Emulator;
let dir: string;
let env: NodeJS.ProcessEnv;

/** Whether `text` holds a raw control character other than the line feed: text driving the terminal. */
function hasRawControl(text: string): boolean {
  return [...text].some((c) => {
    const code = c.codePointAt(0) ?? 0;
    return c !== '\n' && (code < 0x20 || (code >= 0x7f && code <= 0x9f));
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-hostile-export-'));
  // The account is written as state, bypassing the API's checks: the ERP's screens let people type these.
  const seed = await createEmulator({ seed: 'fresh', rateLimit: 0 });
  const state = seed.snapshot();
  await seed.close();
  let id = state.nextId;
  const group = (nome: string, idGrupoPai = 0) => {
    state.gruposProdutos.push({ id, nome, idGrupoPai });
    id += 1;
    return id - 1;
  };
  group('${BLING_CLIENT_SECRET}');
  group('${HOME}');
  group('Preço $${literal} e ${X');
  group('Roupas\u001b[2J\u001b[31mLIMPA');
  const unnamed = group('');
  group('Filho de ninguém', unnamed);
  group('Duplicado');
  group('Duplicado');
  const vendas = state.modulos.find((m) => m.nome === 'Vendas');
  const base = state.situacoes.find((s) => s.idModuloSistema === vendas?.id && s.idHerdado === 0);
  state.situacoes.push({ id, idModuloSistema: vendas?.id ?? 0, nome: 'Vermelha', idHerdado: base?.id ?? 0, cor: 'red' });
  id += 1;
  state.nextId = id;
  const stateFile = path.join(dir, 'account.json');
  writeFileSync(stateFile, JSON.stringify({ formatVersion: 1, state, auth: { access: [], refresh: [] } }));
  emulator = await createEmulator({ seed: stateFile, rateLimit: 0 });
  env = { BLING_ACCESS_TOKEN: emulator.token, BLING_CLIENT_SECRET: clientSecret, HOME: home, X: 'x-value', ERPSYNC_BASE_URL: emulator.baseUrl, ERPSYNC_RATE: '1000' };
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('export of a hostile account', () => {
  it('writes only what the manifest language accepts, says what it left out, and the set round-trips', async () => {
    const exported = await runCli(['export', '--out', 'out', '--kinds', 'gruposProdutos,situacoes'], { cwd: dir, env });
    expect(exported.code, exported.stderr).toBe(0);
    expect(hasRawControl(exported.stderr)).toBe(false);
    expect(exported.stderr.split('\n').filter((line) => line.startsWith('warning: '))).toEqual([
      expect.stringMatching(/^warning: gruposProdutos: 2 records are named `Duplicado` \(ids \d+, \d+\); exported the first only, pinned by its id$/),
      expect.stringMatching(/^warning: gruposProdutos: left out record \d+ \(``\), because /),
      expect.stringMatching(/^warning: gruposProdutos: left out record \d+ \(` > Filho de ninguém`\), because /),
    ]);
    const groups = readFileSync(path.join(dir, 'out/grupos-produtos.yaml'), 'utf8');
    const situations = readFileSync(path.join(dir, 'out/situacoes.yaml'), 'utf8');
    expect(groups).toContain('- nome: $${BLING_CLIENT_SECRET}');
    expect(groups).toContain('- nome: $${HOME}');
    expect(groups).toMatch(/- nome: Duplicado\n\s+id: \d+\n/);
    expect(groups).toContain('- nome: Preço $$${literal} e $${X');
    expect(groups).toMatch(/# Left out: record \d+ \(``\), because nome `` is empty\.\n/);
    expect(groups).toMatch(/# Left out: record \d+ \(` > Filho de ninguém`\), because grupoProdutoPai `` is empty\.\n/);
    expect(groups).toContain('- nome: "Roupas\\e[2J\\e[31mLIMPA"');
    expect(situations).toMatch(/# cor `red` does not have the form the manifest language needs: left out\n\s+- modulo: Vendas\n\s+nome: Vermelha/);
    expect(readdirSync(path.join(dir, 'out')).sort()).toEqual(['grupos-produtos.yaml', 'situacoes.yaml']);

    const validated = await runCli(['validate', 'out'], { cwd: dir, env });
    expect(validated.code, validated.stderr).toBe(0);
    expect(hasRawControl(validated.stdout)).toBe(false);

    const planned = await runCli(['plan', 'out', '--detailed-exitcode'], { cwd: dir, env });
    expect(planned.stderr).not.toMatch(/: error: /);
    expect(planned.stdout).toContain('No changes. The account matches the manifests.');
    expect(planned.code).toBe(0);

    for (const output of [exported, validated, planned]) {
      const text = `${output.stdout}${output.stderr}`;
      expect(text).not.toContain(clientSecret);
      expect(text).not.toContain(home);
      expect(text).not.toContain('x-value');
    }
  });
});
