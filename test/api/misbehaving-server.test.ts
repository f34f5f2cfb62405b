// Every request bounded: the CLI against a misbehaving server started by the test (in front of an
// emulated account). Each command ends with a clear error naming what went wrong — a wait of a day
// asked for, an answer that never completes, one that never starts, one too large to hold, writes
// that vanish — and a fleet with one such store finishes the others. Deadlines are kept small with
// the flags' env twins; the test asserts errors and bytes, never a wall-clock time.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import type { FleetReport } from '../../src/model/fleet.js';
import { closeTestAccount, groupNamesOf, groupsManifest, openTestAccount } from '../support/account.js';
import { openFleetAccounts } from '../support/fleet.js';
import type { Misbehaviour } from '../support/hostile-server.js';
import { startHostileServer } from '../support/hostile-server.js';
import { runCli } from '../support/run-cli.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function behind(behaviour: Misbehaviour) {
  const account = await openTestAccount('erpsync-hostile-');
  cleanups.push(() => closeTestAccount(account));
  const server = await startHostileServer(account.emulator.baseUrl, behaviour);
  cleanups.push(() => server.close());
  writeFileSync(path.join(account.dir, 'm.yaml'), groupsManifest(['Maquiagem']));
  const env = { ...account.env, ERPSYNC_BASE_URL: server.baseUrl, ERPSYNC_REQUEST_TIMEOUT: '1', ERPSYNC_OUTCOME_WAIT: '1' };
  return { ...account, server, run: (args: string[]) => runCli(args, { cwd: account.dir, env }) };
}

describe('a server that imposes a wait of a day', () => {
  it.each([
    ['429, in seconds', 'retry-after-seconds', 429, /Retry-After: 86400\)/],
    ['429, as an HTTP date', 'retry-after-date', 429, /Retry-After: \w{3}, \d{2} \w{3} \d{4} [\d:]{8} GMT\)/],
    ['503, in seconds', 'unavailable-for-a-day', 503, /Retry-After: 86400\)/],
  ] as const)('%s: plan fails at once, naming the wait asked for', async (_, behaviour, status, header) => {
    const { run } = await behind(behaviour);
    const planned = await run(['plan', 'm.yaml']);
    expect(planned.code).toBe(1);
    expect(planned.stderr).toContain(`GET /empresas/me/dados-basicos: the server answered ${status} and asked to wait 24 h (`);
    expect(planned.stderr).toMatch(header);
    expect(planned.stderr).toContain('longer than erpsync waits (60 s)');
  });
});

describe('answers that never complete', () => {
  it.each([
    ['a body trickling a byte at a time', 'trickle'],
    ['a server that never answers', 'silent'],
  ] as const)('%s: plan fails with a timeout after its attempts, each bounded by --request-timeout', async (_, behaviour) => {
    const { run } = await behind(behaviour);
    const planned = await run(['plan', 'm.yaml']);
    expect(planned.code).toBe(1);
    expect(planned.stderr).toMatch(/GET \/empresas\/me\/dados-basicos: timed out after \d attempts \(no complete answer within 1 s\)/);
  });
});

describe('an answer of 2 GB', () => {
  it('is not held: plan stops reading past the cap and says the answer is too large', async () => {
    const { run, server } = await behind('huge');
    const planned = await run(['plan', 'm.yaml']);
    expect(planned.code).toBe(1);
    expect(planned.stderr).toContain('GET /empresas/me/dados-basicos: the answer is larger than 32 MiB, far more than a configuration list holds; erpsync stopped reading it');
    // The connection was closed past the cap: the server could send little more than that.
    expect(server.bytesSent()).toBeLessThan(256 * 1024 ** 2);
  });
});

describe('a write path that swallows POSTs', () => {
  it('ends apply with the create reported as outcome unknown, and nothing created twice', async () => {
    const { run, emulator } = await behind('swallow-posts');
    const applied = await run(['apply', 'm.yaml', '--auto-approve']);
    expect(applied.code).toBe(1);
    expect(`${applied.stdout}${applied.stderr}`).toMatch(/POST \/grupos-produtos: outcome unknown \(timed out: no complete answer within 1 s\)/);
    expect(groupNamesOf(emulator)).toEqual([]);
  });
});

describe('a fleet with one hanging store', () => {
  it('reports that store as failed (timeout) at --store-timeout, and finishes the others', async () => {
    const { dir } = await openTestAccount('erpsync-hostile-fleet-');
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(path.join(dir, 'm.yaml'), groupsManifest(['Maquiagem']));
    const fleet = await openFleetAccounts(dir, 3, () => ({ manifests: ['m.yaml'] }));
    cleanups.push(() => fleet.close());
    const hanging = fleet.stores[1] as { emulator: Emulator };
    const server = await startHostileServer(hanging.emulator.baseUrl, 'silent');
    cleanups.push(() => server.close());
    const config = path.join(dir, 'erpsync.config.yaml');
    writeFileSync(config, readFileSync(config, 'utf8').replace(hanging.emulator.baseUrl, server.baseUrl));

    const planned = await runCli(['plan', '--all-targets', '--json'], { cwd: dir, env: { ...fleet.env, ERPSYNC_STORE_TIMEOUT: '2' } });
    expect(planned.code).toBe(1);
    const { rows } = JSON.parse(planned.stdout) as FleetReport;
    expect(rows.map((r) => [r.target, r.changes, r.error])).toEqual([
      ['lojas/loja-01', 1, undefined],
      ['lojas/loja-02', 0, 'the store did not finish within 2 s (--store-timeout): stopped'],
      ['lojas/loja-03', 1, undefined],
    ]);
  });
});
