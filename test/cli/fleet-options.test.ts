// Every plan and apply option decides the same for a store however the store is reached: as a
// single target, as a fleet of one, in a fleet of three, through a saved plan, or through a fleet's
// folder of saved plans. Each case starts three fresh accounts from the same manifests, changes
// the manifests, runs the option in each way, and compares the exit code and the account after.
// A fleet that dropped an option (the bug this guards against) decides differently and fails here.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { localLeases } from '../../src/state/local/leases.js';
import { lockAccount } from '../../src/target/account-lock.js';
import { liveIO, runCli } from '../support/run-cli.js';

const names = ['loja-a', 'loja-b', 'loja-c'] as const;
type Way = 'single' | 'fleet-of-one' | 'fleet-of-three' | 'saved-plan' | 'saved-fleet-plans';
const ways: readonly Way[] = ['single', 'fleet-of-one', 'fleet-of-three', 'saved-plan', 'saved-fleet-plans'];

interface Fleet {
  dir: string;
  env: NodeJS.ProcessEnv;
  emulators: Emulator[];
}

const open: Fleet[] = [];
afterEach(async () => {
  for (const fleet of open.splice(0)) {
    await Promise.all(fleet.emulators.map((e) => e.close()));
    rmSync(fleet.dir, { recursive: true, force: true });
  }
});

/** The manifests: product groups as given, and a shampoo category under the parent given. */
function manifests(groups: readonly string[], shampoosUnder = 'Cabelos'): string {
  return ['version: 1', 'gruposProdutos:', ...groups.map((g) => `  - ${g}`), 'categoriasProdutos:', '  - descricao: Cabelos', '  - descricao: Corpo', '  - descricao: Shampoos', `    categoriaPai: ${shampoosUnder}`].join('\n');
}

const base = manifests(['nome: Revenda', 'nome: Brindes']);

function write(fleet: Fleet, file: string, text: string): void {
  mkdirSync(path.dirname(path.join(fleet.dir, file)), { recursive: true });
  writeFileSync(path.join(fleet.dir, file), `${text}\n`);
}

/** Three accounts applied from the same base manifests. */
async function bootstrap(): Promise<Fleet> {
  const fleet: Fleet = { dir: mkdtempSync(path.join(tmpdir(), 'erpsync-options-')), env: {}, emulators: [] };
  open.push(fleet);
  fleet.env.ERPSYNC_LOCK_DIR = path.join(fleet.dir, '.locks');
  const config = ['version: 1', 'targets:'];
  for (const [i, name] of names.entries()) {
    const emulator = await createEmulator({ rateLimit: 0, company: { id: `${name}-account`, nome: `Loja ${i + 1} Ltda`, cnpj: `22.222.222/0001-0${i + 1}` } });
    fleet.emulators.push(emulator);
    const tokenVar = `TOKEN_${i}`;
    fleet.env[tokenVar] = emulator.token;
    config.push(`  ${name}:`, `    baseUrl: ${emulator.baseUrl}`, `    credentials: { tokenEnv: ${tokenVar} }`, '    manifests: [manifests]', '    rate: 1000');
  }
  write(fleet, 'erpsync.config.yaml', config.join('\n'));
  write(fleet, 'manifests/config.yaml', base);
  const applied = await runCli(['apply', '--all-targets', '--auto-approve'], { cwd: fleet.dir, env: fleet.env });
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  return fleet;
}

/** What a store's account holds of the managed kinds, in words. */
function stateOf(emulator: Emulator): string[] {
  const snapshot = emulator.snapshot();
  const byId = new Map(snapshot.categoriasProdutos.map((c) => [c.id, c.descricao]));
  return [
    ...snapshot.gruposProdutos.map((g) => `grupo ${g.nome}`),
    ...snapshot.categoriasProdutos.map((c) => `categoria ${c.idCategoriaPai ? `${byId.get(c.idCategoriaPai)} > ` : ''}${c.descricao}`),
  ].sort();
}

interface Decision {
  /** The exit code of each store the way reached (the fleet's code is the worst of them). */
  codes: Record<string, number>;
  code: number;
  state: string[][];
}

async function run(fleet: Fleet, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCli(args, { cwd: fleet.dir, env: fleet.env });
}

/** Runs apply the given way with plan options (decided when planning) and apply options (when applying). */
async function applyWay(fleet: Fleet, way: Way, planOptions: string[], applyOptions: string[]): Promise<Decision> {
  const selector = way === 'single' || way === 'saved-plan' ? 'loja-a' : way === 'fleet-of-one' ? 'loja-a*' : 'loja-*';
  let result;
  if (way === 'saved-plan' || way === 'saved-fleet-plans') {
    const out = way === 'saved-plan' ? 'plan.json' : 'plans';
    const planned = await run(fleet, ['plan', '--target', selector, ...planOptions, '--out', out]);
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    result = await run(fleet, ['apply', out, '--auto-approve', ...applyOptions, ...(way === 'saved-plan' ? ['--target', 'loja-a'] : []), '--json']);
  } else {
    result = await run(fleet, ['apply', '--target', selector, '--auto-approve', ...planOptions, ...applyOptions, '--json']);
  }
  const fleetRun = way !== 'single' && way !== 'saved-plan';
  const codes = fleetRun ? Object.fromEntries((JSON.parse(result.stdout) as { rows: { target: string; exitCode: number }[] }).rows.map((r) => [r.target, r.exitCode])) : { 'loja-a': result.code };
  return { codes, code: result.code, state: fleet.emulators.map(stateOf) };
}

