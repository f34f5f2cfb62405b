// A lease held by a real process that is paused (SIGSTOP: a closed laptop, a stalled VM) past its
// lease: this process takes the lease over, and when the paused one resumes (SIGCONT) its next
// confirm() is refused with the lease-lost message saying how long it was not running — on both
// backends. On postgres also: a renewal whose answer reached the holder only after such a pause
// (the server renewed, then the lease ran out and was taken) is not trusted. The other processes
// run the built modules (dist/, built when older than src/); the tests wait for what those
// processes print, never for a clock.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { localLeases } from '../../src/state/local/leases.js';
import { connectPostgres } from '../../src/state/postgres/connect.js';
import type { PostgresConnection } from '../../src/state/postgres/connect.js';
import { postgresLeases } from '../../src/state/postgres/leases.js';
import type { LeaseStore } from '../../src/state/state-store.js';
import { waitForOutput } from '../support/eventually.js';
import { freshBackend, testDatabaseUrl } from '../support/postgres.js';
import { ensureBuiltCli } from '../reliability/support/built-cli.js';

const root = path.resolve(import.meta.dirname, '../..');
const builtModule = (file: string): string => pathToFileURL(path.join(root, 'dist/state', file)).href;
const key = 'account 42';

beforeAll(async () => {
  await ensureBuiltCli();
}, 120_000);

// Opens the backend named in argv from the environment, as a runner would.
const openLeases = `
const [backend, localModule, postgresModule, connectModule] = process.argv.slice(1, 5);
async function openLeases() {
  if (backend === 'local') return (await import(localModule)).localLeases({ cwd: process.cwd(), env: process.env });
  const choice = { urlEnv: 'ERPSYNC_DATABASE_URL', keyEnv: 'ERPSYNC_STATE_KEY', schema: process.env.ERPSYNC_BACKEND_SCHEMA };
  const connection = await (await import(connectModule)).connectPostgres(choice, process.env);
  return (await import(postgresModule)).postgresLeases(connection);
}
`;

// The holder: takes the lease, says so, then confirms it as an apply does before each write until
// one is refused, and says with what.
const holderScript = `${openLeases}
const held = await (await openLeases()).acquire({ key: process.argv[5], command: 'holder', timeoutMs: 0, leaseMs: 1000 });
process.stdout.write('held ' + held.record.token + '\\n');
for (;;) {
  try {
    await held.confirm();
  } catch (error) {
    process.stdout.write('refused ' + error.code + ' ' + error.message + '\\n');
    process.exit(0);
  }
  await new Promise((resolve) => setTimeout(resolve, 10));
}
`;

// The taker: ends the session that holds the lease's row (so the renewals waiting on it commit,
// their answers unread by a holder that is not running), waits until none waits any more, then
// takes the lease once it ran out and says from whom. It keeps the lease (the schema is dropped).
const takerScript = `${openLeases}
const [blockingSession] = process.argv.slice(6);
const watch = new (await import('pg')).default.Client({ connectionString: process.env.ERPSYNC_DATABASE_URL });
await watch.connect();
await watch.query('select pg_terminate_backend($1)', [Number(blockingSession)]);
const waiting = "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%set renewed_at%'";
while ((await watch.query(waiting)).rows[0].n > 0) await new Promise((resolve) => setTimeout(resolve, 10));
await watch.end();
const taken = await (await openLeases()).acquire({ key: process.argv[5], command: 'taker', timeoutMs: 60000, pollMs: 20 });
process.stdout.write(JSON.stringify({ token: taken.record.token, from: taken.tookOverFrom?.token }));
process.exit(0);
`;

const scriptArgs = (backend: string, ...more: string[]): string[] => [backend, builtModule('local/leases.js'), builtModule('postgres/leases.js'), builtModule('postgres/connect.js'), key, ...more];

interface Side {
  env: Record<string, string>;
  leases: LeaseStore;
  close(): Promise<void>;
}

