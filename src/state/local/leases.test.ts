// The local backend's lock folder: created for this user alone, refused when others could block or
// forge locks in it (another owner, open mode, a symbolic link, a file), never escaped by a link
// planted at a lock's path. What every backend's leases promise is test/state/leases.contract.test.ts.
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { leaseFileOf, localLeases } from './leases.js';
import { judgeLockFolder } from './lock-folder.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-lockdir-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** An account's lease in the lock folder `lockDir`. */
function lockIn(lockDir: string, timeoutMs = 0) {
  return localLeases({ cwd: dir, env: { ERPSYNC_LOCK_DIR: lockDir } }).acquire({ key, command: 'erpsync apply', timeoutMs });
}

const key = 'account 42';

describe('the lock folder', () => {
  it('is created for this user alone (0700) and the lock taken in it', async () => {
    const locks = path.join(dir, 'nested', 'locks');
    const lock = await lockIn(locks);
    expect(statSync(locks).mode & 0o777).toBe(0o700);
    expect(readdirSync(locks)).toHaveLength(1);
    await lock.release();
  });

  it('refuses a folder others can write to, and a file standing where the folder should be: never runs unlocked', async () => {
    const open = path.join(dir, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    await expect(lockIn(open)).rejects.toMatchObject({ code: 'UNSAFE_PATH', message: `cannot lock the account in ${open}: others can write to it (mode 777), so they could block or forge every lock in it; \`chmod 700\` it; nothing was changed` });
    expect(readdirSync(open)).toEqual([]);

    const file = path.join(dir, 'a-file');
    writeFileSync(file, 'not a folder');
    await expect(lockIn(file)).rejects.toMatchObject({ code: 'UNSAFE_PATH', message: expect.stringContaining(': it is not a folder;') });
    await expect(lockIn(path.join(file, 'below'))).rejects.toMatchObject({ code: 'UNSAFE_PATH', message: expect.stringContaining('a file stands where one of its folders should be') });
    expect(readFileSync(file, 'utf8')).toBe('not a folder');
  });

  it('refuses a folder that is a symbolic link', async () => {
    const real = path.join(dir, 'real');
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, path.join(dir, 'link'));
    await expect(lockIn(path.join(dir, 'link'))).rejects.toMatchObject({ code: 'UNSAFE_PATH', message: expect.stringContaining('it is a symbolic link') });
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
    symlinkSync(victim, leaseFileOf(locks, key));
    const lock = await lockIn(locks, 5_000);
    await lock.confirm();
    await lock.release();
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(lstatSync(victim).isFile()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['locks', 'victim.txt']);
  });
});
