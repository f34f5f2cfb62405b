// A full disk under every file erpsync writes — a saved plan, an export, a manifest `drift
// --adopt` edits, the OAuth credentials, the sandbox state: the command fails with a clear error
// naming the file and the cause, the file that was there is exactly as it was, and no temporary
// file is left behind. Each case runs on a 64 KiB tmpfs of its own, filled up before the write.
// The journal, on a 6 KiB tmpfs: full from the start, the apply refuses before its first write;
// filling up midway, it stops before its next write, and every write that reached the account has
// its intent in the journal (its outcome, where the disk took it too) — given room, the run is
// settled and reverted whole.
// Mounting needs root (CAP_SYS_ADMIN), as CI has; where the machine does not allow it each case
// fails saying why (none is skipped).
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { storedFromTokenSet, writeCredentialsFile } from '../../src/api/index.js';
import { authorizeOnEmulator, startEmulator } from '../api/support.js';
import { findId, openTestAccount } from '../export/support.js';
import type { TestAccount } from '../export/support.js';
import { groupsManifest } from '../support/account.js';
import { parseJournalRun } from '../../src/state/journal-evidence.js';
import { runCli } from '../support/run-cli.js';
import type { CliRun } from '../support/run-cli.js';

const mounts: string[] = [];
let account: TestAccount | undefined;

/** Mounts a tmpfs (64 KiB unless said) at `dir` or a new folder; undefined (with the reason) where the machine does not allow it. */
function mountSmallDisk(size = '64k', at?: string): { dir?: string; reason?: string } {
  const dir = at ?? mkdtempSync(path.join(tmpdir(), 'erpsync-disk-full-'));
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return { reason: `cannot mount a tmpfs here (needs root with CAP_SYS_ADMIN): ${String((error as Error).message).split('\n')[0] ?? ''}` };
  }
  mounts.push(dir);
  return { dir };
}

afterEach(async () => {
  // The disks first: one may be mounted inside the account's folder.
  for (const dir of mounts.splice(0)) {
    try {
      execFileSync('umount', [dir], { stdio: 'pipe' });
    } catch {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
    }
    rmSync(dir, { recursive: true, force: true });
  }
  await account?.close();
  account = undefined;
});

function smallDisk(size?: string, at?: string): string {
  const { dir, reason } = mountSmallDisk(size, at);
  if (!dir) throw new Error(`no small disk for this case: ${reason ?? 'the tmpfs could not be mounted'}`);
  return dir;
}

/** Fills the disk up: whatever is written next fails with ENOSPC. */
function fillUp(dir: string): void {
  const fd = openSync(path.join(dir, 'filler'), 'w');
  const chunk = Buffer.alloc(1024, 120);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

/** Every file under `dir` with its text (the filler left out). */
function snapshot(dir: string): Record<string, string> {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name !== 'filler');
  return Object.fromEntries(files.map((e) => [path.relative(dir, path.join(e.parentPath, e.name)), readFileSync(path.join(e.parentPath, e.name), 'utf8')]));
}

function expectDiskFull(run: CliRun, file: string): void {
  expect(run.code, run.stdout + run.stderr).toBe(1);
  expect(run.stderr).toContain(`cannot write ${file}: the disk is full (ENOSPC)`);
  expect(run.stderr).not.toMatch(/internal error|this is a bug|\n\s+at /);
}

