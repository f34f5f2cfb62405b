// SIGKILL while a create is still in flight: the built CLI applies, the emulator holds its first
// create (it commits 1.5 s later, whether or not anyone waits), the CLI is killed while the create
// is held, and a second apply starts at once. The second run must not plan that record as
// missing while it may still appear: it takes over the dead run's lock, waits out the in-flight
// window, then finds the record. Zero duplicates.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { groupNamesOf, groupsManifest } from '../support/account.js';
import { runCli } from '../support/run-cli.js';
import { findDuplicates } from './support/account.js';
import { ensureBuiltCli, startCli } from './support/built-cli.js';

let emulator: Emulator | undefined;
let dir: string | undefined;

beforeAll(async () => {
  await ensureBuiltCli();
}, 120_000);

afterEach(async () => {
  await emulator?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('an apply killed while its create is held in flight', () => {
  it('is followed by an apply that waits for the create instead of sending it again', async () => {
    emulator = await createEmulator({ seed: 'fresh', rateLimit: 0, faults: 'hold=1500,POST/grupos-produtos#1=late-commit' });
    dir = mkdtempSync(path.join(tmpdir(), 'erpsync-held-kill-'));
    writeFileSync(path.join(dir, 'm.yaml'), groupsManifest(['Maquiagem', 'Perfumaria', 'Cabelos']));
    const env = {
      BLING_ACCESS_TOKEN: emulator.token,
      ERPSYNC_BASE_URL: emulator.baseUrl,
      ERPSYNC_RATE: '1000',
      ERPSYNC_LOCK_DIR: path.join(dir, '.locks'),
      ERPSYNC_LOCK_LEASE_MS: '3000',
      ERPSYNC_OUTCOME_WAIT: '3',
    };
    const first = startCli(['apply', 'm.yaml', '--auto-approve', '--concurrency', '1'], { cwd: dir, env });
    const held = () => emulator?.requestLog().some((e) => e.method === 'POST' && e.fault === 'late-commit' && e.status === 0) ?? false;
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (!held()) return;
        clearInterval(timer);
        first.child.kill('SIGKILL');
        resolve();
      }, 1);
    });
    expect((await first.exit).signal).toBe('SIGKILL');
    expect(groupNamesOf(emulator)).toEqual([]);

    const second = await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/took over the lock of `erpsync apply` \(pid \d+ .*\), which stopped; waiting \d+ s/);
    expect(groupNamesOf(emulator)).toEqual(['Cabelos', 'Maquiagem', 'Perfumaria']);
    expect(findDuplicates(emulator.snapshot())).toEqual([]);
  }, 60_000);
});
