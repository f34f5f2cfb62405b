// A throwaway PostgreSQL server for the tests: a new cluster in a temp folder, listening on a free
// loopback port only, trusted for the local test role, removed when stopped. The server refuses to
// run as root, so as root it runs as the `postgres` user (Debian's package creates it).
//   node scripts/test-postgres.mjs start   prints ERPSYNC_TEST_DATABASE_URL=… and the stop command
//   node scripts/test-postgres.mjs stop DIR
// vitest's global setup (test/support/postgres-global-setup.ts) uses the same functions when
// ERPSYNC_TEST_DATABASE_URL is not set.
/* global console -- node's own */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** The newest installed server's bin folder (Debian: /usr/lib/postgresql/N/bin), or one on PATH. */
export function findPostgresBin() {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((name) => existsSync(path.join(root, name, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(root, versions[0], 'bin');
  }
  try {
    return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const asRoot = process.getuid?.() === 0;

/** Runs a server program as the user who may run it: `postgres` when this process is root. */
function serverCommand(bin, program, args) {
  const file = path.join(bin, program);
  return asRoot ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
}

/** Starts a cluster; resolves to its URL and folder. */
export async function startTestPostgres() {
  const bin = findPostgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed: `apt-get install postgresql` (Debian) puts its server where the tests look for it');
  const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-pg-'));
  const data = path.join(dir, 'data');
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  const [initdb, initArgs] = serverCommand(bin, 'initdb', ['-D', data, '-U', 'erpsync', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale', 'C']);
  execFileSync(initdb, initArgs, { stdio: 'ignore' });
  const port = await freePort();
  await runServer(bin, dir, port);
  return { url: `postgres://erpsync@127.0.0.1:${port}/postgres`, dir, port };
}

/** Starts the postmaster of the cluster in `dir` on `port` and resolves once it accepts connections. */
async function runServer(bin, dir, port) {
  const data = path.join(dir, 'data');
  const settings = ['-c', 'listen_addresses=127.0.0.1', '-c', `port=${port}`, '-c', `unix_socket_directories=${dir}`, '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'];
  const [postgres, serverArgs] = serverCommand(bin, 'postgres', ['-D', data, ...settings]);
  const server = spawn(postgres, serverArgs, { stdio: 'ignore', detached: true });
  server.unref();
  const [isReady, readyArgs] = serverCommand(bin, 'pg_isready', ['-h', '127.0.0.1', '-p', String(port), '-q']);
  for (let tries = 0; ; tries++) {
    try {
      execFileSync(isReady, readyArgs, { stdio: 'ignore' });
      return;
    } catch {
      if (tries > 300) throw new Error(`the test PostgreSQL in ${dir} did not start`);
      await sleep(100);
    }
  }
}

/** Signals the postmaster of the cluster in `dir`, if it runs, and resolves once it is gone. */
async function signalServer(dir, signal) {
  const pidFile = path.join(dir, 'data', 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!(pid > 0)) return;
  try {
    process.kill(pid, signal);
    for (;;) {
      process.kill(pid, 0);
      await sleep(50);
    }
  } catch {
    // Gone.
  }
}

/**
 * Stops a started cluster as an operator does (a fast shutdown: sessions ended, a checkpoint, every
 * commit kept) and keeps its folder, for tests of a database that goes away mid-run.
 */
export async function haltTestPostgres(dir) {
  await signalServer(dir, 'SIGINT');
}

/** Starts a halted cluster again, on the port it had (its URL is unchanged). */
export async function restartTestPostgres(started) {
  const bin = findPostgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed');
  await runServer(bin, started.dir, started.port);
}

/** Stops the cluster in `dir` (its postmaster pid is in the data folder) and removes the folder. */
export async function stopTestPostgres(dir) {
  // SIGQUIT: an immediate shutdown; the cluster is thrown away.
  await signalServer(dir, 'SIGQUIT');
  rmSync(dir, { recursive: true, force: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [command, dir] = process.argv.slice(2);
  if (command === 'start') {
    const started = await startTestPostgres();
    console.log(`ERPSYNC_TEST_DATABASE_URL=${started.url}`);
    console.log(`ERPSYNC_TEST_POSTGRES_DIR=${started.dir}`);
  } else if (command === 'stop' && dir) {
    await stopTestPostgres(dir);
  } else {
    console.error('usage: node scripts/test-postgres.mjs start | stop DIR');
    process.exitCode = 2;
  }
}
