// `import` keeps a base's `${VAR}` inside lists — a logistics' services (matched by value, whatever
// order the account lists them in) and their aliases, a custom field's options — where the store
// holds the variable's value, writes the store's own value where it does not, and never writes a
// secret as a literal in any file. `--suggest-base` turns a value equal to a store's own variable
// back into the variable, list items included.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { FleetReport } from '../../src/model/fleet.js';
import { runCli } from '../support/run-cli.js';

const secret = 'S3nh4-das-Listas';
let dir = '';
const env: NodeJS.ProcessEnv = { CI: 'true', NFSE_SENHA_PREFEITURA: secret };
const run = (args: string[]) => runCli(args, { cwd: dir, env });
const stores = ['loja-1', 'loja-2', 'loja-3', 'loja-4'];
const variables: Record<string, Record<string, string>> = {
  'loja-1': { SERVICO_MOTO: 'Motoboy', ALIAS: 'Moto', TOM: 'Escuro' },
  'loja-2': { SERVICO_MOTO: 'Motoboy da filial', ALIAS: 'Rápida', TOM: 'Médio' },
  'loja-3': { SERVICO_MOTO: 'Motoboy', ALIAS: 'Moto', TOM: 'Escuro' },
  'loja-4': { SERVICO_MOTO: 'Motoboy quatro', ALIAS: 'Veloz', TOM: 'Bronze' },
};

// The store lists its services by code; the base lists RETIRADA first.
const base = `version: 1
logisticas:
  - descricao: Entrega própria
    situacao: habilitada
    servicos:
      - codigo: RETIRADA
        descricao: Retirada no balcão
        freteItem: 0
        estimativaEntrega: 1
      - codigo: MOTO
        descricao: \${SERVICO_MOTO}
        freteItem: 4.5
        estimativaEntrega: 1
        aliases: [Expressa, "\${ALIAS}"]
camposCustomizados:
  - modulo: Produtos
    nome: Tom de pele
    tipoCampo: Lista
    opcoes: [Claro, "\${TOM}"]
configuracoesNfse:
  adicionais:
    cadastroPrefeitura:
      login: "11222333000181"
      senha: \${NFSE_SENHA_PREFEITURA}
`;

/** What was done by hand in each store's ERP. */
const handEdits: Record<string, [from: string, to: string][]> = {
  // A service changed (the logistics is written whole) and an option added (the field too).
  'loja-2': [['freteItem: 0\n        estimativaEntrega: 1', 'freteItem: 0\n        estimativaEntrega: 2'], ['opcoes: [Claro, "${TOM}"]', 'opcoes: [Claro, "${TOM}", Bronze]']],
  // An alias and an option that are not the store's variables.
  'loja-3': [['aliases: [Expressa, "${ALIAS}"]', 'aliases: [Expressa, Turbo]'], ['opcoes: [Claro, "${TOM}"]', 'opcoes: [Claro, Bronze]']],
};

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}

function writeConfig(layers: (store: string) => string): void {
  const config = ['version: 1', 'targets:'];
  for (const store of stores) {
    const vars = Object.entries(variables[store] ?? {}).map(([name, value]) => `${name}: "${value}"`);
    config.push(`  ${store}:`, '    sandbox: true', `    manifests: [${layers(store)}]`, `    variables: { ${vars.join(', ')} }`);
  }
  write('erpsync.config.yaml', `${config.join('\n')}\n`);
}

type Plain = Record<string, unknown>;
const overlayOf = (store: string) => parse(readFileSync(path.join(dir, `overlays/${store}/overlay.yaml`), 'utf8')) as Plain;
const recordsOf = (doc: Plain, kind: string) => (doc[kind] ?? []) as Plain[];
const motoOf = (doc: Plain) => ((recordsOf(doc, 'logisticas').find((l) => l.descricao === 'Entrega própria')?.servicos ?? []) as Plain[]).find((s) => s.codigo === 'MOTO');
const opcoesOf = (doc: Plain) => recordsOf(doc, 'camposCustomizados').find((c) => c.nome === 'Tom de pele')?.opcoes;

