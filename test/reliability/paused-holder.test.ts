// An apply that is paused (SIGSTOP: a closed laptop, a stalled VM) while it holds the account's
// lock, for longer than its lease: a second apply takes the lock over and finishes the work; when
// the first resumes (SIGCONT) it must not go on writing from its old plan. Real processes of the
// built CLI against one emulator over HTTP; a short lease through ERPSYNC_LOCK_LEASE_MS.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { groupNamesOf, groupsManifest } from '../support/account.js';
import { eventually } from '../support/eventually.js';
import { findDuplicates } from './support/account.js';
import { ensureBuiltCli, startCli } from './support/built-cli.js';

let emulator: Emulator | undefined;
let dir: string | undefined;
const names = Array.from({ length: 30 }, (_, i) => `Grupo ${String(i + 1).padStart(2, '0')}`);

beforeAll(async () => {
  await ensureBuiltCli();
}, 120_000);

afterEach(async () => {
  await emulator?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('an apply paused past its lease', () => {
  it('loses the lock to a second apply, and stops at its next write when it resumes, saying why: zero duplicates', async () => {
    emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
    dir = mkdtempSync(path.join(tmpdir(), 'erpsync-paused-'));
    writeFileSync(path.join(dir, 'm.yaml'), groupsManifest(names));
    const env = {
      BLING_ACCESS_TOKEN: emulator.token,
      ERPSYNC_BASE_URL: emulator.baseUrl,
      ERPSYNC_LOCK_DIR: path.join(dir, '.locks'),
      ERPSYNC_LOCK_LEASE_MS: '1500',
      ERPSYNC_OUTCOME_WAIT: '1',
    };
    // Paced, so the first run is still creating when it is paused.
    const first = startCli(['apply', 'm.yaml', '--auto-approve', '--concurrency', '1'], { cwd: dir, env: { ...env, ERPSYNC_RATE: '4' } });
    await eventually(() => expect(groupNamesOf(emulator as Emulator).length).toBeGreaterThanOrEqual(3));
    first.child.kill('SIGSTOP');
    const sentBeforePause = groupNamesOf(emulator).length;

    const second = await startCli(['apply', 'm.yaml', '--auto-approve', '--lock-timeout', '60'], { cwd: dir, env: { ...env, ERPSYNC_RATE: '1000' } }).exit;
    expect(second.code, second.stderr).toBe(0);
    expect(groupNamesOf(emulator)).toEqual(names);

    first.child.kill('SIGCONT');
    const resumed = await first.exit;
    expect(resumed.code, resumed.stderr).toBe(3);
    expect(resumed.stderr).toMatch(/the lock on account \w+ is no longer held by this run after this run was not running for \d+(\.\d)? s \(its lease is 1\.5 s\); this run stopped writing/);
    expect(resumed.stderr).toMatch(new RegExp(`sent before it stopped \\((${sentBeforePause}|${sentBeforePause + 1})\\):`));
    expect(resumed.stderr).toMatch(/not sent: \d+ changes/);
    expect(groupNamesOf(emulator)).toEqual(names);
    expect(findDuplicates(emulator.snapshot())).toEqual([]);
  }, 90_000);
});
