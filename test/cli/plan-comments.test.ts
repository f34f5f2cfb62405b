// A pull request on a 300-store sandbox fleet that changes 20 stores (15 through their overlays, one
// through its config entry, 3 with a delete, 1 whose only change is blocked), in a git repository of
// its own: `--changed-since HEAD` selects exactly those 20 (a shared base would select every
// store), and `plan --comment-dir` writes the comments a pipeline posts: each under GitHub's
// 65,536, the first starting with one table of the 20 stores (the blocked one too), every removal
// before any update, each store's plan folded. Only the 20 changed stores are ever planned.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetReport } from '../../src/model/fleet.js';
import { runCli } from '../support/run-cli.js';

const size = 300;
const name = (i: number) => `lojas/loja-${String(i).padStart(3, '0')}`;
/** Every 15th store: 015, 030 … 300. */
const changed = Array.from({ length: 20 }, (_, k) => (k + 1) * 15);
const viaOverlay = changed.slice(0, 15);
const viaConfig = changed[15] as number;
const withDelete = changed.slice(16, 19);
const blocked = changed[19] as number;
let dir = '';
let env: NodeJS.ProcessEnv = {};
let smallParts = 0;

const run = (args: string[]) => runCli(args, { cwd: dir, env });
const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}
const overlayFile = (i: number) => `overlays/loja-${String(i).padStart(3, '0')}.yaml`;
const boleto = (juros: number) => ['formasPagamentos:', '  - descricao: Boleto da loja', '    tipoPagamento: boleto', '    finalidade: recebimentos', '    destino: contas', '    condicao: "28"', `    juros: ${juros}`];
const overlay = (...lines: string[]) => `${['version: 1', 'gruposProdutos:', '  - nome: Loja ${LOJA}', ...lines].join('\n')}\n`;
function writeConfig(loja16: string): void {
  const lines = ['version: 1', 'targets:'];
  for (let i = 1; i <= size; i += 1) lines.push(`  ${name(i)}: { sandbox: true, manifests: [base, ${overlayFile(i)}], variables: { LOJA: "${i === viaConfig ? loja16 : i}" } }`);
  write('erpsync.config.yaml', `${lines.join('\n')}\n`);
}
const comment = (folder: string, part: number) => readFileSync(path.join(dir, folder, `comment-${part}.md`), 'utf8');

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-plan-comments-'));
  env = { ERPSYNC_LOCK_DIR: path.join(dir, '.locks'), CI: 'true' };
  git('init', '-q');
  git('config', 'user.email', 'ci@example.com');
  git('config', 'user.name', 'CI');
  write('.gitignore', '.erpsync/\n.locks/\nplans/\ncomments/\n');
  writeConfig(String(viaConfig));
  write('base/grupos.yaml', 'version: 1\ngruposProdutos:\n  - nome: Maquiagem\n  - nome: Perfumaria\n');
  for (let i = 1; i <= size; i += 1) write(overlayFile(i), overlay(...boleto(1)));
  // The 20 stores this pull request changes are live; the other 280 are never read.
  const applied = await run(['apply', '--target', changed.map(name).join(','), '--auto-approve']);
  expect(applied.code, applied.stderr).toBe(0);
  git('add', '-A');
  git('commit', '-qm', 'the fleet as it is');

  for (const i of viaOverlay) write(overlayFile(i), overlay('  - nome: Cabelos', ...boleto(2)));
  writeConfig(`${viaConfig}b`);
  for (const i of withDelete) write(overlayFile(i), overlay('  - nome: Perfumaria', '    ensure: absent', ...boleto(2)));
  // A tombstone on a protected record: the planner blocks it, and it is the store's only change.
  write(overlayFile(blocked), overlay('  - nome: Maquiagem', '    protect: true', '    ensure: absent', ...boleto(1)));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('a pull request on a 300-store fleet', () => {
  it('targets --changed-since names the 20 stores the change touches, and why', async () => {
    const listed = await run(['targets', '--changed-since', 'HEAD', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const { include } = JSON.parse(listed.stdout) as { include: { target: string }[] };
    expect(include.map((job) => job.target)).toEqual(changed.map(name));
    const text = await run(['targets', '--changed-since', 'HEAD']);
    expect(text.stdout.trim().split('\n')).toHaveLength(20);
    expect(text.stdout).toContain(`${name(viaConfig)}  sandbox`);
    expect(text.stdout).toMatch(new RegExp(`^${name(viaConfig)} .* · changed: its entry in erpsync.config.yaml$`, 'm'));
    expect(text.stdout).toMatch(new RegExp(`^${name(blocked)} .* · changed: ${overlayFile(blocked)}$`, 'm'));
  });

  it('a shared base touches every store that reads it', async () => {
    write('base/grupos.yaml', 'version: 1\ngruposProdutos:\n  - nome: Maquiagem\n  - nome: Perfumaria\n  - nome: Novidades\n');
    const listed = await run(['targets', '--changed-since', 'HEAD']);
    git('checkout', '--', 'base/grupos.yaml');
    expect(listed.stdout.trim().split('\n')).toHaveLength(size);
  });

  it('a limit of 10,000 cuts the Markdown plan --format markdown prints into more comments', async () => {
    const small = await run(['plan', '--changed-since', 'HEAD', '--comment-dir', 'comments', '--comment-limit', '10000', '--format', 'markdown']);
    expect(small.code, small.stderr).toBe(0);
    // stdout is the Markdown, the table first; the comments are that text, cut.
    expect(small.stdout.startsWith('### erpsync plan: 20 store(s), 19 with changes, 1 with blocked changes')).toBe(true);
    const index = JSON.parse(readFileSync(path.join(dir, 'comments/index.json'), 'utf8')) as { parts: { part: number; chars: number }[] };
    smallParts = index.parts.length;
    expect(smallParts).toBeGreaterThan(2);
    for (const part of index.parts) expect(comment('comments', part.part).length).toBeLessThanOrEqual(10_000);
  });

  it('plan --changed-since --comment-dir writes comments under the limit: one table of the 20 first, removals before any update', async () => {
    const planned = await run(['plan', '--changed-since', 'HEAD', '--out', 'plans', '--comment-dir', 'comments', '--detailed-exitcode']);
    expect(planned.code, planned.stderr).toBe(2);
    expect(planned.stdout).toMatch(/^Wrote \d+ comment\(s\) to comments, the largest [\d,]+ characters \(limit 65,000\)\.$/m);
    const index = JSON.parse(readFileSync(path.join(dir, 'comments/index.json'), 'utf8')) as { limit: number; parts: { part: number; file: string; chars: number; stores: string[] }[] };
    expect(index.limit).toBe(65_000);
    const texts = index.parts.map((part) => comment('comments', part.part));
    texts.forEach((text, i) => {
      expect(text.length).toBeLessThan(65_536);
      expect(text.length).toBe(index.parts[i]?.chars);
      expect(text.startsWith(`<!-- erpsync-plan-comment part=${i + 1} of=${texts.length} -->\n`)).toBe(true);
    });
    expect(index.parts.flatMap((part) => part.stores)).toEqual(changed.map(name));
    console.info(`20 of 300 stores: ${texts.length} comment(s) of ${texts.map((t) => t.length).join(', ')} characters (limit 65,000); at 10,000: ${smallParts}`);

    // The first table of the first comment: the 20 stores, the blocked one counted as blocked.
    const lines = (texts[0] ?? '').split('\n');
    expect(lines[1]).toBe('### erpsync plan: 20 store(s), 19 with changes, 1 with blocked changes, 0 failed');
    const table = lines.slice(lines.findIndex((line) => line.startsWith('| store |')));
    const rows = table.slice(2, table.findIndex((line) => line === ''));
    expect(rows.map((row) => row.split(' | ')[0]?.slice(2))).toEqual(changed.map(name));
    expect(rows.find((row) => row.startsWith(`| ${name(blocked)} |`))).toMatch(/ \| – \| – \| – \| 1 \| – \|$/);
    for (const i of withDelete) expect(rows.find((row) => row.startsWith(`| ${name(i)} |`))).toMatch(/ \| 1 \| 1 \| – \| – \|$/);

    const all = texts.join('');
    const removals = withDelete.map((i) => all.indexOf(`- \`${name(i)}\` · \`gruposProdutos\` \`Perfumaria\`: delete`));
    for (const at of removals) expect(at).toBeGreaterThan(0);
    expect(Math.max(...removals)).toBeLessThan(all.indexOf('— update:'));
    expect(all).toContain(`- \`${name(blocked)}\` · \`gruposProdutos\` \`Maquiagem\`: blocked (protected): protect: true`);
    // Each store's details folded, with its saved plan beside it.
    for (const i of changed) expect(all).toContain(`<details><summary><code>${name(i)}</code>`);
    expect(readdirSync(path.join(dir, 'plans/lojas'))).toHaveLength(20);
    // The folder holds this run's comments only: none of the earlier, smaller ones is left.
    expect(texts.length).toBeLessThan(smallParts);
    expect(readdirSync(path.join(dir, 'comments')).sort()).toEqual([...texts.map((_, i) => `comment-${i + 1}.md`), 'index.json'].sort());
  });

  it('drift --changed-since keeps the changed stores of its --target selection', async () => {
    const drift = await run(['drift', '--changed-since', 'HEAD', '--target', 'lojas/loja-01*', '--json']);
    expect((JSON.parse(drift.stdout) as FleetReport).rows.map((row) => row.target)).toEqual([name(15)]);
  });

  it('refuses a limit below 10,000 and comments for one store', async () => {
    const low = await run(['plan', '--changed-since', 'HEAD', '--comment-dir', 'comments', '--comment-limit', '5000']);
    expect(low.code).toBe(1);
    expect(low.stderr).toContain('--comment-limit takes a whole number ≥ 10000, not `5000`');
    const one = await run(['plan', '--target', name(15), '--comment-dir', 'comments']);
    expect(one.code).toBe(1);
    expect(one.stderr).toContain("--comment-dir writes a fleet's plan as comments");
  });
});
