// `plan --from-target modelo --target X`: a template store copied to others through the one
// per-store workflow — reviewed as a plan, saved, applied — after which `compare` finds no
// difference. The template's own variables become the destination's: a warehouse named after
// modelo's ${VITRINE} is made under each store's own value.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompareReport } from '../../src/model/compare.js';
import type { FleetReport } from '../../src/model/fleet.js';
import { runCli } from '../support/run-cli.js';

const example = path.resolve(import.meta.dirname, '../../examples/loja-nova');
let dir = '';
const secret = 'S3nh4-do-Modelo';
const env: NodeJS.ProcessEnv = { CI: 'true', NFSE_SENHA_PREFEITURA: secret };
const run = (args: string[]) => runCli(args, { cwd: dir, env });

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-from-target-'));
  env.ERPSYNC_LOCK_DIR = path.join(dir, '.locks');
  cpSync(example, path.join(dir, 'modelo'), { recursive: true });
  const estoque = path.join(dir, 'modelo/estoque.yaml');
  writeFileSync(estoque, `${readFileSync(estoque, 'utf8')}  - descricao: \${VITRINE}\n`);
  writeFileSync(
    path.join(dir, 'erpsync.config.yaml'),
    [
      'version: 1',
      'targets:',
      '  modelo:',
      '    sandbox: true',
      '    manifests: [modelo]',
      '    variables: { VITRINE: "Vitrine do modelo" }',
      '  copia:',
      '    sandbox: true',
      '    variables: { VITRINE: "Vitrine do modelo" }',
      '  filial:',
      '    sandbox: true',
      '    variables: { VITRINE: "Vitrine da filial" }',
      ...[1, 2, 3, 4].flatMap((i) => [`  frota-${i}:`, '    sandbox: true', `    variables: { VITRINE: "Vitrine ${i}" }`]),
      '',
    ].join('\n'),
  );
  const applied = await run(['apply', '--target', 'modelo', '--auto-approve']);
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Each store now holds what modelo holds, but for the warehouse named after its own ${VITRINE}. */
async function expectCopiedWithOwnVitrine(stores: readonly string[]): Promise<void> {
  for (const store of stores) {
    const compared = await run(['compare', '--target', 'modelo', '--target', store, '--json']);
    expect(compared.code, compared.stderr).toBe(2);
    const report = JSON.parse(compared.stdout) as CompareReport;
    expect(report.records.map((r) => `${r.status} ${r.key}`).sort()).toEqual(['only-left Vitrine do modelo', `only-right Vitrine ${store.slice(-1)}`]);
  }
}

describe('plan --from-target', () => {
  it('plans making a store match the template, saved and applied like any plan; then compare finds no difference', async () => {
    const planned = await run(['plan', '--from-target', 'modelo', '--target', 'copia', '--out', 'copia.json', '--detailed-exitcode']);
    expect(planned.code, planned.stderr).toBe(2);
    expect(planned.stdout).toMatch(/^Account: .* target copia$/m);
    expect(planned.stdout).toMatch(/Plan: \d+ to create/);
    const applied = await run(['apply', 'copia.json', '--target', 'copia', '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const again = await run(['plan', '--from-target', 'modelo', '--target', 'copia', '--detailed-exitcode']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('No changes.');
    const compared = await run(['compare', '--target', 'modelo', '--target', 'copia']);
    expect(compared.code, compared.stdout + compared.stderr).toBe(0);
    expect(compared.stdout).toContain('No differences');
  });

  it("applies with the destination's own variables: the template's value of ${VITRINE} becomes the store's", async () => {
    const planned = await run(['plan', '--from-target', 'modelo', '--target', 'filial', '--json']);
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as { changes: { action: string; kind: string; key: string }[] };
    expect(plan.changes).toContainEqual(expect.objectContaining({ action: 'create', kind: 'depositos', key: 'Vitrine da filial' }));
    expect(plan.changes.some((c) => c.key === 'Vitrine do modelo')).toBe(false);
    const applied = await run(['apply', '--from-target', 'modelo', '--target', 'filial', '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const compared = await run(['compare', '--target', 'modelo', '--target', 'filial', '--json']);
    expect(compared.code).toBe(2);
    const report = JSON.parse(compared.stdout) as CompareReport;
    expect(report.records.map((r) => `${r.status} ${r.key}`).sort()).toEqual(['only-left Vitrine do modelo', 'only-right Vitrine da filial']);
  });

  it('applies across a fleet: every store gets the template with its own variables; the template itself is left out', async () => {
    const applied = await run(['apply', '--from-target', 'modelo', '--target', 'modelo,frota-1,frota-2', '--auto-approve', '--json']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const report = JSON.parse(applied.stdout) as FleetReport;
    expect(report.rows.map((r) => [r.target, r.error ?? ''])).toEqual([['frota-1', ''], ['frota-2', '']]);
    expect(report.rows.every((r) => (r.applied ?? 0) > 0)).toBe(true);
    await expectCopiedWithOwnVitrine(['frota-1', 'frota-2']);
    const again = await run(['plan', '--from-target', 'modelo', '--target', 'frota-*', '--detailed-exitcode', '--json']);
    const rows = (JSON.parse(again.stdout) as FleetReport).rows;
    expect(rows.filter((r) => r.target === 'frota-1' || r.target === 'frota-2').map((r) => r.changes)).toEqual([0, 0]);
  });

  it('saves a fleet\'s plans from the template (plan --out DIR) and applies exactly those', async () => {
    const planned = await run(['plan', '--from-target', 'modelo', '--target', 'frota-3,frota-4', '--out', 'frota-plans']);
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    expect(planned.stdout).toContain('Saved 2 store plan(s) to frota-plans');
    const index = JSON.parse(readFileSync(path.join(dir, 'frota-plans/index.json'), 'utf8')) as { stores: { target: string; changes: number }[] };
    expect(index.stores.map((s) => s.target)).toEqual(['frota-3', 'frota-4']);
    expect(index.stores.every((s) => s.changes > 0)).toBe(true);
    // The saved plans name the secret's variable, never its value.
    for (const file of readdirSync(path.join(dir, 'frota-plans'))) expect(readFileSync(path.join(dir, 'frota-plans', file), 'utf8')).not.toContain(secret);
    expect(readFileSync(path.join(dir, 'copia.json'), 'utf8')).not.toContain(secret);
    const applied = await run(['apply', 'frota-plans', '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(planned.stdout + applied.stdout).not.toContain(secret);
    await expectCopiedWithOwnVitrine(['frota-3', 'frota-4']);
  });

  it('refuses manifest paths beside it, and the store itself as its template', async () => {
    expect((await run(['plan', '--from-target', 'modelo', '--target', 'copia', 'modelo'])).stderr).toContain('pass no manifest paths');
    expect((await run(['plan', '--from-target', 'copia', '--target', 'copia'])).stderr).toContain('is the store itself');
  });
});
