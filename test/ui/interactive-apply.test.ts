// `erpsync apply` on a terminal, end to end in this process against the emulator over HTTP: the
// ink UI asks, shows progress and the summary; a wrong answer changes nothing; a plan with
// deletes wants their number; Ctrl-C asks once, then stops cleanly with the summary and exit 1.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { closeTestAccount, groupNamesOf, groupsManifest, openTestAccount } from '../support/account.js';
import { runCli } from '../support/run-cli.js';
import { openGate } from './support/gate-proxy.js';
import { runCliOnTerminal } from './support/terminal.js';

// ink decides once, from the real process environment, whether it runs in CI (then it draws only
// its last frame). These runs are terminals by construction, also when the suite itself runs in
// CI: the variables go before anything loads ink (it is imported lazily, in this test file's own
// worker).
delete process.env.CI;
delete process.env.CONTINUOUS_INTEGRATION;

let emulator: Emulator;
let dir: string;
let env: NodeJS.ProcessEnv;

const groups = groupsManifest;
const groupNames = () => groupNamesOf(emulator);

beforeEach(async () => {
  ({ emulator, dir, env } = await openTestAccount('erpsync-ui-', { TERM: 'xterm-256color' }));
});
afterEach(() => closeTestAccount({ emulator, dir }));

describe('interactive apply', () => {
  it('shows the plan, asks, applies on `yes`, and ends with the summary', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), groups(['Maquiagem', 'Perfumaria']));
    const run = runCliOnTerminal(['apply', 'm.yaml'], { cwd: dir, env });
    await run.waitFor('Type yes to apply:');
    expect(groupNames()).toEqual([]);
    expect(run.stdin.isRaw).toBe(true);
    await run.type('y', 'e', 's', '\r');
    expect(await run.exit).toBe(0);
    expect(groupNames()).toEqual(['Maquiagem', 'Perfumaria']);
    const text = run.stdout.text;
    expect(text).toContain('+ gruposProdutos "Maquiagem" — create: not in the account (wave 1)');
    expect(text).toContain('Wave 1: 2 change(s)');
    expect(text).toMatch(/✓ ok {6}gruposProdutos "Perfumaria" create \(id \d+\)/);
    expect(text).toContain('Apply: 2 applied, 0 failed, 0 skipped, 0 blocked.');
    expect(text).toMatch(/\d+ request\(s\) in \d+:\d\d \(/);
    // Colour is on for a terminal: the plan's create lines are green.
    expect(run.stdout.raw).toContain('\u001B[32m+ gruposProdutos "Maquiagem"');
    expect(run.stdin.isRaw).toBe(false);
  });

  it('changes nothing when the answer is not yes, and colours nothing under NO_COLOR', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), groups(['Maquiagem']));
    const run = runCliOnTerminal(['apply', 'm.yaml'], { cwd: dir, env: { ...env, NO_COLOR: '1' } });
    await run.waitFor('Type yes to apply:');
    await run.type('n', 'o', '\r');
    expect(await run.exit).toBe(1);
    expect(run.stdout.text).toContain('Apply cancelled; nothing was changed.');
    expect(groupNames()).toEqual([]);
    // Cursor movement is the UI's; colour (SGR 30–37, 90–97) is not allowed.
    expect(run.stdout.raw).not.toMatch(/\[(3[0-7]|9[0-7])m/);
  });

  it('asks for the number of deletes before deleting', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), groups(['A', 'B']));
    expect((await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env })).code).toBe(0);
    writeFileSync(path.join(dir, 'm.yaml'), 'version: 1\npolicy:\n  prune: [gruposProdutos]\ngruposProdutos: []\n');

    const refused = runCliOnTerminal(['apply', 'm.yaml'], { cwd: dir, env });
    await refused.waitFor('Type 2 to apply:');
    await refused.type('y', 'e', 's', '\r');
    expect(await refused.exit).toBe(1);
    expect(groupNames()).toEqual(['A', 'B']);

    const accepted = runCliOnTerminal(['apply', 'm.yaml'], { cwd: dir, env });
    await accepted.waitFor('This deletes or retires 2 record(s) in Loja Sandbox Ltda');
    await accepted.waitFor('Type 2 to apply:');
    await accepted.type('2', '\r');
    expect(await accepted.exit).toBe(0);
    expect(groupNames()).toEqual([]);
    expect(accepted.stdout.text).toContain('Apply: 2 applied, 0 failed, 0 skipped, 0 blocked.');
  });

  it('on Ctrl-C asks, and on yes lets the change in flight finish, skips the rest, summarises and exits 1', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), groups(['A', 'B', 'C', 'D']));
    const gate = await openGate(emulator.baseUrl, { method: 'POST', path: '/grupos-produtos', nth: 2 });
    try {
      const run = runCliOnTerminal(['apply', 'm.yaml', '--auto-approve', '--concurrency', '1'], { cwd: dir, env: { ...env, ERPSYNC_BASE_URL: gate.baseUrl } });
      await gate.arrived;
      await run.waitFor('1/4 done');
      await run.type('\u0003');
      await run.waitFor('Stop applying? Changes in flight finish, the rest are skipped.');
      await run.type('y');
      await run.waitFor('Stopping: waiting for 1 change(s) in flight…');
      expect(groupNames()).toHaveLength(1);
      gate.release();
      expect(await run.exit).toBe(1);
      expect(groupNames()).toHaveLength(2);
      const text = run.stdout.text;
      expect(text).toContain('Apply: 2 applied, 0 failed, 2 skipped, 0 blocked.');
      expect(text.match(/– skipped gruposProdutos "[A-D]" create: interrupted/g)).toHaveLength(2);
      expect(text).toContain('Interrupted: the changes not started were skipped; run apply again to finish.');
    } finally {
      await gate.close();
    }
  });

  it('runs under --auto-approve without asking', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), groups(['Maquiagem']));
    const run = runCliOnTerminal(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env });
    expect(await run.exit).toBe(0);
    expect(run.stdout.text).not.toContain('Type yes');
    expect(groupNames()).toEqual(['Maquiagem']);
  });
});
