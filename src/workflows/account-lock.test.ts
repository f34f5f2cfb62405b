import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { judgeLockFolder } from '../state/local/lock-folder.js';
import { lockAccount } from './account-lock.js';
import type { RunIO } from './run-io.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-lockdir-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function ioWith(lockDir: string): RunIO {
  const sink = new PassThrough();
  return { stdout: sink, stderr: sink, stdin: sink, env: { ERPSYNC_LOCK_DIR: lockDir }, cwd: dir, signal: new AbortController().signal };
}

const options = { key: 'account 42', timeoutMs: 0, inFlightMs: 0 };

describe('the lock folder', () => {
  it('is created for this user alone (0700) and the lock taken in it', async () => {
    const locks = path.join(dir, 'nested', 'locks');
    const lock = await lockAccount(ioWith(locks), options);
    expect(statSync(locks).mode & 0o777).toBe(0o700);
    expect(readdirSync(locks)).toHaveLength(1);
    await lock.release();
  });

  it('refuses a folder others can write to, and a file standing where the folder should be: never runs unlocked', async () => {
    const open = path.join(dir, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    await expect(lockAccount(ioWith(open), options)).rejects.toMatchObject({ code: 'UNSAFE_PATH', message: `cannot lock the account in ${open}: others can write to it (mode 777), so they could block or forge every lock in it; \`chmod 700\` it; nothing was changed` });
    expect(readdirSync(open)).toEqual([]);

    const file = path.join(dir, 'a-file');
    writeFileSync(file, 'not a folder');
    await expect(lockAccount(ioWith(file), options)).rejects.toMatchObject({ code: 'UNSAFE_PATH', message: expect.stringContaining(': it is not a folder;') });
    await expect(lockAccount(ioWith(path.join(file, 'below')), options)).rejects.toMatchObject({ code: 'UNSAFE_PATH', message: expect.stringContaining('a file stands where one of its folders should be') });
    expect(readFileSync(file, 'utf8')).toBe('not a folder');
  });

  it('refuses a folder that is a symbolic link', async () => {
    const real = path.join(dir, 'real');
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, path.join(dir, 'link'));
    await expect(lockAccount(ioWith(path.join(dir, 'link')), options)).rejects.toMatchObject({ code: 'UNSAFE_PATH', message: expect.stringContaining('it is a symbolic link') });
  });

  it('judges owner and mode: another user\'s folder is refused, a private one of this user passes', () => {
    const stats = (over: { uid?: number; mode?: number; dir?: boolean; link?: boolean }) => ({
      uid: over.uid ?? 1000,
      mode: over.mode ?? 0o40700,
      isDirectory: () => over.dir ?? true,
      isSymbolicLink: () => over.link ?? false,
    });
    expect(judgeLockFolder(stats({}), 1000)).toBeUndefined();
    expect(judgeLockFolder(stats({ mode: 0o40755 }), 1000)).toBeUndefined();
    expect(judgeLockFolder(stats({ uid: 1001 }), 1000)).toBe('it belongs to another user (uid 1001), who could block or forge every lock in it');
    expect(judgeLockFolder(stats({ mode: 0o40770 }), 1000)).toMatch(/^others can write to it \(mode 770\)/);
    expect(judgeLockFolder(stats({ mode: 0o41777 }), 1000)).toMatch(/^others can write to it \(mode 777\)/);
  });

  it('with a symbolic link planted at the lock path, changes no file outside the folder', async () => {
    const locks = path.join(dir, 'locks');
    mkdirSync(locks, { mode: 0o700 });
    const victim = path.join(dir, 'victim.txt');
    writeFileSync(victim, 'precious');
    const lockFile = path.join(locks, `${createHash('sha256').update(options.key).digest('hex').slice(0, 32)}.lock`);
    symlinkSync(victim, lockFile);
    const lock = await lockAccount(ioWith(locks), { ...options, timeoutMs: 5_000 });
    await lock.confirm();
    await lock.release();
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(lstatSync(victim).isFile()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['locks', 'victim.txt']);
  });
});
