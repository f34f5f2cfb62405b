// One apply per account at a time: two applies started together on one account, through the CLI
// against the emulator over HTTP. Exactly one proceeds; the other refuses (exit 3) naming the
// holder, or waits with --lock-timeout; no record is ever created twice.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { closeTestAccount, groupNamesOf, groupsManifest, openTestAccount } from '../support/account.js';
import { runCli } from '../support/run-cli.js';

let emulator: Emulator;
let dir: string;
let env: NodeJS.ProcessEnv;
const names = Array.from({ length: 12 }, (_, i) => `Grupo ${String(i + 1).padStart(2, '0')}`);

beforeEach(async () => {
  ({ emulator, dir, env } = await openTestAccount('erpsync-lock-'));
  writeFileSync(path.join(dir, 'm.yaml'), groupsManifest(names));
  // Paced, so the first apply still holds the account when the second starts.
  env = { ...env, ERPSYNC_RATE: '40' };
});
afterEach(() => closeTestAccount({ emulator, dir }));

describe('the account lock', () => {
  it('lets exactly one of two simultaneous applies proceed; the other refuses naming the holder', async () => {
    const runs = await Promise.all([0, 1].map(() => runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env })));
    expect(runs.map((r) => r.code).sort()).toEqual([0, 3]);
    const refused = runs.find((r) => r.code === 3);
    expect(refused?.stderr).toMatch(/is locked by `erpsync apply` \(pid \d+ on .+, since .+\)/);
    expect(refused?.stdout).not.toContain('applied');
    expect(groupNamesOf(emulator)).toEqual(names);
  });

  it('makes the second wait with --lock-timeout, then finds nothing left to do', async () => {
    const runs = await Promise.all([0, 1].map(() => runCli(['apply', 'm.yaml', '--auto-approve', '--lock-timeout', '30'], { cwd: dir, env })));
    expect(runs.map((r) => r.code)).toEqual([0, 0]);
    expect(runs.filter((r) => r.stdout.includes('Apply: 12 applied')).length).toBe(1);
    expect(groupNamesOf(emulator)).toEqual(names);
  });

  it('is not taken by plan: a plan runs while an apply holds the account', async () => {
    const [applied, planned] = await Promise.all([
      runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env }),
      runCli(['plan', 'm.yaml'], { cwd: dir, env }),
    ]);
    expect([applied.code, planned.code]).toEqual([0, 0]);
  });
});
