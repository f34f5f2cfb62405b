// Passwords of every shape a person types — digits only, a leading `@`, `!`, `[`, `*` or quote,
// `#`, `: `, line breaks, markup, non-ASCII — fed to the NFS-e secret field through the
// documented unquoted `senha: ${NFSE_SENHA_PREFEITURA}`, then through every command that reads
// manifests or the account, in every output format the command offers, on success and on
// failure. No form of any of them may appear in any output or written file, and each one applies
// and converges: the account ends up holding it exactly, and the next plan is empty.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { runCli } from '../support/run-cli.js';
import { filesUnder, formatsOf, leakForms, leaksIn } from './support/leaks.js';
import type { OutputFormat } from './support/leaks.js';

const shapes = [
  '98765432',
  '@Segr3do!',
  '!x Segr3do',
  '[Segr3do',
  '"Segr3do',
  "'Segr3do",
  'Segr3do #comentario',
  '#Segr3do',
  'Segr3do: valor',
  'linha1\nlinha2',
  '*Segr3do &ancora',
  '<Segr3do>&"x',
  'S€gr3dø ção\t%41',
];

/** Every form of every shape: a run must not show a previous password either (the account still holds it). */
const forbidden = [...new Set(shapes.flatMap((shape) => [...leakForms(shape), shape.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')]))];

const manifest = 'version: 1\nconfiguracoesNfse:\n  adicionais:\n    cadastroPrefeitura:\n      login: loja\n      senha: ${NFSE_SENHA_PREFEITURA}\ngruposProdutos:\n  - nome: Varredura\n';
// Broken elsewhere, with the secret quoted this time: the value must not show in the diagnostics either.
const broken = 'version: 1\nconfiguracoesNfse:\n  adicionais:\n    cadastroPrefeitura:\n      login: loja\n      senha: "${NFSE_SENHA_PREFEITURA}"\ngruposProdutos:\n  - nome: Varredura\n    cor: azul\n';

let emulator: Emulator;
let cwd: string;
const tally = { runs: 0, combinations: new Set<string>() };
const formats = new Map<string, OutputFormat[]>();
const extension: Record<OutputFormat['name'], string> = { text: 'txt', json: 'json', markdown: 'md', junit: 'xml' };

beforeAll(async () => {
  emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
  cwd = mkdtempSync(path.join(tmpdir(), 'erpsync-secret-shapes-'));
  writeFileSync(path.join(cwd, 'loja.yaml'), manifest);
  mkdirSync(path.join(cwd, 'broken'));
  writeFileSync(path.join(cwd, 'broken/loja.yaml'), broken);
  for (const command of ['validate', 'plan', 'apply', 'drift', 'export']) formats.set(command, await formatsOf(command, cwd));
});

afterAll(async () => {
  await emulator.close();
  rmSync(cwd, { recursive: true, force: true });
  console.info(`secret shapes: ${tally.runs} runs, ${tally.combinations.size} shape × command × format × outcome combinations`);
});

function envFor(password: string, token = emulator.token): NodeJS.ProcessEnv {
  return { BLING_ACCESS_TOKEN: token, NFSE_SENHA_PREFEITURA: password, ERPSYNC_BASE_URL: emulator.baseUrl, ERPSYNC_RATE: '1000' };
}

/** Runs one command and checks its output holds no form of any password. */
async function run(shape: number, outcome: 'success' | 'failure', format: OutputFormat, args: string[], env: NodeJS.ProcessEnv, expected: number[]): Promise<string> {
  const result = await runCli([...args, ...format.flag], { cwd, env });
  const output = `${result.stdout}\n${result.stderr}`;
  tally.runs += 1;
  tally.combinations.add(`${shape}|${args[0] ?? ''}|${format.name}|${outcome}`);
  expect(leaksIn(output, forbidden), `shape ${shape}: erpsync ${[...args, ...format.flag].join(' ')}\n${output}`).toEqual([]);
  expect(expected, `shape ${shape}: erpsync ${[...args, ...format.flag].join(' ')} exit code; output:\n${output}`).toContain(result.code);
  return output;
}

const formatsFor = (command: string): OutputFormat[] => formats.get(command) ?? [];

describe('passwords of every shape, every command, every format, success and failure', () => {
  it.each(shapes.map((shape, index) => ({ index, shape })))('shape $index: $shape', async ({ index, shape }) => {
    const env = envFor(shape);
    const revoked = envFor(shape, `${emulator.token}-revoked`);
    for (const format of formatsFor('validate')) {
      await run(index, 'success', format, ['validate', 'loja.yaml'], env, [0]);
      await run(index, 'failure', format, ['validate', 'broken/loja.yaml'], env, [1]);
    }
    for (const format of formatsFor('plan')) {
      // The account holds the previous password (or none): the plan changes it, without showing either.
      const output = await run(index, 'success', format, ['plan', 'loja.yaml', '--detailed-exitcode', '--out', `plans/${index}-${format.name}.json`], env, [2]);
      expect(output).toContain('senha');
      await run(index, 'failure', format, ['plan', 'loja.yaml', '--debug'], revoked, [1]);
    }
    for (const format of formatsFor('drift')) {
      await run(index, 'success', format, ['drift', 'loja.yaml', '--out', `reports/${index}.${extension[format.name]}`], env, [2]);
      await run(index, 'failure', format, ['drift', 'loja.yaml', '--debug'], revoked, [1]);
    }
    for (const format of formatsFor('export')) {
      await run(index, 'success', format, ['export', '--out', `exported/${index}-${format.name}`], env, [0]);
      await run(index, 'failure', format, ['export', '--debug'], revoked, [1]);
    }
    // Failures first (the write is refused, so the change stays to be made), then the applies.
    for (const format of formatsFor('apply')) {
      emulator.setFaults({ schedule: [{ method: 'PUT', path: '/nfse/configuracoes', nth: 1, fault: 'http500' }] });
      await run(index, 'failure', format, ['apply', 'loja.yaml', '--auto-approve', '--debug'], env, [1]);
      emulator.setFaults(undefined);
    }
    for (const format of formatsFor('apply')) await run(index, 'success', format, ['apply', 'loja.yaml', '--auto-approve'], env, [0]);
    // Applied exactly as typed, and converged: the next plan has nothing to do.
    expect(emulator.snapshot().nfseConfiguracoes.adicionais.cadastroPrefeitura.senha).toBe(shape);
    await run(index, 'success', { flag: [], name: 'text' }, ['plan', 'loja.yaml', '--detailed-exitcode'], env, [0]);
  }, 60_000);

  it('every file erpsync wrote is free of every password', () => {
    const written = filesUnder(cwd).filter((file) => !file.endsWith('loja.yaml'));
    expect(written.length).toBeGreaterThanOrEqual(shapes.length * 5);
    const leaks = written.flatMap((file) => leaksIn(readFileSync(file, 'utf8'), forbidden).map((form) => `${path.relative(cwd, file)} holds ${JSON.stringify(form)}`));
    expect(leaks).toEqual([]);
    expect(shapes.length).toBeGreaterThanOrEqual(11);
    // Each shape × each command's formats × success and failure.
    const perShape = [...formats.values()].reduce((sum, list) => sum + list.length * 2, 0);
    expect(tally.combinations.size).toBe(shapes.length * perShape);
  });
});
