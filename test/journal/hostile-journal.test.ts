// Files in the journal folder that no run wrote — as a repository could carry them: a symbolic
// link to /dev/zero, a named pipe, a 300 MB (sparse) garbage file, a megabyte of noise. `history`,
// `drift` and `report --html` read around them, name each one, and still show the real run; none
// of them blocks or fills memory (docs/journal.md has the time and memory measured). And a journal
// folder that is a link leading out of the working tree: apply refuses before its first write and
// writes nothing there; history names it. mkfifo is needed: where it is missing the test fails
// saying so.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { closeTestAccount, groupNamesOf, groupsManifest, openTestAccount } from '../support/account.js';
import { runCli } from '../support/run-cli.js';

let emulator: Emulator;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  ({ emulator, dir, env } = await openTestAccount('erpsync-journal-hostile-'));
  writeFileSync(path.join(dir, 'm.yaml'), groupsManifest(['Maquiagem']));
});
afterEach(() => closeTestAccount({ emulator, dir }));

function makeFifo(file: string): void {
  try {
    execFileSync('mkfifo', [file], { stdio: 'pipe' });
  } catch (error) {
    throw new Error(`this test needs mkfifo to plant a named pipe: ${(error as Error).message}`);
  }
}

describe('files in the journal folder that are no run', () => {
  it('are named by history, drift and report --html, which finish and still show the real run', async () => {
    expect((await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env })).code).toBe(0);
    const journal = path.join(dir, '.erpsync/journal');
    const [run] = readdirSync(journal).map((name) => name.replace(/\.jsonl$/, ''));
    const planted = { zero: path.join(journal, 'zz.jsonl'), fifo: path.join(journal, 'fifo.jsonl'), huge: path.join(journal, 'huge.jsonl'), noise: path.join(journal, 'noise.jsonl') };
    symlinkSync('/dev/zero', planted.zero);
    makeFifo(planted.fifo);
    writeFileSync(planted.huge, randomBytes(4096));
    truncateSync(planted.huge, 300 * 1024 * 1024);
    writeFileSync(planted.noise, randomBytes(1024 * 1024));
    const named = [
      `${planted.zero}: a symbolic link: not followed`,
      `${planted.fifo}: a named pipe (FIFO), not a file: not read`,
      `${planted.huge}: larger than 64 MiB: not read`,
      `${planted.noise}:1: the line is not JSON`,
    ];

    const history = await runCli(['history'], { cwd: dir, env });
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toMatch(new RegExp(`^${run} .* finished `, 'm'));
    for (const problem of named) expect(history.stdout).toContain(problem);

    const drift = await runCli(['drift', 'm.yaml'], { cwd: dir, env });
    expect(drift.code, drift.stderr).toBe(0);
    for (const problem of named) expect(drift.stderr).toContain(problem);

    const report = await runCli(['report', '--html', 'fleet.html'], { cwd: dir, env });
    expect(report.code, report.stderr).toBe(0);
    for (const problem of named) expect(report.stderr).toContain(problem);
    expect(readFileSync(path.join(dir, 'fleet.html'), 'utf8')).toContain(run);
  });
});

describe('a journal folder that resolves outside the working tree', () => {
  let elsewhere: string;
  beforeEach(() => {
    elsewhere = mkdtempSync(path.join(tmpdir(), 'erpsync-journal-elsewhere-'));
  });
  afterEach(() => rmSync(elsewhere, { recursive: true, force: true }));

  it('is refused: apply writes nothing to the account or there, history names it', async () => {
    mkdirSync(path.join(dir, '.erpsync'));
    symlinkSync(elsewhere, path.join(dir, '.erpsync/journal'));
    const applied = await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(3);
    expect(applied.stderr).toContain(`refusing to journal there: the journal folder ${path.join(dir, '.erpsync/journal')} resolves to ${elsewhere}, outside the working tree ${dir}`);
    expect(emulator.requestLog().filter((entry) => entry.method !== 'GET')).toEqual([]);
    expect(groupNamesOf(emulator)).toEqual([]);
    expect(readdirSync(elsewhere)).toEqual([]);

    const history = await runCli(['history'], { cwd: dir, env });
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toContain(`resolves to ${elsewhere}, outside the working tree ${dir}`);
  });
});
