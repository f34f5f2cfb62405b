// The one file writer: whole files only, exact modes, and no write through a symbolic link, be it
// planted at the file's path or at the temporary name beside it.
import * as crypto from 'node:crypto';
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { writeFileAtomically } from './write-file-atomically.js';

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, randomBytes: vi.fn(actual.randomBytes) };
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'erpsync-write-'));
});
afterEach(async () => {
  vi.mocked(crypto.randomBytes).mockClear();
  await rm(dir, { recursive: true, force: true });
});

const victimText = 'the victim, untouched\n';

async function plantVictim(): Promise<string> {
  const victim = join(dir, 'victim.txt');
  await writeFile(victim, victimText, { mode: 0o644 });
  return victim;
}

describe('writeFileAtomically', () => {
  it('lets a reader see the old file or the new one, never a part of either', async () => {
    const file = join(dir, 'plan.json');
    // Large enough that a plain write is seen half done by a reader running beside it.
    const versions = ['a', 'b'].map((letter) => `${letter.repeat(4 * 1024 * 1024)}\n`);
    await writeFileAtomically(file, versions[0] ?? '');
    let writing = true;
    const seen = new Set<number>();
    const reader = (async () => {
      while (writing) {
        const text = await readFile(file, 'utf8');
        const version = versions.indexOf(text);
        expect(version, `a read saw ${text.length} characters starting ${JSON.stringify(text.slice(0, 1))}`).toBeGreaterThanOrEqual(0);
        seen.add(version);
      }
    })();
    for (let i = 1; i <= 12; i += 1) await writeFileAtomically(file, versions[i % 2] ?? '');
    writing = false;
    await reader;
    expect(seen.size).toBeGreaterThan(0);
    expect(await readFile(file, 'utf8')).toBe(versions[0]);
    // Nothing left beside it.
    expect(await readdir(dir)).toEqual(['plan.json']);
  });

  it('refuses a symbolic link at the path, leaving the link and its target as they are', async () => {
    const victim = await plantVictim();
    const file = join(dir, 'report.md');
    await symlink(victim, file);
    const failure = writeFileAtomically(file, 'a report\n');
    await expect(failure).rejects.toMatchObject({ code: 'UNSAFE_PATH', message: `refusing to write ${file}: it is a symbolic link`, exitCode: 3 });
    expect(await readFile(victim, 'utf8')).toBe(victimText);
    expect((await stat(victim)).mode & 0o777).toBe(0o644);
    expect(await readlink(file)).toBe(victim);
    expect((await readdir(dir)).sort()).toEqual(['report.md', 'victim.txt']);
  });

  it('refuses a dangling link too, and creates nothing where it points', async () => {
    const file = join(dir, 'credentials.json');
    const target = join(dir, 'elsewhere.json');
    await symlink(target, file);
    await expect(writeFileAtomically(file, '{}\n', { mode: 0o600 })).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    await expect(lstat(target)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(writeFileAtomically(file, 'key\n', { exclusive: true })).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    await expect(lstat(target)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('cannot be redirected by a link planted at its temporary name', async () => {
    const victim = await plantVictim();
    const file = join(dir, 'sandbox.json');
    // The names the writers used before (pid-based) and the name this write draws first.
    await symlink(victim, `${file}.${process.pid}.tmp`);
    await symlink(victim, join(dir, `.sandbox.json.${process.pid}.1.tmp`));
    const drawn = Buffer.alloc(9, 7);
    vi.mocked(crypto.randomBytes).mockImplementationOnce(() => drawn);
    const planted = join(dir, `.sandbox.json.${drawn.toString('base64url')}.tmp`);
    await symlink(victim, planted);

    await writeFileAtomically(file, '{"state":1}\n', { mode: 0o600 });
    expect(await readFile(file, 'utf8')).toBe('{"state":1}\n');
    expect((await lstat(file)).isFile()).toBe(true);
    expect(await readFile(victim, 'utf8')).toBe(victimText);
    expect(await readlink(planted)).toBe(victim);
  });

  it('sets the mode it is given exactly, on a new file and over an old one', async () => {
    const file = join(dir, 'pay.yaml');
    await writeFileAtomically(file, 'version: 1\n', { mode: 0o664 });
    expect((await stat(file)).mode & 0o777).toBe(0o664);
    await writeFileAtomically(file, 'version: 1\n# again\n', { mode: 0o600 });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await writeFileAtomically(file, 'version: 1\n# kept\n', { mode: 0o640 });
    expect((await stat(file)).mode & 0o777).toBe(0o640);
    expect(await readFile(file, 'utf8')).toBe('version: 1\n# kept\n');
  });

  it('creates an exclusive file once: a second writer gets EEXIST and the first one\'s text stays', async () => {
    const file = join(dir, 'sandbox.json.key');
    await writeFileAtomically(file, 'first\n', { mode: 0o600, exclusive: true });
    await expect(writeFileAtomically(file, 'second\n', { mode: 0o600, exclusive: true })).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await readFile(file, 'utf8')).toBe('first\n');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['sandbox.json.key']);
  });

  it('leaves no temporary file behind when the write fails', async () => {
    const file = join(dir, 'out');
    await mkdir(join(file, 'inside'), { recursive: true });
    await expect(writeFileAtomically(file, 'text\n')).rejects.toMatchObject({ code: 'FILE_UNWRITABLE', message: expect.stringMatching(/cannot write .*out: a folder stands at its path/) });
    expect(await readdir(dir)).toEqual(['out']);
    await expect(writeFileAtomically(join(dir, 'missing', 'file'), 'text\n')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readdir(dir)).toEqual(['out']);
  });
});
