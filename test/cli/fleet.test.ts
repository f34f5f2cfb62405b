// A fleet of 20 emulated stores (unpaced emulators, one account each) from one repository: a shared
// base with per-store overlays. plan and apply run across all of them, one progress line per store
// and one table; the exit code is the worst store's, and a failing store leaves the others applied.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import type { FleetReport } from '../../src/model/fleet.js';
import { runCli } from '../support/run-cli.js';
import { openFleetAccounts } from '../support/fleet.js';

const size = 20;
let stores: { name: string; emulator: Emulator }[] = [];
let dir: string;
let env: NodeJS.ProcessEnv = {};
let close: () => Promise<void> = async () => undefined;
const tokenVar = (i: number) => `LOJA_${String(i).padStart(2, '0')}_TOKEN`;

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-fleet-'));
  ({ env, stores, close } = await openFleetAccounts(dir, size, (i) => ({ manifests: i % 2 === 0 ? ['base', 'overlays/pares'] : ['base'], variables: { LOJA: String(i) } })));
  write('base/grupos.yaml', 'version: 1\ngruposProdutos:\n  - nome: Maquiagem\n  - nome: Perfumaria\n  - nome: Loja ${LOJA}\n');
  // Even stores sell no perfume: the overlay's tombstone replaces the base's record.
  write('overlays/pares/grupos.yaml', 'version: 1\ngruposProdutos:\n  - nome: Perfumaria\n    ensure: absent\n  - nome: Cabelos\n');
});
afterAll(async () => {
  await close();
  rmSync(dir, { recursive: true, force: true });
});

const groupsOf = (emulator: Emulator) => emulator.snapshot().gruposProdutos.map((g) => g.nome).sort();