describe('a full disk under every file erpsync writes', () => {
  it('plan --out: the previous plan stays', async () => {
    account = await openTestAccount('empty');
    const disk = smallDisk();
    writeFileSync(path.join(account.dir, 'm.yaml'), groupsManifest(['Maquiagem']));
    writeFileSync(path.join(disk, 'plan.json'), '{"the previous plan": true}\n');
    fillUp(disk);
    const run = await runCli(['plan', 'm.yaml', '--out', path.join(disk, 'plan.json')], { cwd: account.dir, env: account.env });
    expectDiskFull(run, path.join(disk, 'plan.json'));
    expect(snapshot(disk)).toEqual({ 'plan.json': '{"the previous plan": true}\n' });
  });

  it('export --out: the files of the previous export stay', async () => {
    account = await openTestAccount('empty');
    const disk = smallDisk();
    const out = path.join(disk, 'out');
    await account.call('POST', '/grupos-produtos', { nome: 'Maquiagem' });
    expect((await runCli(['export', '--out', out, '--kinds', 'gruposProdutos'], { cwd: account.dir, env: account.env })).code).toBe(0);
    const before = snapshot(disk);
    await account.call('POST', '/grupos-produtos', { nome: 'Perfumaria' });
    fillUp(disk);
    const run = await runCli(['export', '--out', out, '--kinds', 'gruposProdutos'], { cwd: account.dir, env: account.env });
    expectDiskFull(run, path.join(out, 'grupos-produtos.yaml'));
    expect(snapshot(disk)).toEqual(before);
  });

  it('drift --adopt: the manifest stays as it was', async () => {
    account = await openTestAccount('empty');
    const disk = smallDisk();
    const manifest = 'version: 1\n# payment methods\nformasPagamentos:\n  - descricao: Pix da loja\n    tipoPagamento: pix-estatico\n    finalidade: pagamentos-e-recebimentos\n    destino: caixa-e-bancos\n    juros: 1\n';
    mkdirSync(path.join(disk, 'm'));
    writeFileSync(path.join(disk, 'm', 'pay.yaml'), manifest);
    expect((await runCli(['apply', path.join(disk, 'm'), '--auto-approve'], { cwd: account.dir, env: account.env })).code).toBe(0);
    const id = await findId(account, '/formas-pagamentos', 'Pix da loja');
    const { data } = (await account.call('GET', `/formas-pagamentos/${id}`)) as { data: Record<string, unknown> };
    await account.call('PUT', `/formas-pagamentos/${id}`, { ...data, juros: 3.5 });
    fillUp(disk);
    const run = await runCli(['drift', path.join(disk, 'm'), '--adopt'], { cwd: account.dir, env: account.env });
    expectDiskFull(run, path.join(disk, 'm', 'pay.yaml'));
    expect(snapshot(disk)).toEqual({ [path.join('m', 'pay.yaml')]: manifest });
  });

  it('the account lock of an apply: refused clearly, nothing written, no lock left behind', async () => {
    account = await openTestAccount('empty');
    const disk = smallDisk();
    const locks = path.join(disk, 'locks');
    mkdirSync(locks, { mode: 0o700 });
    writeFileSync(path.join(account.dir, 'm.yaml'), groupsManifest(['Maquiagem']));
    fillUp(disk);
    const run = await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: account.dir, env: { ...account.env, ERPSYNC_LOCK_DIR: locks } });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stderr).toMatch(/cannot write .*locks.*: the disk is full \(ENOSPC\)/);
    expect(run.stderr).not.toMatch(/internal error|this is a bug|\n\s+at /);
    // No lock: at most the IP ledger's folder (state/local/ip-budget), which the full disk left empty.
    expect(readdirSync(locks).filter((name) => name !== 'ip-ledger')).toEqual([]);
    expect(readdirSync(path.join(locks, 'ip-ledger')).filter((name) => !name.startsWith('.'))).toEqual([]);
    expect(await account.call('GET', '/grupos-produtos')).toEqual({ data: [] });
  });

  it('the OAuth credentials at a refresh: the stored ones stay', async () => {
    const client = { clientId: 'loja-app', clientSecret: 'loja-app-secret', redirectUri: 'http://127.0.0.1:8123/callback' };
    const emulator = await startEmulator({ oauthClients: [client] });
    const disk = smallDisk();
    const tokens = await authorizeOnEmulator(emulator, client);
    const file = path.join(disk, '.erpsync', 'credentials.json');
    // The access token expired: the next request needs a refresh, whose new tokens must be stored.
    await writeCredentialsFile(file, { ...storedFromTokenSet(tokens, { baseUrl: emulator.baseUrl, clientId: client.clientId, tokenUrl: `${emulator.baseUrl}/oauth/token`, now: Date.now() }), expiresAt: new Date(0).toISOString() });
    const before = snapshot(disk);
    writeFileSync(path.join(disk, 'm.yaml'), groupsManifest(['Maquiagem']));
    const withManifest = snapshot(disk);
    fillUp(disk);
    const locks = mkdtempSync(path.join(tmpdir(), 'erpsync-disk-full-locks-'));
    const run = await runCli(['plan', 'm.yaml'], { cwd: disk, env: { ERPSYNC_BASE_URL: emulator.baseUrl, BLING_CLIENT_ID: client.clientId, BLING_CLIENT_SECRET: client.clientSecret, ERPSYNC_LOCK_DIR: locks } });
    rmSync(locks, { recursive: true, force: true });
    // The first write of a refresh is its lock beside the credentials; the credentials are never reached.
    expect(run.stderr).toContain(`cannot write ${file}.lock: the disk is full (ENOSPC)`);
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain(client.clientSecret);
    expect(snapshot(disk)).toEqual(withManifest);
    expect(before['.erpsync/credentials.json']).toBe(withManifest['.erpsync/credentials.json']);
  });

  it('the OAuth credentials themselves, written where the lock was taken already', async () => {
    const disk = smallDisk();
    const file = path.join(disk, '.erpsync', 'credentials.json');
    const stored = storedFromTokenSet({ accessToken: 'acc-1', refreshToken: 'ref-1', expiresIn: 3600 }, { clientId: 'loja', tokenUrl: 'http://127.0.0.1:1/oauth/token', now: 0 });
    await writeCredentialsFile(file, stored);
    const before = snapshot(disk);
    fillUp(disk);
    await expect(writeCredentialsFile(file, { ...stored, refreshToken: `ref-2-${'x'.repeat(4096)}` })).rejects.toMatchObject({
      code: 'FILE_UNWRITABLE',
      message: `cannot write ${file}: the disk is full (ENOSPC)`,
    });
    expect(snapshot(disk)).toEqual(before);
  });

  it('the sandbox state: the previous state stays', async () => {
    const disk = smallDisk();
    const env = { ERPSYNC_LOCK_DIR: path.join(tmpdir(), `erpsync-disk-full-locks-${process.pid}`) };
    writeFileSync(path.join(disk, 'm.yaml'), groupsManifest(['Maquiagem']));
    expect((await runCli(['apply', 'm.yaml', '--sandbox', '--auto-approve'], { cwd: disk, env })).code).toBe(0);
    const before = snapshot(disk);
    writeFileSync(path.join(disk, 'n.yaml'), groupsManifest(['Perfumaria']));
    const withManifest = { ...before, 'n.yaml': readFileSync(path.join(disk, 'n.yaml'), 'utf8') };
    fillUp(disk);
    const run = await runCli(['apply', 'n.yaml', '--sandbox', '--auto-approve'], { cwd: disk, env });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    // The first write of the run is its claim on the state, beside it; the state is never reached.
    expect(run.stdout + run.stderr).toMatch(new RegExp(`cannot write ${path.join(disk, '.erpsync')}/sandbox\\.json\\S*: the disk is full \\(ENOSPC\\)`));
    expect(run.stderr).not.toMatch(/internal error|this is a bug/);
    expect(snapshot(disk)).toEqual(withManifest);
  });
});