interface OptionCase {
  name: string;
  manifests: string;
  planOptions: string[];
  applyOptions: string[];
  /** Runs before the apply (e.g. another run holds an account). */
  arrange?: (fleet: Fleet) => Promise<() => Promise<void>>;
  /** The decision for store loja-a: its exit code, and what its account holds afterwards. */
  expected: { code: number; state: string[] };
}

const untouched = ['categoria Cabelos', 'categoria Cabelos > Shampoos', 'categoria Corpo', 'grupo Brindes', 'grupo Revenda'];

const cases: OptionCase[] = [
  {
    name: '--max-deletes 0 refuses a plan that deletes (exit 3, nothing deleted)',
    manifests: manifests(['nome: Revenda', '{ nome: Brindes, ensure: absent }']),
    planOptions: ['--max-deletes', '0'],
    applyOptions: [],
    expected: { code: 3, state: untouched },
  },
  {
    name: 'without --allow-replace a change the API cannot make in place is blocked (nothing changes, exit 1)',
    manifests: manifests(['nome: Revenda', 'nome: Brindes'], 'Corpo'),
    planOptions: [],
    applyOptions: [],
    expected: { code: 1, state: untouched },
  },
  {
    name: '--allow-replace deletes and re-creates it',
    manifests: manifests(['nome: Revenda', 'nome: Brindes'], 'Corpo'),
    planOptions: ['--allow-replace'],
    applyOptions: [],
    expected: { code: 0, state: ['categoria Cabelos', 'categoria Corpo', 'categoria Corpo > Shampoos', 'grupo Brindes', 'grupo Revenda'] },
  },
  {
    name: '--only applies the selected records alone',
    manifests: manifests(['nome: Revenda', 'nome: Brindes', 'nome: Novo', 'nome: Outro']),
    planOptions: ['--only', 'gruposProdutos/Novo'],
    applyOptions: [],
    expected: { code: 0, state: [...untouched, 'grupo Novo'].sort() },
  },
  {
    name: '--exclude leaves records out',
    manifests: manifests(['nome: Revenda', 'nome: Brindes', 'nome: Novo', 'nome: Outro']),
    planOptions: ['--exclude', 'gruposProdutos/Outro'],
    applyOptions: [],
    expected: { code: 0, state: [...untouched, 'grupo Novo'].sort() },
  },
  {
    name: '--lock-timeout 0 refuses while another apply holds the account (exit 3)',
    manifests: manifests(['nome: Revenda', 'nome: Brindes', 'nome: Novo']),
    planOptions: [],
    applyOptions: ['--lock-timeout', '0'],
    arrange: async (fleet) => {
      const io = liveIO(fleet.env, fleet.dir);
      const held = await Promise.all(names.map((name) => lockAccount(localLeases({ cwd: fleet.dir, env: fleet.env }), io, { key: `account ${name}-account`, timeoutMs: 0, inFlightMs: 0 })));
      return async () => {
        for (const lock of held) await lock.release();
      };
    },
    expected: { code: 3, state: untouched },
  },
];

describe('every plan and apply option decides the same for one store, a fleet and saved plans', () => {
  for (const option of cases) {
    it(option.name, async () => {
      for (const way of ways) {
        const fleet = await bootstrap();
        write(fleet, 'manifests/config.yaml', option.manifests);
        const release = option.arrange ? await option.arrange(fleet) : async () => undefined;
        try {
          const decision = await applyWay(fleet, way, option.planOptions, option.applyOptions);
          expect(decision.codes['loja-a'], `${way}: exit code of loja-a`).toBe(option.expected.code);
          expect(decision.code, `${way}: exit code of the run`).toBe(option.expected.code);
          expect(decision.state[0], `${way}: the account of loja-a`).toEqual(option.expected.state);
          // Every store the way reached decided alike; the others were not touched.
          const reached = way === 'fleet-of-three' || way === 'saved-fleet-plans' ? [0, 1, 2] : [0];
          for (const i of [1, 2]) {
            const name = names[i] as string;
            if (reached.includes(i)) {
              expect(decision.codes[name], `${way}: exit code of ${name}`).toBe(option.expected.code);
              expect(decision.state[i], `${way}: the account of ${name}`).toEqual(option.expected.state);
            } else expect(decision.state[i], `${way}: ${name} untouched`).toEqual(untouched);
          }
        } finally {
          await release();
        }
      }
      // Five ways, each bootstrapping three accounts (writes and their read-back) in this process: genuinely slow.
    }, 60_000);
  }

  it('plan --detailed-exitcode exits 2 for changes, alone and in a fleet', async () => {
    const fleet = await bootstrap();
    write(fleet, 'manifests/config.yaml', manifests(['nome: Revenda', 'nome: Brindes', 'nome: Novo']));
    for (const selector of ['loja-a', 'loja-a*', 'loja-*']) {
      expect((await run(fleet, ['plan', '--target', selector, '--detailed-exitcode'])).code, selector).toBe(2);
      expect((await run(fleet, ['plan', '--target', selector])).code, selector).toBe(0);
    }
  });
});
