// A fleet of accounts for CLI tests: one emulated account per store (its own company id and token),
// and an erpsync.config.yaml naming them `lojas/loja-01` … with the entries the test gives.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator, EmulatorOptions } from '../../src/emulator/index.js';

export interface FleetAccounts {
  env: NodeJS.ProcessEnv;
  stores: { name: string; emulator: Emulator }[];
  close(): Promise<void>;
}

export const storeName = (i: number) => `lojas/loja-${String(i).padStart(2, '0')}`;

/** `size` stores; `entry(i)` adds each target's settings (manifests, variables); `options` go to every emulator (one IP ledger, say). */
export async function openFleetAccounts(
  dir: string,
  size: number,
  entry: (i: number) => { manifests: string[]; variables?: Record<string, string> },
  options: Pick<EmulatorOptions, 'ipRules'> = {},
): Promise<FleetAccounts> {
  const env: NodeJS.ProcessEnv = { ERPSYNC_LOCK_DIR: path.join(dir, '.locks') };
  const stores: FleetAccounts['stores'] = [];
  const config = ['version: 1', 'targets:'];
  for (let i = 1; i <= size; i += 1) {
    const n = String(i).padStart(2, '0');
    const emulator = await createEmulator({ ...options, rateLimit: 0, company: { id: `loja${n.padStart(28, '0')}`, nome: `Loja ${i} Ltda`, cnpj: `11.111.111/0001-${n}` } });
    stores.push({ name: storeName(i), emulator });
    env[`LOJA_${n}_TOKEN`] = emulator.token;
    const { manifests, variables } = entry(i);
    config.push(`  ${storeName(i)}:`, `    baseUrl: ${emulator.baseUrl}`, `    credentials: { tokenEnv: LOJA_${n}_TOKEN }`, `    manifests: [${manifests.join(', ')}]`, '    rate: 1000');
    if (variables) config.push(`    variables: { ${Object.entries(variables).map(([k, v]) => `${k}: "${v}"`).join(', ')} }`);
  }
  writeFileSync(path.join(dir, 'erpsync.config.yaml'), `${config.join('\n')}\n`);
  return { env, stores, close: async () => void (await Promise.all(stores.map((s) => s.emulator.close()))) };
}

/** A store of a sandbox fleet: its account lives in its state file, opened only between CLI runs. */
export interface SandboxStore {
  name: string;
  stateFile: string;
  /** Opens the store's account (no CLI run may be on it), lets `use` look or change it, and saves it. */
  open<T>(use: (emulator: Emulator) => Promise<T> | T): Promise<T>;
}

/** What a sandbox fleet's config says beyond its targets. */
export interface SandboxFleetOptions {
  /** A folder for the accounts' state files (outside the repository: a CI job's checkout does not keep them); default `.erpsync/` beside the config. */
  accounts?: string;
  /** Top-level config lines (backend, concurrency …) before `targets:`. */
  config?: string[];
}

/** `size` sandbox targets (`sandbox: true`): accounts of their own with no Bling account at all. */
export function writeSandboxFleet(
  dir: string,
  size: number,
  entry: (i: number) => { manifests: string[]; variables?: Record<string, string>; owners?: string[] },
  options: SandboxFleetOptions = {},
): SandboxStore[] {
  const config = ['version: 1', ...(options.config ?? []), 'targets:'];
  const stores: SandboxStore[] = [];
  for (let i = 1; i <= size; i += 1) {
    const name = storeName(i);
    const stateFile = options.accounts ? path.join(options.accounts, `${name.replaceAll('/', '.')}.json`) : path.join(dir, `.erpsync/sandbox-${name.replaceAll('/', '.')}.json`);
    const { manifests, variables, owners } = entry(i);
    config.push(`  ${name}:`, options.accounts ? `    sandbox: { state: ${stateFile} }` : '    sandbox: true', `    manifests: [${manifests.join(', ')}]`);
    if (variables) config.push(`    variables: { ${Object.entries(variables).map(([k, v]) => `${k}: "${v}"`).join(', ')} }`);
    if (owners) config.push(`    owners: [${owners.map((o) => `"${o}"`).join(', ')}]`);
    stores.push({
      name,
      stateFile,
      async open(use) {
        const emulator = await createEmulator({ rateLimit: 0, stateFile });
        try {
          return await use(emulator);
        } finally {
          await emulator.close();
        }
      },
    });
  }
  writeFileSync(path.join(dir, 'erpsync.config.yaml'), `${config.join('\n')}\n`);
  return stores;
}
