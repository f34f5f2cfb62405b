// In a real pseudo-terminal (see support/pty): a "yes" typed while apply still reads the account
// is thrown away (the question that follows waits for its own answer), and Ctrl-C during the
// writes pauses them at once — no write starts while the question shows — and "n" goes on.
// Two loopback gates hold requests so each moment is certain: the start-up read of the groups,
// and the second create.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { ensureBuiltCli } from '../reliability/support/built-cli.js';
import { eventually } from '../support/eventually.js';
import type { Gate } from './support/gate-proxy.js';
import { openGate } from './support/gate-proxy.js';
import { runInPty } from './support/pty.js';

let bin: string;
let emulator: Emulator;
let dir: string;
const gates: Gate[] = [];

beforeAll(async () => {
  bin = await ensureBuiltCli();
}, 120_000);

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

describe('apply in a real pseudo-terminal, interrupted', () => {
  it('ignores what is typed during start-up, and Ctrl-C pauses the writes while it asks; "n" goes on', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), `version: 1\ngruposProdutos:\n${['A', 'B', 'C', 'D', 'E', 'F'].map((n) => `  - nome: ${n}\n`).join('')}`);
    const startup = await openGate(emulator.baseUrl, { method: 'GET', path: '/grupos-produtos', nth: 1 });
    gates.push(startup);
    const writes = await openGate(startup.baseUrl, { method: 'POST', path: '/grupos-produtos', nth: 2 });
    gates.push(writes);
    const env = { PATH: process.env.PATH, HOME: dir, TERM: 'xterm-256color', BLING_ACCESS_TOKEN: emulator.token, ERPSYNC_BASE_URL: writes.baseUrl, ERPSYNC_RATE: '1000' };
    const run = runInPty(bin, ['apply', 'm.yaml', '--concurrency', '1'], env, dir);
    // Start-up: the account read is held; a hasty "yes" now must not answer the question to come.
    await startup.arrived;
    await run.waitFor('Reading the account…');
    const spinnerFrames = () => run.text().split('Reading the account…').length - 1;
    const framesBefore = spinnerFrames();
    await run.type(['y', 'e', 's', '\r']);
    // The spinner is drawn every 100 ms of the CLI's own time, and between two frames it reads
    // its keyboard: a few frames more and the keys have been read (and thrown away), however busy
    // the machine.
    await eventually(() => expect(spinnerFrames()).toBeGreaterThanOrEqual(framesBefore + 3));
    startup.release();
    await run.waitFor('Type yes to apply:');
    // Nothing answers the question in the moment after it shows.
    await pause(500);
    expect(posts()).toBe(0);
    expect(run.text()).not.toMatch(/done|applied/);

    await run.type(['y', 'e', 's', '\r']);
    // The second create is held in flight; Ctrl-C asks, and dispatching waits meanwhile.
    await writes.arrived;
    await run.type(['\u0003']);
    await run.waitFor('Paused: no new change starts. Stop applying?');
    writes.release();
    // The change in flight finishes; nothing else starts while the question shows.
    await eventually(() => expect(groups()).toBe(2));
    await pause(1000);
    expect(groups()).toBe(2);
    expect(posts()).toBe(2);

    await run.type(['n']);
    await run.waitFor('Apply: 6 applied, 0 failed, 0 skipped, 0 blocked.');
    expect(await run.exit).toBe(0);
    expect(groups()).toBe(6);
  });
});
