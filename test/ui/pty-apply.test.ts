// One end-to-end run in a real pseudo-terminal (see support/pty): a separate erpsync process
// shows the ink UI as for a person. The test waits for the question, types the answer, and checks
// the exit code, the summary and that the account changed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { ensureBuiltCli } from '../reliability/support/built-cli.js';
import { runInPty } from './support/pty.js';

let bin: string;
let emulator: Emulator;
let dir: string;

beforeAll(async () => {
  bin = await ensureBuiltCli();
}, 120_000);

beforeEach(async () => {
  emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-pty-'));
});
afterEach(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('apply in a real pseudo-terminal', () => {
  it('asks, takes the typed answer, shows progress and the summary, and the account changes', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), 'version: 1\ngruposProdutos:\n  - nome: Maquiagem\n  - nome: Perfumaria\n');
    // Only what the run needs: no CI (it would turn the UI off), no inherited credentials.
    const env = { PATH: process.env.PATH, HOME: dir, TERM: 'xterm-256color', BLING_ACCESS_TOKEN: emulator.token, ERPSYNC_BASE_URL: emulator.baseUrl, ERPSYNC_RATE: '1000' };
    const run = runInPty(bin, ['apply', 'm.yaml'], env, dir);
    await run.waitFor('Type yes to apply:');
    expect(emulator.snapshot().gruposProdutos).toEqual([]);
    await run.type(['y', 'e', 's', '\r']);
    await run.waitFor('Apply: 2 applied, 0 failed, 0 skipped, 0 blocked.');
    expect(await run.exit).toBe(0);
    expect(emulator.snapshot().gruposProdutos.map((g) => g.nome).sort()).toEqual(['Maquiagem', 'Perfumaria']);
    const text = run.text();
    expect(text).toContain('Plan: 2 to create.');
    expect(text).toMatch(/✓ ok {6}gruposProdutos "Maquiagem" create \(id \d+\)/);
  });
});
