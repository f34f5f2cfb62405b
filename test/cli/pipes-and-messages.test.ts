// The edges a person hits first: output piped into `head` (the reader leaves early), a mistyped
// flag or command, and a folder with no manifests. Each ends in one clear line and the right exit
// code, never a stack trace or a "the account matches" for manifests that are not there.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerFileOf } from '../../src/emulator/index.js';
import { ensureBuiltCli } from '../reliability/support/built-cli.js';
import { eventually } from '../support/eventually.js';
import { runCli } from '../support/run-cli.js';

const repo = path.resolve(import.meta.dirname, '../..');
let bin: string;
let dir: string;

beforeAll(async () => {
  bin = await ensureBuiltCli();
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-pipes-'));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** `erpsync plan examples/loja-nova | head -N` in a shell; the CLI's own exit code and stderr. */
async function planIntoHead(lines: number, sandbox: string): Promise<{ code: number; stderr: string; shown: string }> {
  const script = `set -o pipefail; node ${quote(bin)} plan ${quote(path.join(repo, 'examples/loja-nova'))} --sandbox-state ${quote(sandbox)} 2>${quote(`${sandbox}.err`)} | head -${lines}`;
  const child = spawn('bash', ['-c', script], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir, NFSE_SENHA_PREFEITURA: 'senha-de-teste' } });
  let shown = '';
  child.stdout.on('data', (chunk: Buffer) => (shown += chunk.toString()));
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  return { code, stderr: readFileSync(`${sandbox}.err`, 'utf8'), shown };
}

describe('output into a pipe that closes early', () => {
  it('`erpsync plan examples/loja-nova | head -3` (and head -1) ends quietly with the plan’s exit code', async () => {
    const runs = await Promise.all([planIntoHead(3, path.join(dir, 'a.json')), planIntoHead(1, path.join(dir, 'b.json'))]);
    for (const run of runs) {
      expect(run.stderr).not.toMatch(/EPIPE|Error|at .*\.js/);
      expect(run.code).toBe(0);
    }
    expect(runs[0]?.shown.split('\n').slice(0, 3).join('\n')).toMatch(/^Account: .*\nPlan: /);
  });
});

describe('output into a pipe read slowly', () => {
  it('a large `plan --json` arrives whole: the CLI waits for the reader before it exits', async () => {
    const manifest = path.join(dir, 'groups.yaml');
    writeFileSync(manifest, `version: 1\ngruposProdutos:\n${Array.from({ length: 1500 }, (_, i) => `  - nome: Grupo ${i}\n`).join('')}`);
    const sandbox = path.join(dir, 'slow.json');
    const child = spawn(process.execPath, [bin, 'plan', manifest, '--json', '--sandbox-state', sandbox], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir } });
    // Nothing is read until the CLI has exited, or has written its output and let go of its
    // sandbox (the claim on the state file is gone): all that is left to it then is waiting for
    // the reader. A CLI that exits without waiting leaves the reader only what the pipe holds (64 KB).
    child.stdout.pause();
    let hasExited = false;
    const exited = new Promise<number>((resolve) =>
      child.on('exit', (code) => {
        hasExited = true;
        resolve(code ?? -1);
      }),
    );
    const wroteOutput = () => child.stdout.readableLength >= child.stdout.readableHighWaterMark;
    await eventually(() => expect(hasExited || (wroteOutput() && !existsSync(ownerFileOf(sandbox)))).toBe(true));
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
    child.stdout.resume();
    await closed;
    expect(await exited).toBe(0);
    const plan = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { changes: unknown[] };
    expect(plan.changes).toHaveLength(1500);
  }, 60_000);
});

describe('messages for mistakes', () => {
  it('an unknown flag gets one line with the closest flag and the command’s --help', async () => {
    const run = await runCli(['plan', '--fromat', 'markdown'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('erpsync: `erpsync plan` has no option --fromat; did you mean --format? (run `erpsync plan --help` for its options)\n');
    const missing = await runCli(['apply', '--max-deletes'], { cwd: dir });
    expect(missing.stderr).toBe('erpsync: --max-deletes needs a value (run `erpsync apply --help` for its options)\n');
  });

  it('an unknown command gets one line with the closest command', async () => {
    const run = await runCli(['pln'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('erpsync: unknown command `pln`; did you mean `erpsync plan`? (run `erpsync plan --help` for its options)\n');
    expect((await runCli(['frobnicate'], { cwd: dir })).stderr).toBe('erpsync: unknown command `frobnicate` (run `erpsync --help` for the commands)\n');
  });

  it('no manifests found is an error that says where it looked, before the account is read', async () => {
    const empty = mkdtempSync(path.join(dir, 'empty-'));
    const run = await runCli(['plan'], { cwd: empty });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${empty}:1:1: error: no-manifests: no manifests found: this folder and its subfolders hold no .yaml or .yml files`);
    expect(run.stdout).not.toContain('matches');
  });
});
