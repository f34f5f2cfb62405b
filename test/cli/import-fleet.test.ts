// Bringing a fleet in: ten sandbox stores set up from one base and then changed by scripted hand
// edits (records added, fields changed, records removed, one record renamed, a per-store variable,
// the NFS-e settings with their secret). `import --all-targets` against the hand-written base writes
// each store's overlay, after which every store plans empty; a second import writes nothing. The
// suggested base (--suggest-base, --min-share 0.8) gives overlays that sum smaller, and every store
// still plans empty with it. A `${VAR}` of the base stays a variable where the store holds its value,
// and the secret is never written as a literal.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetReport } from '../../src/model/fleet.js';
import { runCli } from '../support/run-cli.js';
import { storeName } from '../support/fleet.js';

const secret = 'S3nh4-da-Prefeitura';
let dir = '';
const env: NodeJS.ProcessEnv = { CI: 'true', NFSE_SENHA_PREFEITURA: secret };
const run = (args: string[]) => runCli(args, { cwd: dir, env });
const stores = Array.from({ length: 10 }, (_, i) => storeName(i + 1));
const overlayOf = (i: number) => `overlays/loja-${String(i).padStart(2, '0')}/overlay.yaml`;
const read = (file: string) => readFileSync(path.join(dir, file), 'utf8');

const baseFiles: Record<string, string> = {
  'base/pagamentos.yaml': `version: 1
formasPagamentos:
  - descricao: Boleto bancário
    tipoPagamento: boleto
    finalidade: recebimentos
    destino: contas
    # each store's own term
    condicao: \${BOLETO_PRAZO}
    juros: 1
  - descricao: Cartão de débito
    tipoPagamento: cartao-debito
    finalidade: recebimentos
    destino: caixa-e-bancos
    taxas:
      aliquota: 1.39
      prazo: 1
`,
  'base/produtos.yaml': `version: 1
gruposProdutos:
  - nome: Marcas próprias
  - nome: Linha Flor do Cerrado
    grupoProdutoPai: Marcas próprias
  - nome: Revenda
  - nome: Nacionais
    grupoProdutoPai: Revenda
  - nome: Importados
    grupoProdutoPai: Revenda
`,
  'base/estoque.yaml': `version: 1
depositos:
  - descricao: Consignado
    desconsiderarSaldo: true
`,
  'base/nfse.yaml': `version: 1
configuracoesNfse:
  envioEmail:
    remetente: Loja Nova Cosméticos
  adicionais:
    cadastroPrefeitura:
      login: "11222333000181"
      senha: \${NFSE_SENHA_PREFEITURA}
`,
};

/** What was done by hand in each store's ERP, as text edits of the base it started from. */
const handEdits: Record<number, [file: string, from: string, to: string][]> = {
  2: [['base/produtos.yaml', '  - nome: Revenda\n', '  - nome: Revenda\n  - nome: Promoções\n']],
  3: [['base/pagamentos.yaml', 'juros: 1', 'juros: 2']],
  4: [['base/estoque.yaml', '  - descricao: Consignado\n    desconsiderarSaldo: true\n', '  - descricao: Vitrine\n']],
  5: [['base/produtos.yaml', '  - nome: Importados\n', '  - nome: Importados diretos\n']],
  6: [['base/nfse.yaml', 'remetente: Loja Nova Cosméticos', 'remetente: Loja Seis']],
  8: [['base/pagamentos.yaml', 'condicao: ${BOLETO_PRAZO}', 'condicao: "40"']],
};

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}

/** Every store but loja-01 also made the group Promoções by hand: the suggested base has it. */
function handManifests(i: number): string {
  const folder = `hand/loja-${String(i).padStart(2, '0')}`;
  for (const [file, text] of Object.entries(baseFiles)) {
    let edited = text;
    for (const [target, from, to] of handEdits[i] ?? []) {
      if (target !== file) continue;
      expect(edited).toContain(from);
      edited = edited.replace(from, to);
    }
    if (file === 'base/produtos.yaml' && i !== 1 && !edited.includes('Promoções')) edited = edited.replace('  - nome: Revenda\n', '  - nome: Revenda\n  - nome: Promoções\n');
    write(file.replace('base/', `${folder}/`), edited);
  }
  return folder;
}

function snapshot(): Map<string, { text: string; mtimeMs: number }> {
  const files = new Map<string, { text: string; mtimeMs: number }>();
  for (const folder of readdirSync(path.join(dir, 'overlays'))) {
    const file = path.join('overlays', folder, 'overlay.yaml');
    files.set(file, { text: read(file), mtimeMs: statSync(path.join(dir, file)).mtimeMs });
  }
  return files;
}

async function planFleetEmpty(): Promise<void> {
  const planned = await run(['plan', '--all-targets', '--json', '--detailed-exitcode']);
  const report = JSON.parse(planned.stdout) as FleetReport;
  expect(report.rows.map((r) => [r.target, r.changes, r.error ?? ''])).toEqual(stores.map((s) => [s, 0, '']));
  expect(planned.code, planned.stderr).toBe(0);
}

