// The journal's remaining promises, end to end through the CLI against the emulator over HTTP:
// `history` of a run whose changes failed (a PUT the service refused) or ended unknown (a POST
// whose connection broke, twice: history settles it by reading the account, where it never
// landed), in text and JSON; the git revision's dirty flag; drift that
// names erpsync's own run when the manifests changed since, and no run for a record never applied;
// and `plan --revert` of a run that changed records of several kinds naming each other, undone in
// dependency order (parents re-created before their children, children deleted before parents)
// with the emulator's state after the revert equal to the state before the run.
import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { closeTestAccount, openTestAccount } from '../support/account.js';
import { runCli } from '../support/run-cli.js';

let emulator: Emulator;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  ({ emulator, dir, env } = await openTestAccount('erpsync-journal-audit-'));
  env = { ...env, USER: 'maria' };
});
afterEach(() => closeTestAccount({ emulator, dir }));

function lastRun(): string {
  return readdirSync(path.join(dir, '.erpsync/journal')).sort().at(-1)?.replace(/\.jsonl$/, '') ?? '';
}

function git(...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, stdio: 'ignore' });
}

const boleto = (juros: number) => `formasPagamentos:
  - descricao: Boleto da loja
    tipoPagamento: boleto
    finalidade: recebimentos
    destino: contas
    juros: ${juros}
`;

interface ShownRun {
  status: string;
  applied: number;
  failed: number;
  unknown: number;
  git: { dirty: boolean } | null;
  changes: { key: string; action: string; outcome: string; detail?: string; resolvedAt?: string }[];
}

describe('history of a run with failed and unknown outcomes', () => {
  it('shows each true outcome in the list, in the run and in JSON, the unknown one settled by reading the account; a run from uncommitted manifests is dirty', async () => {
    git('init', '-q');
    writeFileSync(path.join(dir, 'm.yaml'), `version: 1\n${boleto(1)}`);
    git('add', 'm.yaml');
    git('commit', '-qm', 'first');
    expect((await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env })).code).toBe(0);

    // Uncommitted: the boleto's PUT is refused with a 500 (not repeated: it may have landed); the
    // group's POST loses its connection twice and the group never appears; the category is created.
    writeFileSync(path.join(dir, 'm.yaml'), `version: 1\n${boleto(2)}gruposProdutos:\n  - nome: Velas\ncategoriasProdutos:\n  - descricao: Unhas\n`);
    emulator.setFaults({
      schedule: [
        // The run's one PUT (its path holds the id).
        { method: 'PUT', nth: 1, fault: 'http500' },
        { method: 'POST', path: '/grupos-produtos', nth: 1, fault: 'reset-before' },
        { method: 'POST', path: '/grupos-produtos', nth: 2, fault: 'reset-before' },
      ],
    });
    const applied = await runCli(['apply', 'm.yaml', '--auto-approve', '--outcome-wait', '0'], { cwd: dir, env });
    expect(applied.code).not.toBe(0);
    const run = lastRun();

    const list = await runCli(['history'], { cwd: dir, env });
    const line = list.stdout.trim().split('\n').at(-1) ?? '';
    expect(line).toContain(`${run}  `);
    expect(line).toContain('  failed  1 applied, 2 failed  ');
    expect(line).toMatch(/[0-9a-f]{12} \(dirty\) {2}by maria@/);

    const shown = await runCli(['history', run], { cwd: dir, env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`Run ${run} — failed`);
    expect(shown.stdout).toMatch(/^failed {3}update formasPagamentos "Boleto da loja" \(id \d+\) — .+$/m);
    expect(shown.stdout).toContain('    juros: 1 → 2');
    expect(shown.stdout).toMatch(/^failed {3}create gruposProdutos "Velas" — its answer was lost; the account does not hold it: it never landed \(read at [^)]+\) \[settled by reading the account\]$/m);
    expect(shown.stdout).toMatch(/^applied {2}create categoriasProdutos "Unhas" \(id \d+\)$/m);

    const json = JSON.parse((await runCli(['history', run, '--json'], { cwd: dir, env })).stdout) as ShownRun;
    expect(json).toMatchObject({ status: 'failed', applied: 1, failed: 2, unknown: 0, git: { dirty: true } });
    expect(json.changes.map((c) => [c.outcome, c.action, c.key]).sort()).toEqual([
      ['applied', 'create', 'Unhas'],
      ['failed', 'create', 'Velas'],
      ['failed', 'update', 'Boleto da loja'],
    ]);
    expect(json.changes.find((c) => c.key === 'Boleto da loja')?.detail).toMatch(/500/);
    expect(json.changes.find((c) => c.key === 'Velas')).toMatchObject({ resolvedAt: expect.any(String) });
  });
});