/** Every file below the test's folder, as text. */
function everyFile(folder = dir): string[] {
  return readdirSync(folder).flatMap((name) => {
    const full = path.join(folder, name);
    return statSync(full).isDirectory() ? everyFile(full) : [readFileSync(full, 'utf8')];
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-import-lists-'));
  env.ERPSYNC_LOCK_DIR = path.join(dir, '.locks');
  write('base/loja.yaml', base);
  for (const store of stores) {
    let text = base;
    for (const [from, to] of handEdits[store] ?? []) {
      expect(text).toContain(from);
      text = text.replace(from, to);
    }
    write(`hand/${store}/loja.yaml`, text);
  }
  writeConfig((store) => `hand/${store}`);
  const applied = await run(['apply', '--all-targets', '--auto-approve']);
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  writeConfig((store) => `base, overlays/${store}`);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('import keeps ${VAR} inside lists', () => {
  it('keeps the variable in a list item where the store holds its value, writes the value where it does not; every store then plans empty', async () => {
    const imported = await run(['import', '--all-targets']);
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    // loja-2: its logistics and its field are written whole, each list item still its variable.
    const two = overlayOf('loja-2');
    expect(motoOf(two)).toMatchObject({ descricao: '${SERVICO_MOTO}', aliases: ['Expressa', '${ALIAS}'] });
    expect(opcoesOf(two)).toEqual(expect.arrayContaining(['Claro', '${TOM}', 'Bronze']));
    expect(opcoesOf(two)).toHaveLength(3);
    // loja-3: the alias and the options are not its variables' values: written as the store holds them.
    const three = overlayOf('loja-3');
    expect(motoOf(three)).toMatchObject({ descricao: '${SERVICO_MOTO}', aliases: ['Expressa', 'Turbo'] });
    expect([...((opcoesOf(three) as string[]) ?? [])].sort()).toEqual(['Bronze', 'Claro']);
    for (const store of stores) {
      const text = readFileSync(path.join(dir, `overlays/${store}/overlay.yaml`), 'utf8');
      for (const literal of ['Motoboy da filial', 'Rápida', 'Médio', 'Motoboy quatro', 'Veloz']) expect(text).not.toContain(literal);
    }
    const planned = await run(['plan', '--all-targets', '--json', '--detailed-exitcode']);
    const report = JSON.parse(planned.stdout) as FleetReport;
    expect(report.rows.map((r) => [r.target, r.changes, r.error ?? ''])).toEqual(stores.map((s) => [s, 0, '']));
    expect(planned.code, planned.stderr).toBe(0);
    const again = await run(['import', '--all-targets']);
    expect(again.stdout).toContain(`0 file(s) written, ${stores.length} unchanged, 0 failed`);
  });

  it('the suggested base writes a store\'s own variable back in list items too', async () => {
    const suggested = await run(['import', '--all-targets', '--suggest-base', 'suggested', '--min-share', '0.5', '--json']);
    expect(suggested.code, suggested.stderr).toBe(0);
    const docs = readdirSync(path.join(dir, 'suggested')).map((file) => parse(readFileSync(path.join(dir, 'suggested', file), 'utf8')) as Plain);
    const proposal = Object.assign({}, ...docs) as Plain;
    expect(motoOf(proposal)).toMatchObject({ descricao: '${SERVICO_MOTO}', aliases: ['Expressa', '${ALIAS}'] });
    expect(opcoesOf(proposal)).toEqual(expect.arrayContaining(['${TOM}']));
  });

  it('never writes a secret as a literal, in any file', () => {
    const files = everyFile();
    expect(files.length).toBeGreaterThan(stores.length);
    for (const text of files) expect(text).not.toContain(secret);
  });
});