describe('the journal on a 6 KiB disk', () => {
  const names = Array.from({ length: 22 }, (_, i) => `Grupo ${String(i + 1).padStart(2, '0')}`);
  const groupsIn = async (a: TestAccount) => ((await a.call('GET', '/grupos-produtos')) as { data: { nome: string }[] }).data.map((g) => g.nome).sort();

  it('full from the start: the apply refuses before its first write, naming the file', async () => {
    account = await openTestAccount('empty');
    const disk = smallDisk('6k', path.join(account.dir, '.erpsync/journal'));
    writeFileSync(path.join(account.dir, 'm.yaml'), groupsManifest(names));
    fillUp(disk);
    const run = await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: account.dir, env: account.env });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`cannot write ${disk}/\\S+\\.jsonl: the disk is full \\(ENOSPC\\)`));
    expect(run.stderr).not.toMatch(/internal error|this is a bug|\n\s+at /);
    expect(account.emulator.requestLog().filter((entry) => entry.method !== 'GET')).toEqual([]);
    expect(await groupsIn(account)).toEqual([]);
  });

  it('filling up midway: the apply stops before its next write, and every write that reached the account has its intent in the journal', async () => {
    account = await openTestAccount('empty');
    const disk = smallDisk('6k', path.join(account.dir, '.erpsync/journal'));
    writeFileSync(path.join(account.dir, 'm.yaml'), groupsManifest(names));
    const run = await runCli(['apply', 'm.yaml', '--auto-approve', '--concurrency', '1'], { cwd: account.dir, env: account.env });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const [file] = readdirSync(disk).map((name) => path.join(disk, name));
    expect(run.stderr).toContain(`cannot write ${file}: the disk is full (ENOSPC)`);
    expect(run.stderr).toContain('every write that was sent has its intent in the journal');
    expect(run.stderr).toMatch(/sent before it stopped \(\d+\):/);
    expect(run.stderr).not.toMatch(/internal error|this is a bug|\n\s+at /);

    // Some writes went through, not all; each one that did has its intent in the run, which reads back whole.
    const reached = await groupsIn(account);
    expect(reached.length).toBeGreaterThan(0);
    expect(reached.length).toBeLessThan(names.length);
    const journaled = parseJournalRun(readFileSync(file ?? '', 'utf8'), file ?? '');
    expect(journaled, 'the run reads back as evidence').toBeDefined();
    const announced = new Set(journaled?.changes.map((c) => c.key));
    expect(reached.filter((name) => !announced.has(name))).toEqual([]);

    // Given room, the run is settled and undone whole.
    execFileSync('mount', ['-o', 'remount,size=1m', disk], { stdio: 'pipe' });
    const revert = await runCli(['plan', '--revert', path.basename(file ?? '', '.jsonl'), '--max-deletes', '30', '--out', 'revert.json'], { cwd: account.dir, env: account.env });
    expect(revert.code, revert.stdout + revert.stderr).toBe(0);
    const undone = await runCli(['apply', 'revert.json', '--auto-approve'], { cwd: account.dir, env: account.env });
    expect(undone.code, undone.stdout + undone.stderr).toBe(0);
    expect(await groupsIn(account)).toEqual([]);
  });
});