async function localSide(): Promise<Side> {
  const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-lease-pause-'));
  const env = { ERPSYNC_LOCK_DIR: path.join(dir, 'locks') };
  return { env, leases: localLeases({ cwd: dir, env }), close: async () => rmSync(dir, { recursive: true, force: true }) };
}

async function postgresSide(): Promise<Side & { connection: PostgresConnection }> {
  const backend = freshBackend();
  const connection = await connectPostgres(backend.choice, { ...process.env, ...backend.env });
  return {
    env: backend.env,
    connection,
    leases: postgresLeases(connection),
    async close() {
      await connection.close();
      await backend.drop();
    },
  };
}

let opened: Side | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

function startHolder(backend: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--input-type=module', '-e', holderScript, ...scriptArgs(backend)], { cwd: root, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  onTestFinished(() => void child.kill('SIGKILL'));
  return { child, read: () => output };
}

describe.each([
  ['local', localSide],
  ['postgres', postgresSide],
] as const)('a %s lease whose holder is paused past it', (backend, open) => {
  it('is taken over by another process; the holder, resumed, is refused at its next confirm() and says it was not running', async () => {
    const side = (opened = await open());
    const holder = startHolder(backend, side.env);
    const [, token] = await waitForOutput(holder.read, /^held (\S+)$/m);
    holder.child.kill('SIGSTOP');
    // Resolves once the holder's lease ran out: the stopped holder renews nothing.
    const taker = await side.leases.acquire({ key, command: 'taker', timeoutMs: 120_000, pollMs: 20 });
    expect(taker.tookOverFrom?.token).toBe(token);
    holder.child.kill('SIGCONT');
    const [, refusal] = await waitForOutput(holder.read, /^refused (.*)$/m);
    expect(refusal).toMatch(/^LOCK_LOST the lock on account 42 was taken over by `taker` \(pid \d+ on .+\) after this run was not running for \d+(\.\d)? s \(its lease is 1 s\); this run stopped writing$/);
    await taker.release();
  }, 60_000);
});

describe('a postgres lease renewed while its holder was paused', () => {
  it('is not trusted on an answer that arrived after the lease ran out: confirm() asks again and is refused', async () => {
    const side = await postgresSide();
    opened = side;
    // The holder's own connection: its renewals, waiting, must not take the connections this test watches with.
    const own = await connectPostgres(side.connection.choice, { ...process.env, ...side.env });
    onTestFinished(() => own.close().catch(() => undefined));
    const held = await postgresLeases(own).acquire({ key, command: 'paused', timeoutMs: 0, leaseMs: 300 });
    // Another session locks the row, so the holder's renewals wait at the server, sent and unanswered.
    const blocking = new pg.Client({ connectionString: testDatabaseUrl() });
    blocking.on('error', () => undefined);
    await blocking.connect();
    onTestFinished(() => blocking.end().catch(() => undefined));
    const session = (await blocking.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid;
    await blocking.query('begin');
    await blocking.query(`select 1 from ${side.connection.schema}.leases where key = $1 for update`, [key]);
    const confirming = held.confirm();
    confirming.catch(() => undefined);
    while ((await side.connection.pool.query("select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like 'update %set renewed_at%'")).rowCount === 0) await delay(10);
    // This process stops (spawnSync blocks its event loop) while the taker runs: the renewal
    // commits, the lease runs out, the taker takes it; only then is the renewal's answer read.
    const taker = spawnSync(process.execPath, ['--input-type=module', '-e', takerScript, ...scriptArgs('postgres', String(session))], { cwd: root, env: { PATH: process.env.PATH, ...side.env }, encoding: 'utf8' });
    expect(taker.status, taker.stderr).toBe(0);
    expect(JSON.parse(taker.stdout)).toEqual({ token: expect.any(String), from: held.record.token });
    await expect(confirming).rejects.toMatchObject({
      code: 'LOCK_LOST',
      message: expect.stringMatching(/^the lock on account 42 was taken over by `taker` \(pid \d+ on .+\) after this run was not running for \d+(\.\d)? s \(its lease is 0\.3 s\); this run stopped writing$/),
    });
  }, 60_000);
});
