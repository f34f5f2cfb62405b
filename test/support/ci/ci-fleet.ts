// An agency's repository as the templates expect it, for the harness: a sandbox fleet (each store
// an account of its own, its state outside any checkout as a real account is), a shared base and
// one overlay per store, the config naming the real PostgreSQL backend (a fresh schema), the
// templates copied where the forge reads them, and every store applied once so the fleet starts
// in sync. The one repository secret, ERPSYNC_STATE, holds the backend's URL and key.
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { SandboxStore } from '../fleet.js';
import { storeName, writeSandboxFleet } from '../fleet.js';
import type { TestBackend } from '../postgres.js';
import { freshBackend } from '../postgres.js';
import type { CliRun } from '../run-cli.js';
import { runCli } from '../run-cli.js';
import { CiWorld } from './ci-world.js';

const examples = path.resolve(import.meta.dirname, '../../../examples/ci');

export interface CiFleet {
  world: CiWorld;
  backend: TestBackend;
  stores: SandboxStore[];
  /** The repository's secrets: ERPSYNC_STATE alone. */
  secrets: Record<string, string>;
  /** erpsync run by hand in this process, on main's checkout, with the backend's variables. */
  cli(args: string[]): Promise<CliRun>;
  close(): Promise<void>;
}

export interface CiFleetOptions {
  size: number;
  /** Each store's owners (`owners:` in the config). */
  owners?: (i: number) => string[];
  /** Users the forge can assign issues to. */
  collaborators?: string[];
  /** The stores applied once before the story starts (default: all); the others' accounts stay new. */
  firstApplied?: number[];
}

/** The overlay of store `i`: its own product group, and `extra` ones a change adds. */
export function overlay(i: number, extra: string[] = []): string {
  return `version: 1\ngruposProdutos:\n${[`Loja ${i}`, ...extra].map((name) => `  - nome: ${name}\n`).join('')}`;
}

export const baseManifest = 'version: 1\ngruposProdutos:\n  - nome: Revenda\n  - nome: Insumos\n';

export async function openCiFleet(options: CiFleetOptions): Promise<CiFleet> {
  const world = CiWorld.create(options.collaborators);
  const backend = freshBackend();
  const accounts = path.join(world.root, 'accounts');
  mkdirSync(accounts);
  const config = ['backend:', '  postgres: { urlEnv: ERPSYNC_DATABASE_URL, keyEnv: ERPSYNC_STATE_KEY, schema: ' + backend.schema + ' }', 'concurrency: { groups: 4 }'];
  const stores = writeSandboxFleet(world.origin, options.size, (i) => ({ manifests: ['base', `lojas/loja-${String(i).padStart(2, '0')}.yaml`], ...(options.owners ? { owners: options.owners(i) } : {}) }), { accounts, config });
  const files: Record<string, string> = {
    '.gitignore': 'node_modules/\n.erpsync/\nerpsync-out/\n',
    'erpsync.config.yaml': readFileSync(path.join(world.origin, 'erpsync.config.yaml'), 'utf8'),
    'base/grupos.yaml': baseManifest,
  };
  for (let i = 1; i <= options.size; i += 1) files[`${storeName(i)}.yaml`] = overlay(i);
  cpSync(path.join(examples, 'github-actions/workflows'), path.join(world.origin, '.github/workflows'), { recursive: true });
  cpSync(path.join(examples, 'gitlab/.gitlab-ci.yml'), path.join(world.origin, '.gitlab-ci.yml'));
  world.commit(files, 'the fleet');
  const env = { ERPSYNC_DATABASE_URL: backend.env.ERPSYNC_DATABASE_URL ?? '', ERPSYNC_STATE_KEY: backend.env.ERPSYNC_STATE_KEY ?? '' };
  const cli = (args: string[]) => runCli(args, { cwd: world.origin, env: { ...env, HOME: path.join(world.root, 'home') } });
  const first = options.firstApplied ? ['--target', options.firstApplied.map(storeName).join(',')] : ['--all-targets'];
  const start = await cli(['apply', ...first, '--auto-approve']);
  if (start.code !== 0) throw new Error(`the fleet's first apply failed (${start.code}): ${start.stderr}${start.stdout}`);
  return {
    world,
    backend,
    stores,
    secrets: { ERPSYNC_STATE: Object.entries(env).map(([k, v]) => `${k}=${v}`).join('\n') },
    cli,
    async close() {
      await backend.drop();
      world.close();
    },
  };
}

