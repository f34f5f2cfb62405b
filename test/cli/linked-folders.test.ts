// A symbolic link planted at a folder on the way to a file erpsync writes (`reports -> ~/.ssh`
// in a repository, the export folder, `.erpsync` itself) is refused like a link at the file: the
// command stops (exit 3) naming the link, and nothing changes in the folder it points to — no
// file overwritten, none added, no folder created.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { groupsManifest } from '../support/account.js';
import { runCli } from '../support/run-cli.js';

let dir: string;
let victim: string;
/** The victim folder's files: what must not change. */
const bait = ['plan.json', 'drift.md', 'grupos-produtos.yaml', 'sandbox.json', 'credentials.json'];

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-linked-folders-'));
  victim = path.join(dir, 'victim');
  mkdirSync(victim);
  for (const name of bait) writeFileSync(path.join(victim, name), `the victim's ${name}\n`);
  writeFileSync(path.join(dir, 'm.yaml'), groupsManifest(['Maquiagem']));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function expectVictimUntouched(): void {
  expect(readdirSync(victim).sort()).toEqual([...bait].sort());
  for (const name of bait) expect(readFileSync(path.join(victim, name), 'utf8')).toBe(`the victim's ${name}\n`);
}

const run = (args: string[]) => runCli([...args, '--sandbox'], { cwd: dir, env: { ERPSYNC_LOCK_DIR: path.join(dir, 'locks') } });

const cases: [string, string, string[]][] = [
  ['plan --out', 'plans', ['plan', 'm.yaml', '--out', 'plans/plan.json']],
  ['drift --out', 'reports', ['drift', 'm.yaml', '--out', 'reports/drift.md', '--format', 'markdown']],
  ['export --out', 'out', ['export', '--out', 'out', '--kinds', 'gruposProdutos']],
  ['export --out, a folder further up', 'a', ['export', '--out', 'a/b/c', '--kinds', 'gruposProdutos']],
  ['plan --out, a folder further up', 'a', ['plan', 'm.yaml', '--out', 'a/b/plan.json']],
];

describe('a symbolic link at a folder erpsync writes into', () => {
  it.each(cases)('%s', async (_label, link, args) => {
    symlinkSync(victim, path.join(dir, link));
    const result = await run(args);
    expect(result.code, result.stdout + result.stderr).toBe(3);
    expect(result.stderr).toContain(`the folder ${path.join(dir, link)} is a symbolic link`);
    expectVictimUntouched();
  });

  it('the sandbox state: .erpsync is a link (to a folder with no state of its own)', async () => {
    const empty = path.join(dir, 'empty-victim');
    mkdirSync(empty);
    symlinkSync(empty, path.join(dir, '.erpsync'));
    const result = await run(['plan', 'm.yaml']);
    expect(result.code, result.stdout + result.stderr).toBe(3);
    expect(result.stderr).toContain(`the folder ${path.join(dir, '.erpsync')} is a symbolic link`);
    expect(readdirSync(empty)).toEqual([]);
  });
});
