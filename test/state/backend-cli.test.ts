// The postgres backend from the command line, in this process against the emulator over HTTP: the
// backend's own commands (migrate, status, import), an apply whose lease, journal and read-back
// memory live in the database and whose history any folder reads, and the refusals before any
// request to the service — the database unreachable, its schema newer than this erpsync, the
// logins' key wrong — each naming the variable and never a secret.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storedFromTokenSet, writeCredentialsFile } from '../../src/api/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { closeTestAccount, groupNamesOf, groupsManifest, openTestAccount } from '../support/account.js';
import { freshBackend, testStateKey } from '../support/postgres.js';
import type { TestBackend } from '../support/postgres.js';
import { runCli } from '../support/run-cli.js';

let emulator: Emulator;
let dir: string;
let env: NodeJS.ProcessEnv;
let backend: TestBackend;

beforeEach(async () => {
  backend = freshBackend();
  ({ emulator, dir, env } = await openTestAccount('erpsync-backend-cli-'));
  env = { ...env, ...backend.env, ERPSYNC_EGRESS: `test-${backend.schema}` };
  writeFileSync(path.join(dir, 'm.yaml'), groupsManifest(['Maquiagem', 'Perfumes']));
});
afterEach(async () => {
  await closeTestAccount({ emulator, dir });
  await backend.drop();
});

const requestsSeen = () => emulator.requestLog().length;

async function sql<T extends pg.QueryResultRow>(text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: backend.env.ERPSYNC_DATABASE_URL });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

describe('the postgres backend from the command line', () => {
  it('makes its schema once (migrate is idempotent) and says what it holds', async () => {
    const before = await runCli(['backend', 'status'], { cwd: dir, env });
    expect(before.code).toBe(0);
    expect(before.stdout).toContain('version 0');
    const first = await runCli(['backend', 'migrate', '--json'], { cwd: dir, env });
    expect(JSON.parse(first.stdout)).toMatchObject({ applied: [1], version: 1, schema: backend.schema });
    const again = await runCli(['backend', 'migrate'], { cwd: dir, env });
    expect(again.stdout).toContain('nothing to do');
    const status = JSON.parse((await runCli(['backend', 'status', '--json'], { cwd: dir, env })).stdout) as { schemaVersion: number; counts: Record<string, number> };
    expect(status).toMatchObject({ schemaVersion: 1, counts: { logins: 0, journalRuns: 0 } });
    expect(JSON.stringify(status)).not.toContain(backend.env.ERPSYNC_DATABASE_URL);
  });

  it('keeps an apply in the database: history lists it from another folder, with its runner', async () => {
    const applied = await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(groupNamesOf(emulator)).toEqual(['Maquiagem', 'Perfumes']);
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'erpsync-elsewhere-'));
    try {
      const history = await runCli(['history', '--json'], { cwd: elsewhere, env: { ...env, GITHUB_RUN_ID: '7', GITHUB_REPOSITORY: 'agencia/lojas' } });
      const runs = (JSON.parse(history.stdout) as { runs: { applied: number; runner?: string; status: string }[] }).runs;
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ applied: 2, status: 'finished' });
      expect(runs[0]?.runner).toMatch(/^host /);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
    const status = JSON.parse((await runCli(['backend', 'status', '--json'], { cwd: dir, env })).stdout) as { counts: Record<string, number> };
    expect(status.counts.journalRuns).toBe(1);
    // The lease was given back when the apply ended.
    expect(status.counts.leasesHeld).toBe(0);
  });

  it('refuses before any request to the service when the database cannot be reached, naming the variable', async () => {
    const down = { ...env, ERPSYNC_DATABASE_URL: 'postgres://erpsync:hunter2@127.0.0.1:1/erpsync' };
    const run = await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env: down });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('ERPSYNC_DATABASE_URL');
    expect(run.stderr).not.toContain('hunter2');
    expect(requestsSeen()).toBe(0);
    const unset = await runCli(['plan', 'm.yaml'], { cwd: dir, env: { ...env, ERPSYNC_DATABASE_URL: '' } });
    expect(unset.code).toBe(3);
    expect(unset.stderr).toContain('ERPSYNC_DATABASE_URL is not set');
    expect(requestsSeen()).toBe(0);
  });

  it('refuses a schema newer than this erpsync, writing nothing', async () => {
    await runCli(['backend', 'migrate'], { cwd: dir, env });
    await sql(`insert into "${backend.schema}".schema_versions (version, name) values (99, 'from the future')`);
    const run = await runCli(['plan', 'm.yaml'], { cwd: dir, env });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/version 99, newer than this erpsync knows \(1\)/);
    expect(requestsSeen()).toBe(0);
  });

  it('refuses a login sealed with another key, naming the key\'s variable and no token', async () => {
    const config = ['version: 1', 'targets:', '  loja:', `    baseUrl: ${emulator.baseUrl}`, '    manifests: [m.yaml]', '    rate: 1000'].join('\n');
    writeFileSync(path.join(dir, 'erpsync.config.yaml'), `${config}\n`);
    const tokens = { accessToken: 'access-token-que-ninguem-ve', refreshToken: 'refresh-token-que-ninguem-ve', expiresIn: 21600, scope: '' };
    const stored = storedFromTokenSet(tokens, { baseUrl: emulator.baseUrl, clientId: 'app', tokenUrl: `${emulator.baseUrl}/oauth/token`, now: Date.now() });
    // A local login imported into the backend, then read with another key.
    mkdirSync(path.join(dir, '.erpsync'), { recursive: true });
    await writeCredentialsFile(path.join(dir, '.erpsync', 'credentials-loja.json'), stored);
    const { BLING_ACCESS_TOKEN: _token, ...oauthEnv } = env;
    const imported = await runCli(['backend', 'import', '--json'], { cwd: dir, env: oauthEnv });
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ logins: { imported: [`loja (${emulator.baseUrl})`], kept: [] } });
    const twice = await runCli(['backend', 'import', '--json'], { cwd: dir, env: oauthEnv });
    expect(JSON.parse(twice.stdout)).toMatchObject({ logins: { imported: [], kept: [`loja (${emulator.baseUrl})`] }, journal: { runs: 0, lines: 0 } });
    const wrongKey = await runCli(['plan', '--target', 'loja'], { cwd: dir, env: { ...oauthEnv, ERPSYNC_STATE_KEY: testStateKey() } });
    expect(wrongKey.code).toBe(3);
    expect(wrongKey.stderr).toContain('ERPSYNC_STATE_KEY');
    expect(wrongKey.stderr).not.toMatch(/que-ninguem-ve/);
    expect(requestsSeen()).toBe(0);
    const rows = await sql<{ sealed: Buffer }>(`select sealed from "${backend.schema}".logins`);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.sealed.toString('latin1')).not.toContain('que-ninguem-ve');
  });
});
