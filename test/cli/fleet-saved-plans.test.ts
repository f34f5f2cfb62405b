// A fleet reviewed before it runs, with no Bling account at all: 20 sandbox accounts (each target
// `sandbox: true`, its own company and state file) planned into a folder of saved plans (every store's
// removals shown under its account line), then exactly those plans applied. A store changed by
// hand in between is refused (exit 3) while the other 19 apply; a plan edited after it was saved
// is refused for its store alone; the delete budget refuses in a fleet as it does for one store;
// a fleet apply from manifests shows every store's removals before it writes anything.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import type { FleetReport } from '../../src/model/fleet.js';
import { runCli } from '../support/run-cli.js';
import type { SandboxStore } from '../support/fleet.js';
import { writeSandboxFleet } from '../support/fleet.js';

const size = 20;
let dir = '';
let env: NodeJS.ProcessEnv = {};
let stores: SandboxStore[] = [];

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}
const run = (args: string[], extra: NodeJS.ProcessEnv = {}) => runCli(args, { cwd: dir, env: { ...env, ...extra } });
const groupsOf = (store: SandboxStore | undefined) => (store as SandboxStore).open((emulator: Emulator) => emulator.snapshot().gruposProdutos.map((g) => g.nome).sort());
const rowsOf = (stdout: string) => new Map((JSON.parse(stdout) as FleetReport).rows.map((r) => [r.target, r]));

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-fleet-plans-'));
  env = { ERPSYNC_LOCK_DIR: path.join(dir, '.locks'), CI: 'true' };
  stores = writeSandboxFleet(dir, size, (i) => ({ manifests: ['base'], variables: { LOJA: String(i) } }));
  write('base/grupos.yaml', 'version: 1\ngruposProdutos:\n  - nome: Maquiagem\n  - nome: Perfumaria\n  - nome: Loja ${LOJA}\n');
  const applied = await run(['apply', '--all-targets', '--auto-approve']);
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  // The change to review: perfume goes, hair care comes.
  write('base/grupos.yaml', 'version: 1\ngruposProdutos:\n  - nome: Maquiagem\n  - nome: Perfumaria\n    ensure: absent\n  - nome: Cabelos\n  - nome: Loja ${LOJA}\n');
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
});

