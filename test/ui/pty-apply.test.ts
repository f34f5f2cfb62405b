// One end-to-end run in a real pseudo-terminal: `script` (util-linux) gives a separate erpsync
// process a pty, so the ink UI runs exactly as for a person. The test waits for the question,
// types the answer, and checks the exit code, the summary and that the account changed. Every
// wait is bounded; the child is killed if a deadline passes.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';

const repo = path.resolve(import.meta.dirname, '../..');
const register = path.join(repo, 'test/ui/support/ts-register.mjs');
const bin = path.join(repo, 'src/cli/bin.ts');
const deadlineMs = 20_000;

let emulator: Emulator;
let dir: string;

beforeEach(async () => {
  emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-pty-'));
});
afterEach(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

interface PtyRun {
  child: ChildProcessWithoutNullStreams;
  /** Output so far, escape codes and carriage returns removed. */
  text(): string;
  waitFor(needle: string): Promise<void>;
  exit: Promise<number | null>;
}

function runInPty(args: string[], env: NodeJS.ProcessEnv): PtyRun {
  // A fixed window size: a pty made by `script` from a pipe has none.
  const command = `stty cols 120 rows 40; exec node --import ${quote(register)} ${quote(bin)} ${args.map(quote).join(' ')}`;
  const child = spawn('script', ['--quiet', '--return', '--flush', '--command', command, '/dev/null'], { cwd: dir, env });
  let raw = '';
  const waiters: (() => void)[] = [];
  const onData = (chunk: Buffer) => {
    raw += chunk.toString('utf8');
    for (const wake of waiters.splice(0)) wake();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const text = () => stripVTControlCharacters(raw).replaceAll('\r', '');
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const waitFor = async (needle: string) => {
    const deadline = Date.now() + deadlineMs;
    while (!text().includes(needle)) {
      const left = deadline - Date.now();
      if (left <= 0 || child.exitCode !== null) throw new Error(`no ${JSON.stringify(needle)} in the terminal; it shows:\n${text()}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  };
  return { child, text, waitFor, exit };
}

async function within<T>(promise: Promise<T>, child: ChildProcessWithoutNullStreams, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} took longer than ${deadlineMs} ms`));
    }, deadlineMs);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('apply in a real pseudo-terminal', () => {
  it('asks, takes the typed answer, shows progress and the summary, and the account changes', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), 'version: 1\ngruposProdutos:\n  - nome: Maquiagem\n  - nome: Perfumaria\n');
    // Only what the run needs: no CI (it would turn the UI off), no inherited credentials.
    const env = { PATH: process.env.PATH, HOME: dir, TERM: 'xterm-256color', BLING_ACCESS_TOKEN: emulator.token, ERPSYNC_BASE_URL: emulator.baseUrl, ERPSYNC_RATE: '1000' };
    const run = runInPty(['apply', 'm.yaml'], env);
    try {
      await run.waitFor('Type yes to apply:');
      expect(emulator.snapshot().gruposProdutos).toEqual([]);
      for (const key of ['y', 'e', 's', '\r']) {
        run.child.stdin.write(key);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await run.waitFor('Apply: 2 applied, 0 failed, 0 skipped, 0 blocked.');
      expect(await within(run.exit, run.child, 'the apply')).toBe(0);
    } finally {
      run.child.stdin.end();
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
    }
    expect(emulator.snapshot().gruposProdutos.map((g) => g.nome).sort()).toEqual(['Maquiagem', 'Perfumaria']);
    const text = run.text();
    expect(text).toContain('Plan: 2 to create.');
    expect(text).toMatch(/✓ ok {6}gruposProdutos "Maquiagem" create \(id \d+\)/);
  });
});
