// Accounts for the export and drift tests: a fresh emulator over HTTP on 127.0.0.1, a scratch
// directory, the environment that points the CLI at them, and direct API calls that play a
// person editing the account in the ERP.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';

export interface TestAccount {
  emulator: Emulator;
  dir: string;
  env: NodeJS.ProcessEnv;
  /** Sends one API request as the ERP's own screens would; fails the test on a non-2xx answer. */
  call(method: string, apiPath: string, body?: unknown): Promise<unknown>;
  close(): Promise<void>;
}

export const examplesDir = fileURLToPath(new URL('../../examples/', import.meta.url));

/** The password the example store's NFS-e settings are applied with. */
export const examplePassword = 'senha-da-prefeitura-123';

export async function openTestAccount(seed: 'fresh' | 'empty' = 'fresh'): Promise<TestAccount> {
  const emulator = await createEmulator({ seed, rateLimit: 0 });
  const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-drift-export-'));
  // Every emulator names the same company, so the apply lock (keyed on it) must be this test's own:
  // in the shared default folder, parallel tests (and other checkouts) would refuse each other (exit 3).
  const env: NodeJS.ProcessEnv = { BLING_ACCESS_TOKEN: emulator.token, ERPSYNC_BASE_URL: emulator.baseUrl, ERPSYNC_RATE: '1000', ERPSYNC_LOCK_DIR: path.join(dir, '.locks') };
  return {
    emulator,
    dir,
    env,
    async call(method, apiPath, body) {
      const response = await fetch(`${emulator.baseUrl}${apiPath}`, {
        method,
        headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${apiPath} answered ${response.status}: ${text}`);
      return text === '' ? undefined : (JSON.parse(text) as unknown);
    },
    async close() {
      await emulator.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Copies an example manifest set into the account's directory, under `name`. */
export function copyExample(account: TestAccount, example: string, name: string): string {
  cpSync(path.join(examplesDir, example), path.join(account.dir, name), { recursive: true });
  return name;
}

/** The id of the record a list answers for `descricao`/`nome`. */
export async function findId(account: TestAccount, apiPath: string, name: string): Promise<number> {
  const answer = (await account.call('GET', apiPath)) as { data: { id: number; descricao?: string; nome?: string }[] };
  const record = answer.data.find((r) => r.descricao === name || r.nome === name);
  if (!record) throw new Error(`${apiPath} has no record named ${name}`);
  return record.id;
}
