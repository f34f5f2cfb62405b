// A fresh emulated account and a scratch folder for a CLI test, with the environment that points
// erpsync at the account over HTTP.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';

export interface TestAccount {
  emulator: Emulator;
  dir: string;
  env: NodeJS.ProcessEnv;
}

export async function openTestAccount(prefix: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<TestAccount> {
  const emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { emulator, dir, env: { BLING_ACCESS_TOKEN: emulator.token, ERPSYNC_BASE_URL: emulator.baseUrl, ERPSYNC_RATE: '1000', ERPSYNC_LOCK_DIR: path.join(dir, '.locks'), ...extraEnv } };
}

export async function closeTestAccount(account: Pick<TestAccount, 'emulator' | 'dir'>): Promise<void> {
  await account.emulator.close();
  rmSync(account.dir, { recursive: true, force: true });
}

/** A manifest of root product groups. */
export function groupsManifest(names: readonly string[]): string {
  return `version: 1\ngruposProdutos:\n${names.map((n) => `  - nome: ${n}\n`).join('')}`;
}

export function groupNamesOf(emulator: Emulator): string[] {
  return emulator.snapshot().gruposProdutos.map((g) => g.nome).sort();
}