describe('drift attribution', () => {
  it('names the run that wrote the value when the manifests changed since, and no run for a record never applied', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), `version: 1\n${boleto(1)}`);
    expect((await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env })).code).toBe(0);
    const run = lastRun();
    writeFileSync(path.join(dir, 'm.yaml'), `version: 1\n${boleto(3)}gruposProdutos:\n  - nome: Velas\n`);

    const drift = await runCli(['drift', 'm.yaml'], { cwd: dir, env });
    expect(drift.code).toBe(2);
    expect(drift.stdout).toMatch(new RegExp(`origin: as erpsync run ${run} \\([^)]+\\) left it: the manifests changed since`));
    expect(drift.stdout).toContain('origin: no erpsync run in the journal touched this record');
    const json = JSON.parse((await runCli(['drift', 'm.yaml', '--json'], { cwd: dir, env })).stdout) as { findings: { key: string; attribution?: { by: string; run?: string } }[] };
    expect(json.findings.find((f) => f.key === 'Boleto da loja')?.attribution).toMatchObject({ by: 'erpsync', run });
    expect(json.findings.find((f) => f.key === 'Velas')?.attribution).toEqual({ by: 'never-applied' });
  });
});

const treeBefore = `version: 1
categoriasProdutos:
  - descricao: Maquiagem
  - descricao: Olhos
    categoriaPai: Maquiagem
  - descricao: Boca
    categoriaPai: Maquiagem
  - descricao: Batom
    categoriaPai: Maquiagem > Boca
categoriasLojas:
  - loja: Loja Virtual
    categoriaProduto: Olhos
    descricao: Olhos
    codigo: "1203"
  - loja: Loja Virtual
    categoriaProduto: Batom
    descricao: Batom
    codigo: "1204"
`;

// Deletes Boca, its child Batom and Batom's store link (children first); creates Unhas, its child
// Esmaltes and a link naming Esmaltes (parents first); changes the Olhos link.
const treeRun = `version: 1
categoriasProdutos:
  - descricao: Maquiagem
  - descricao: Olhos
    categoriaPai: Maquiagem
  - descricao: Batom
    categoriaPai: Maquiagem > Boca
    ensure: absent
  - descricao: Boca
    categoriaPai: Maquiagem
    ensure: absent
  - descricao: Unhas
    categoriaPai: Maquiagem
  - descricao: Esmaltes
    categoriaPai: Maquiagem > Unhas
categoriasLojas:
  - loja: Loja Virtual
    categoriaProduto: Olhos
    descricao: Maquiagem para os olhos
    codigo: "1203"
  - loja: Loja Virtual
    categoriaProduto: Batom
    ensure: absent
  - loja: Loja Virtual
    categoriaProduto: Esmaltes
    descricao: Esmaltes
    codigo: "1205"
`;

/** Categories by path and store links by the category's path, without ids. */
function treeState() {
  const snapshot = emulator.snapshot();
  const byId = new Map(snapshot.categoriasProdutos.map((c) => [c.id, c]));
  const pathOf = (id: number): string => {
    const category = byId.get(id);
    return category ? (category.idCategoriaPai ? `${pathOf(category.idCategoriaPai)} > ${category.descricao}` : category.descricao) : `#${id}`;
  };
  return {
    categories: snapshot.categoriasProdutos.map((c) => pathOf(c.id)).sort(),
    links: snapshot.categoriasLojas.map(({ id: _id, idCategoriaProduto, ...rest }) => ({ ...rest, categoria: pathOf(idCategoriaProduto) })).sort((a, b) => a.codigo.localeCompare(b.codigo)),
  };
}

/** The wave each change of a text plan is in, by its line's `kind "key"`. */
function wavesOf(text: string): Map<string, number> {
  return new Map([...text.matchAll(/^[-+~] (\S+(?: › \S+)?) "([^"]+)" — \w+: [^\n]*\(.*wave (\d+)\)$/gm)].map((m) => [`${m[1]} ${m[2]}`, Number(m[3])]));
}

describe('plan --revert across kinds that name each other', () => {
  it('restores the account exactly, in dependency order', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), treeBefore);
    expect((await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env })).code).toBe(0);
    const expected = treeState();
    writeFileSync(path.join(dir, 'm.yaml'), treeRun);
    const ran = await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env });
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    const run = lastRun();
    expect(treeState().categories).toEqual(['Maquiagem', 'Maquiagem > Olhos', 'Maquiagem > Unhas', 'Maquiagem > Unhas > Esmaltes']);

    const planned = await runCli(['plan', '--revert', run, '--out', 'revert.json'], { cwd: dir, env });
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).not.toContain('conflict');
    const waves = wavesOf(planned.stdout);
    const wave = (key: string) => waves.get(key) ?? Number.NaN;
    // Re-created parents before their children, and before the link that names the child.
    expect(wave('categoriasProdutos Maquiagem > Boca')).toBeLessThan(wave('categoriasProdutos Maquiagem > Boca > Batom'));
    expect(wave('categoriasProdutos Maquiagem > Boca > Batom')).toBeLessThan(wave('categoriasLojas Loja Virtual > Maquiagem > Boca > Batom'));
    // Created children deleted before their parents, the link before the category it names.
    expect(wave('categoriasLojas Loja Virtual > Maquiagem > Unhas > Esmaltes')).toBeLessThan(wave('categoriasProdutos Maquiagem > Unhas > Esmaltes'));
    expect(wave('categoriasProdutos Maquiagem > Unhas > Esmaltes')).toBeLessThan(wave('categoriasProdutos Maquiagem > Unhas'));

    const applied = await runCli(['apply', 'revert.json', '--auto-approve'], { cwd: dir, env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(treeState()).toEqual(expected);
  });
});