const sizes = (stdout: string) => (JSON.parse(stdout) as { stores: { target: string; size: { total: number } }[] }).stores.map((s) => s.size.total);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-import-'));
  env.ERPSYNC_LOCK_DIR = path.join(dir, '.locks');
  for (const [file, text] of Object.entries(baseFiles)) write(file, text);
  // First each store's hand-made state, applied across the fleet; then the layers the stores are managed by.
  const writeConfig = (layers: (i: number) => string) => {
    const config = ['version: 1', 'targets:'];
    for (const [index, name] of stores.entries()) {
      const i = index + 1;
      config.push(`  ${name}:`, '    sandbox: true', '    rate: 1000', `    manifests: [${layers(i)}]`, `    variables: { BOLETO_PRAZO: "${i === 7 ? '35' : '28'}" }`);
    }
    write('erpsync.config.yaml', `${config.join('\n')}\n`);
  };
  writeConfig((i) => handManifests(i));
  const applied = await run(['apply', '--all-targets', '--auto-approve', '--parallel', '5']);
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  writeConfig((i) => `base, overlays/loja-${String(i).padStart(2, '0')}`);
}, 240_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('import --all-targets against a hand-written base', () => {
  let handSizes: number[] = [];

  it('writes each store\'s overlay and reports its size; every store then plans empty', async () => {
    const imported = await run(['import', '--all-targets', '--json']);
    expect(imported.code, imported.stderr).toBe(0);
    handSizes = sizes(imported.stdout);
    // Every store holds three records of a new account the base does not declare (Pix, Cartão de
    // crédito, the warehouse Geral); all but loja-01 the group Promoções besides.
    expect(handSizes).toEqual([3, 4, 5, 6, 6, 5, 4, 5, 4, 4]);
    const text = await run(['import', '--target', storeName(5)]);
    expect(text.stdout).toContain(`${storeName(5)} (`);
    expect(text.stdout).toContain('overlays/loja-05/overlay.yaml: 6 record(s) — 5 added, 0 changed, 1 absent — unchanged');
    await planFleetEmpty();
  });

  it('writes added records, changed records whole, tombstones, variables kept and secrets as variables', () => {
    expect(read(overlayOf(4))).toContain('depositos:\n  - descricao: Consignado\n    ensure: absent\n\n  - descricao: Geral\n    padrao: true\n\n  - descricao: Vitrine\n');
    expect(read(overlayOf(5))).toMatch(/- nome: Importados\n\s+grupoProdutoPai: Revenda\n\s+ensure: absent/);
    expect(read(overlayOf(5))).toContain('- nome: Importados diretos');
    // loja-03 changed juros: Boleto is written whole, its term still the variable it holds the value of.
    const boleto = read(overlayOf(3)).split('\n\n').find((block) => block.includes('descricao: Boleto bancário')) ?? '';
    expect(boleto).toContain('juros: 2');
    expect(boleto).toContain('condicao: ${BOLETO_PRAZO}');
    // loja-08's term is not its variable's value: the value is written.
    expect(read(overlayOf(8))).toMatch(/descricao: Boleto bancário[\s\S]*condicao: "40"/);
    expect(read(overlayOf(6))).toContain('remetente: Loja Seis');
    expect(read(overlayOf(6))).toContain('senha: ${NFSE_SENHA_PREFEITURA}');
    for (let i = 1; i <= 10; i += 1) expect(read(overlayOf(i))).not.toContain(secret);
  });

  it('a second import changes no file', async () => {
    const before = snapshot();
    const again = await run(['import', '--all-targets']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('0 file(s) written, 10 unchanged, 0 failed');
    expect(snapshot()).toEqual(before);
  });

  it('the suggested base gives overlays that sum smaller, and every store still plans empty with it', async () => {
    const suggested = await run(['import', '--all-targets', '--suggest-base', 'suggested', '--min-share', '0.8', '--json']);
    expect(suggested.code, suggested.stderr).toBe(0);
    const proposal = JSON.parse(suggested.stdout) as { stores: { target: string; size: { total: number }; current?: { total: number } }[]; total: number; currentTotal: number };
    expect(proposal.stores.map((s) => s.current?.total)).toEqual(handSizes);
    expect(proposal.total).toBeLessThan(proposal.currentTotal);
    expect(existsSync(path.join(dir, 'suggested/grupos-produtos.yaml'))).toBe(true);
    expect(read('suggested/grupos-produtos.yaml')).toContain('Promoções');
    expect(read('suggested/formas-pagamentos.yaml')).toContain('condicao: ${BOLETO_PRAZO}');
    for (const file of readdirSync(path.join(dir, 'suggested'))) expect(read(`suggested/${file}`)).not.toContain(secret);

    // Put the suggested base in place of the hand-written one, and import again.
    rmSync(path.join(dir, 'base'), { recursive: true });
    cpSync(path.join(dir, 'suggested'), path.join(dir, 'base'), { recursive: true });
    const imported = await run(['import', '--all-targets', '--json']);
    expect(imported.code, imported.stderr).toBe(0);
    const suggestedSizes = sizes(imported.stdout);
    expect(suggestedSizes).toEqual(proposal.stores.map((s) => s.size.total));
    // What is left per store: its own hand edit (Promoções the one store that lacks it, as a tombstone).
    expect(suggestedSizes).toEqual([1, 0, 1, 2, 2, 1, 0, 1, 0, 0]);
    expect(suggestedSizes.reduce((a, b) => a + b, 0)).toBeLessThan(handSizes.reduce((a, b) => a + b, 0));
    await planFleetEmpty();
    // In text: the proposal's files, then each store's overlay size with it and with the current base (now the same).
    const text = await run(['import', '--all-targets', '--suggest-base', 'suggested']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('0 file(s) written.');
    expect(text.stdout).toMatch(new RegExp(`^${storeName(1)}\\s+${suggestedSizes[0]}\\s+${suggestedSizes[0]}$`, 'm'));
    const total = suggestedSizes.reduce((a, b) => a + b, 0);
    expect(text.stdout).toContain(`Overlays in all: ${total} record(s) with the suggested base, ${total} with the current base.`);
  });
});
