// A run shares the IP's windows with the other erpsync processes on the machine (state/local/ip-budget):
// after a CLI run against a service, the ledger in the lock folder holds, in this process's file,
// one mark per request the service received in the window.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import { closeTestAccount, groupsManifest } from '../support/account.js';
import type { TestAccount } from '../support/account.js';
import { runCli } from '../support/run-cli.js';

const opened: TestAccount[] = [];
afterEach(async () => {
  for (const account of opened.splice(0)) await closeTestAccount(account);
});

describe('the IP ledger after a run', () => {
  it('holds a mark for every request the service received, under the run\'s process', async () => {
    const emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
    const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-ip-ledger-'));
    opened.push({ emulator, dir, env: {} });
    const locks = path.join(dir, '.locks');
    const env = { BLING_ACCESS_TOKEN: emulator.token, ERPSYNC_BASE_URL: emulator.baseUrl, ERPSYNC_RATE: '1000', ERPSYNC_LOCK_DIR: locks };
    writeFileSync(path.join(dir, 'm.yaml'), groupsManifest(['Kits', 'Presentes']));
    const run = await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env });
    expect(run.code).toBe(0);
    const files = readdirSync(path.join(locks, 'ip-ledger')).filter((name) => name.startsWith(`${process.pid}-`));
    expect(files).toHaveLength(1);
    const own = JSON.parse(readFileSync(path.join(locks, 'ip-ledger', files[0] ?? ''), 'utf8')) as { pid: number; requests: number[] };
    // The run gave back the slots it held when it closed: what is left are the requests sent.
    expect(own.requests).toHaveLength(emulator.requestLog().length);
    expect(emulator.requestLog().length).toBeGreaterThan(0);
  });
});
