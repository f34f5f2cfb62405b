// The revision of a run's manifests: the checkout's commit, dirty only when a file under the paths
// asked about differs from it (changed, new, renamed in), read once per checkout however many
// stores ask; none outside a work tree.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { revisionReader } from './git-revision.js';

let dir = '';
const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' }).trim();
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
};

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-git-revision-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('revisionReader', () => {
  it('names the commit, dirty only for changes under the paths asked about', async () => {
    write('base/a.yaml', 'version: 1\n');
    write('lojas/um.yaml', 'version: 1\n');
    write('lojas/dois.yaml', 'version: 1\n');
    write('README.md', 'x\n');
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'first');
    const revision = git('rev-parse', 'HEAD');
    write('README.md', 'y\n');
    git('mv', 'lojas/um.yaml', 'base/um.yaml');
    const read = revisionReader(dir);
    expect(await read(['base'])).toEqual({ revision, dirty: true });
    expect(await read(['lojas'])).toEqual({ revision, dirty: true });
    expect(await revisionReader(path.join(dir, 'base'))(['../lojas/dois.yaml'])).toEqual({ revision, dirty: false });
    git('commit', '-qm', 'moved');
    expect(await revisionReader(dir)(['base', 'lojas'])).toEqual({ revision: git('rev-parse', 'HEAD'), dirty: false });
  });

  it('is null outside a work tree', async () => {
    expect(await revisionReader(dir)(['.'])).toBeNull();
  });
});
