// In a real pseudo-terminal (see support/pty): a "yes" typed while apply still reads the account
// is thrown away (the question that follows waits for its own answer), and Ctrl-C during the
// writes pauses them at once — no write starts while the question shows — and "n" goes on.
// Two loopback gates hold requests so each moment is certain: the start-up read of the groups,
// and the second create.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import type { Gate } from './support/gate-proxy.js';
import { openGate } from './support/gate-proxy.js';
import type { PtyRun } from './support/pty.js';
import { runInPty, within } from './support/pty.js';

let emulator: Emulator;
let dir: string;
const gates: Gate[] = [];

beforeEach(async () => {
  emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-pty-interrupt-'));
});
afterEach(async () => {
  for (const gate of gates.splice(0)) await gate.close();
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const groups = () => emulator.snapshot().gruposProdutos.length;
const posts = () => emulator.requestLog().filter((e) => e.method === 'POST').length;

/** Waits (bounded) until `done` holds. */
async function settle(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`waited too long for ${what}`);
    await pause(50);
  }
}

async function type(run: PtyRun, keys: string[]): Promise<void> {
  for (const key of keys) {
    run.child.stdin.write(key);
    await pause(20);
  }
}

describe('apply in a real pseudo-terminal, interrupted', () => {
  it('ignores what is typed during start-up, and Ctrl-C pauses the writes while it asks; "n" goes on', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), `version: 1\ngruposProdutos:\n${['A', 'B', 'C', 'D', 'E', 'F'].map((n) => `  - nome: ${n}\n`).join('')}`);
    const startup = await openGate(emulator.baseUrl, { method: 'GET', path: '/grupos-produtos', nth: 1 });
    gates.push(startup);
    const writes = await openGate(startup.baseUrl, { method: 'POST', path: '/grupos-produtos', nth: 2 });
    gates.push(writes);
    const env = { PATH: process.env.PATH, HOME: dir, TERM: 'xterm-256color', BLING_ACCESS_TOKEN: emulator.token, ERPSYNC_BASE_URL: writes.baseUrl, ERPSYNC_RATE: '1000' };
    const run = runInPty(['apply', 'm.yaml', '--concurrency', '1'], env, dir);
    try {
      // Start-up: the account read is held; a hasty "yes" now must not answer the question to come.
      await within(startup.arrived, run.child, 'the start-up read');
      await run.waitFor('Reading the account…');
      await type(run, ['y', 'e', 's', '\r']);
      await pause(200);
      startup.release();
      await run.waitFor('Type yes to apply:');
      await pause(500);
      expect(posts()).toBe(0);
      expect(run.text()).not.toMatch(/done|applied/);

      await type(run, ['y', 'e', 's', '\r']);
      // The second create is held in flight; Ctrl-C asks, and dispatching waits meanwhile.
      await within(writes.arrived, run.child, 'the second create');
      await type(run, ['\u0003']);
      await run.waitFor('Paused: no new change starts. Stop applying?');
      writes.release();
      // The change in flight finishes; nothing else starts while the question shows.
      await settle(() => groups() === 2, 'the change in flight to finish');
      await pause(1000);
      expect(groups()).toBe(2);
      expect(posts()).toBe(2);

      await type(run, ['n']);
      await run.waitFor('Apply: 6 applied, 0 failed, 0 skipped, 0 blocked.');
      expect(await within(run.exit, run.child, 'the apply')).toBe(0);
    } finally {
      run.child.stdin.end();
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
    }
    expect(groups()).toBe(6);
  });
});
