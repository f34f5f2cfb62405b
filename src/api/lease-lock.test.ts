import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLeaseLock } from './lease-lock.js';
import type { LockRecord } from './lease-lock.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-lease-'));
  file = path.join(dir, 'account.lock');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function writeHolder(overrides: Partial<LockRecord> & { pid?: number }): LockRecord {
  const record: LockRecord = {
    key: 'conta',
    owner: { host: hostname(), pid: overrides.pid ?? 4242, startedAt: '2026-11-23T10:00:00.000Z', command: 'erpsync apply' },
    token: 'someone-else',
    renewedAt: Date.now(),
    leaseMs: 60_000,
    ...overrides,
  };
  writeFileSync(file, JSON.stringify(record));
  return record;
}

describe('acquireLeaseLock', () => {
  it('is held by one owner at a time and refused to others, naming the holder', async () => {
    const held = await acquireLeaseLock(file, { key: 'conta', command: 'erpsync apply' });
    await expect(acquireLeaseLock(file, { key: 'conta', command: 'erpsync apply' })).rejects.toMatchObject({
      code: 'LOCKED',
      message: expect.stringMatching(new RegExp(`conta is locked by \`erpsync apply\` \\(pid ${process.pid} on `)),
    });
    await held.release();
    expect(existsSync(file)).toBe(false);
    const next = await acquireLeaseLock(file, { key: 'conta', command: 'erpsync apply' });
    expect(next.tookOverFrom).toBeUndefined();
    await next.release();
  });

  it('waits for a holder that releases within the timeout', async () => {
    const held = await acquireLeaseLock(file, { key: 'conta', command: 'first' });
    setTimeout(() => void held.release(), 200);
    // A timeout longer than the test may run: only the release ends the wait.
    const second = await acquireLeaseLock(file, { key: 'conta', command: 'second', timeoutMs: 120_000, pollMs: 50 });
    expect(second.record.owner.command).toBe('second');
    await second.release();
  });

  it('takes over the lock of a dead owner on this host, and of an owner whose lease expired, saying whose', async () => {
    const dead = writeHolder({ pid: 4242 });
    const fromDead = await acquireLeaseLock(file, { key: 'conta', command: 'erpsync apply', isAlive: () => false });
    expect(fromDead.tookOverFrom).toEqual(dead);
    await fromDead.release();

    const silent = writeHolder({ owner: { host: 'another-machine', pid: 1, startedAt: 'x', command: 'erpsync apply' }, renewedAt: Date.now() - 120_000 });
    const fromSilent = await acquireLeaseLock(file, { key: 'conta', command: 'erpsync apply', isAlive: () => true });
    expect(fromSilent.tookOverFrom).toEqual(silent);
    await fromSilent.release();
  });

  it('never takes a live lease of another machine, and never releases a lock it no longer holds', async () => {
    writeHolder({ owner: { host: 'another-machine', pid: 1, startedAt: 'x', command: 'erpsync apply' } });
    await expect(acquireLeaseLock(file, { key: 'conta', command: 'erpsync apply', isAlive: () => false })).rejects.toMatchObject({ code: 'LOCKED' });

    rmSync(file);
    const held = await acquireLeaseLock(file, { key: 'conta', command: 'erpsync apply' });
    const replacement = writeHolder({ token: 'after-a-takeover' });
    await held.release();
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(replacement);
  });
});

describe('confirm: the fence before every write', () => {
  it('passes while the lock is held, and fails for good once another run replaced the record, naming it', async () => {
    const held = await acquireLeaseLock(file, { key: 'conta', command: 'erpsync apply' });
    await held.confirm();
    const taker = writeHolder({ token: 'the-taker', owner: { host: hostname(), pid: 4343, startedAt: 'x', command: 'erpsync apply' } });
    await expect(held.confirm()).rejects.toMatchObject({ code: 'LOCK_LOST', message: expect.stringContaining('was taken over by `erpsync apply` (pid 4343') });
    // The taker released: the holding stays lost, and never removes a lock it does not hold.
    rmSync(file);
    await expect(held.confirm()).rejects.toMatchObject({ code: 'LOCK_LOST' });
    writeHolder(taker);
    await held.release();
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(taker);
  });

  it('is lost when the record is gone (a taker took it and released it already)', async () => {
    const held = await acquireLeaseLock(file, { key: 'conta', command: 'erpsync apply' });
    rmSync(file);
    await expect(held.confirm()).rejects.toMatchObject({ code: 'LOCK_LOST', message: expect.stringContaining('is no longer held by this run') });
  });

  it('after a pause longer than the lease, renews before letting a write go, when nobody took over', async () => {
    const held = await acquireLeaseLock(file, { key: 'conta', command: 'erpsync apply', leaseMs: 300 });
    const before = (JSON.parse(readFileSync(file, 'utf8')) as LockRecord).renewedAt;
    // The whole process stops (the event loop included, so no renewal timer runs), as under SIGSTOP.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 600);
    await held.confirm();
    const after = JSON.parse(readFileSync(file, 'utf8')) as LockRecord;
    expect(after.token).toBe(held.record.token);
    expect(after.renewedAt).toBeGreaterThanOrEqual(before + 600);
    await held.release();
  });

  it('after a pause during which another run took the lock, refuses and says how long it was paused', async () => {
    const held = await acquireLeaseLock(file, { key: 'conta', command: 'erpsync apply', leaseMs: 300 });
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 600);
    writeHolder({ token: 'the-taker' });
    await expect(held.confirm()).rejects.toMatchObject({ code: 'LOCK_LOST', message: expect.stringMatching(/after this run was not running for 0\.\d s \(its lease is 0\.3 s\); this run stopped writing/) });
    await held.release();
  });
});