describe('a fleet of 20 stores reviewed through saved plans', () => {
  it('plan --out DIR shows every store\'s removals and saves one checked plan per store with an index', async () => {
    const planned = await run(['plan', '--all-targets', '--out', 'plans']);
    expect(planned.code, planned.stderr).toBe(0);
    for (const { name } of stores) {
      const section = planned.stdout.split(`== ${name} ==\n`)[1]?.split('\n== ')[0] ?? '';
      expect(section.split('\n')[0], name).toMatch(new RegExp(`^Account: Loja Sandbox Ltda .*local sandbox.* · target ${name}$`));
      expect(section, name).toContain('WARNING: 1 record(s) will be deleted or retired:\n  - gruposProdutos "Perfumaria" — delete: ensure: absent');
      expect(section, name).toContain('+ gruposProdutos "Cabelos" — create');
    }
    expect(planned.stdout).toContain(`Saved ${size} store plan(s) to plans`);
    const index = JSON.parse(readFileSync(path.join(dir, 'plans/index.json'), 'utf8')) as { stores: { target: string; file: string; changes: number; removals: number; account: { id: string } }[] };
    expect(index.stores.map((s) => [s.target, s.file, s.changes, s.removals])).toEqual(stores.map((s) => [s.name, `${s.name}.json`, 2, 1]));
    // Twenty sandbox accounts, each its own company.
    expect(new Set(index.stores.map((s) => s.account.id)).size).toBe(size);
  });

  it('apply DIR refuses flags the plans already decided', async () => {
    const refused = await run(['apply', 'plans', '--auto-approve', '--max-deletes', '5']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('a saved plan carries its own delete budget');
  });

  it('apply DIR without --auto-approve under CI refuses before anything is written', async () => {
    const refused = await run(['apply', 'plans']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('pass --auto-approve');
    for (const store of stores) expect(await groupsOf(store)).toContain('Perfumaria');
  });

  it('refuses an index that names a store twice, before anything is read or written', async () => {
    cpSync(path.join(dir, 'plans'), path.join(dir, 'twice'), { recursive: true });
    const index = JSON.parse(readFileSync(path.join(dir, 'twice/index.json'), 'utf8')) as { stores: unknown[] };
    index.stores.push(index.stores[0]);
    writeFileSync(path.join(dir, 'twice/index.json'), JSON.stringify(index));
    const refused = await run(['apply', 'twice', '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('names lojas/loja-01 twice');
    for (const store of stores) expect(await groupsOf(store)).toContain('Perfumaria');
  });

  it('applies exactly the saved plans; a store changed in between, or a plan edited since, is refused while the others apply', async () => {
    // By hand in store 07: the group the plan creates now exists.
    const created = await stores[6]?.open((seven) =>
      fetch(`${seven.baseUrl}/grupos-produtos`, { method: 'POST', headers: { authorization: `Bearer ${seven.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ nome: 'Cabelos' }) }),
    );
    expect(created?.status).toBe(201);
    // And store 03's saved plan is edited after it was written.
    const file = path.join(dir, 'plans/lojas/loja-03.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"Cabelos"', '"Cabelos e barba"'));

    const applied = await run(['apply', 'plans', '--auto-approve', '--json']);
    expect(applied.code).toBe(3);
    const rows = rowsOf(applied.stdout);
    expect(rows.get('lojas/loja-07')?.exitCode).toBe(3);
    expect(rows.get('lojas/loja-07')?.error).toContain('the account changed since the plan was made');
    expect(rows.get('lojas/loja-03')?.exitCode).toBe(3);
    expect(rows.get('lojas/loja-03')?.error).toContain('is not the plan the index recorded');
    for (const [index, store] of stores.entries()) {
      const i = index + 1;
      if (store.name === 'lojas/loja-07') expect(await groupsOf(store)).toEqual(['Cabelos', 'Loja 7', 'Maquiagem', 'Perfumaria']);
      else if (store.name === 'lojas/loja-03') expect(await groupsOf(store)).toEqual(['Loja 3', 'Maquiagem', 'Perfumaria']);
      else {
        expect(rows.get(store.name)?.exitCode, store.name).toBe(0);
        expect(await groupsOf(store), store.name).toEqual(['Cabelos', `Loja ${i}`, 'Maquiagem']);
      }
    }
  });

  it('--max-deletes 0 refuses in a fleet exactly as for one store', async () => {
    const alone = await run(['apply', '--target', 'lojas/loja-07', '--auto-approve', '--max-deletes', '0']);
    expect(alone.code).toBe(3);
    expect(alone.stderr).toContain('more than the budget of 0');
    const fleet = await run(['apply', '--all-targets', '--auto-approve', '--max-deletes', '0', '--json']);
    expect(fleet.code).toBe(3);
    const rows = rowsOf(fleet.stdout);
    expect(rows.get('lojas/loja-07')?.exitCode).toBe(3);
    expect(rows.get('lojas/loja-07')?.error).toContain('more than the budget of 0');
    expect(rows.get('lojas/loja-03')?.exitCode).toBe(3);
    expect(await groupsOf(stores[6])).toContain('Perfumaria');
    expect(await groupsOf(stores[2])).toContain('Perfumaria');
  });

  it('a fleet apply from manifests shows every store\'s removals before it writes anything', async () => {
    const applied = await run(['apply', '--target', 'lojas/loja-0*', '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const firstProgress = applied.stdout.search(/^\[\s*\d+\/\d+\]/m);
    for (const name of ['lojas/loja-03', 'lojas/loja-07']) {
      const at = applied.stdout.indexOf(`== ${name} ==`);
      expect(at, name).toBeGreaterThanOrEqual(0);
      expect(at, name).toBeLessThan(firstProgress);
      expect(applied.stdout.slice(at, firstProgress)).toContain('- gruposProdutos "Perfumaria" — delete: ensure: absent');
    }
    expect(applied.stdout).toContain('Fleet apply: 9 store(s), 2 changed, 0 failed');
    for (const store of stores) expect(await groupsOf(store)).not.toContain('Perfumaria');
  });
});