describe('a fleet of 20 stores', () => {
  it('plans all of them, applies all of them, and converges', async () => {
    const t0 = performance.now();
    const planned = await runCli(['plan', '--all-targets', '--json', '--detailed-exitcode'], { cwd: dir, env });
    const planSeconds = (performance.now() - t0) / 1000;
    expect(planned.code, planned.stderr + planned.stdout.slice(0, 3000)).toBe(2);
    const report = JSON.parse(planned.stdout) as FleetReport;
    expect(report.rows.map((r) => r.target)).toEqual(stores.map((s) => s.name));
    expect(report.rows.map((r) => `${r.account?.nome}: ${r.changes}`)).toEqual(stores.map((_, i) => `Loja ${i + 1} Ltda: 3`));
    // One progress line per store on stderr (stdout is the JSON).
    expect(planned.stderr.split('\n').filter((l) => /^\[\s*\d+\/20\] lojas\/loja-\d\d · Loja \d+ Ltda/.test(l))).toHaveLength(size);

    const t1 = performance.now();
    const applied = await runCli(['apply', '--target', 'lojas/*', '--auto-approve'], { cwd: dir, env });
    const applySeconds = (performance.now() - t1) / 1000;
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/^store\s+account\s+changes\s+blocked\s+result$/m);
    expect(applied.stdout).toMatch(/^lojas\/loja-07\s+Loja 7 Ltda \(CNPJ 11\.111\.111\/0001-07\)\s+3\s+0\s+3 applied$/m);
    expect(applied.stdout).toContain('Fleet apply: 20 store(s), 20 changed, 0 failed');
    stores.forEach(({ emulator }, index) => {
      const i = index + 1;
      expect(groupsOf(emulator)).toEqual(i % 2 === 0 ? ['Cabelos', `Loja ${i}`, 'Maquiagem'] : [`Loja ${i}`, 'Maquiagem', 'Perfumaria']);
    });
    const again = await runCli(['plan', '--all-targets', '--format', 'markdown', '--detailed-exitcode'], { cwd: dir, env });
    expect(again.code).toBe(0);
    // The unchanged stores are counted, not listed.
    expect(again.stdout.split('\n').slice(0, 3)).toEqual(['### erpsync plan: 20 store(s), 0 with changes, 0 failed', '', 'No store has changes.']);
    expect(again.stdout).toContain('#### Removals: none');
    // Unpaced emulators: the whole fleet takes seconds.
    console.info(`fleet of ${size}: plan ${planSeconds.toFixed(2)} s, apply ${applySeconds.toFixed(2)} s`);
  });

  it('drifts across the fleet: clean stores exit 0, a store changed by hand shows in the table and exits 2', async () => {
    const clean = await runCli(['drift', '--target', 'lojas/loja-0*', '--json'], { cwd: dir, env });
    expect(clean.code, clean.stderr).toBe(0);
    expect((JSON.parse(clean.stdout) as FleetReport).rows.map((r) => r.changes)).toEqual(Array.from({ length: 9 }, () => 0));
    const store = stores[2]?.emulator as Emulator;
    await fetch(`${store.baseUrl}/grupos-produtos`, { method: 'POST', headers: { authorization: `Bearer ${store.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ nome: 'Criado à mão' }) });
    const drifted = await runCli(['drift', '--target', 'lojas/loja-0*'], { cwd: dir, env });
    expect(drifted.code).toBe(2);
    expect(drifted.stdout).toMatch(/^lojas\/loja-03\s+Loja 3 Ltda \(CNPJ 11\.111\.111\/0001-03\)\s+1\s+/m);
    expect(drifted.stdout).toMatch(/^lojas\/loja-04\s+Loja 4 Ltda \(CNPJ 11\.111\.111\/0001-04\)\s+0\s+/m);
  });

  it('one failing store leaves the others applied, and the fleet exits with the worst code', async () => {
    write('base/grupos.yaml', 'version: 1\ngruposProdutos:\n  - nome: Maquiagem\n  - nome: Perfumaria\n  - nome: Loja ${LOJA}\n  - nome: Acessórios\n');
    const missing = { ...env, [tokenVar(13)]: '' };
    const applied = await runCli(['apply', '--target', 'lojas/loja-1*,lojas/loja-2*', '--auto-approve', '--json'], { cwd: dir, env: missing });
    expect(applied.code).toBe(1);
    const report = JSON.parse(applied.stdout) as FleetReport;
    expect(report.rows).toHaveLength(11);
    const failed = report.rows.filter((r) => r.error !== undefined);
    expect(failed.map((r) => [r.target, r.exitCode])).toEqual([['lojas/loja-13', 1]]);
    expect(failed[0]?.error).toContain("target 'lojas/loja-13' has no credentials available");
    for (const { name, emulator } of stores) {
      const selected = /loja-(1\d|20)$/.test(name);
      expect(groupsOf(emulator).includes('Acessórios'), name).toBe(selected && name !== 'lojas/loja-13');
    }
  });

  it('prints the CI matrix: one job per target, one concurrency group per account', async () => {
    const listed = await runCli(['targets', '--target', 'lojas/loja-0*'], { cwd: dir, env });
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim().split('\n')).toHaveLength(9);
    const matrix = await runCli(['targets', '--json', '--check'], { cwd: dir, env });
    expect(matrix.code, matrix.stderr).toBe(0);
    const { include } = JSON.parse(matrix.stdout) as { include: { target: string; group: string; account: string }[] };
    expect(include).toHaveLength(size);
    expect(include[0]).toEqual({
      target: 'lojas/loja-01',
      baseUrl: stores[0]?.emulator.baseUrl,
      group: `erpsync-account-loja${'1'.padStart(28, '0')}`,
      secret: 'BLING_CREDENTIALS_LOJAS_LOJA_01',
      credentialsFile: '.erpsync/credentials-lojas/loja-01.json',
      account: 'Loja 1 Ltda',
      cnpj: '11.111.111/0001-01',
      shard: `1/${size}`,
      targets: ['lojas/loja-01'],
      secrets: ['BLING_CREDENTIALS_LOJAS_LOJA_01'],
      credentialsFiles: ['.erpsync/credentials-lojas/loja-01.json'],
    });
    expect(new Set(include.map((e) => e.group)).size).toBe(size);
  });
});
