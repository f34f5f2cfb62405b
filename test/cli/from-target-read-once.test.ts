// A template store is read once per run, however many stores it is copied to: the requests the
// template's account receives for a fleet of three are those it receives for one store. The
// template is served by a running `erpsync sandbox`, whose request log counts what it was asked.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { waitForOutput } from '../support/eventually.js';
import { liveIO, runCli } from '../support/run-cli.js';

const example = path.resolve(import.meta.dirname, '../../examples/loja-nova');
let dir = '';
const env: NodeJS.ProcessEnv = { CI: 'true', NFSE_SENHA_PREFEITURA: 'S3nh4-do-Modelo' };
const run = (args: string[]) => runCli(args, { cwd: dir, env });

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-from-target-once-'));
  env.ERPSYNC_LOCK_DIR = path.join(dir, '.locks');
  cpSync(example, path.join(dir, 'modelo'), { recursive: true });
  const stores = [1, 2, 3].flatMap((i) => [`  frota-${i}:`, '    sandbox: true']);
  writeFileSync(path.join(dir, 'erpsync.config.yaml'), ['version: 1', 'targets:', '  modelo:', '    sandbox: { state: modelo.json }', '    manifests: [modelo]', ...stores, ''].join('\n'));
  const applied = await run(['apply', '--target', 'modelo', '--auto-approve']);
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('plan --from-target across a fleet', () => {
  it('reads the template once, whatever the number of stores', async () => {
    const stop = new AbortController();
    const server = liveIO({}, dir, stop.signal);
    const serving = main(['sandbox', '--state', 'modelo.json', '--rate-limit', '0'], server);
    try {
      await waitForOutput(server.out, /Press Ctrl-C/);
      const root = (/listening on (\S+)/.exec(server.out())?.[1] ?? '').replace('/Api/v3', '');
      const received = async () => ((await (await fetch(`${root}/__sandbox/log`)).json()) as { data: { method: string; path: string }[] }).data.map((e) => `${e.method} ${e.path}`);

      const one = await run(['plan', '--from-target', 'modelo', '--target', 'frota-1', '--detailed-exitcode']);
      expect(one.code, one.stdout + one.stderr).toBe(2);
      const forOne = await received();
      expect(forOne.length).toBeGreaterThan(5);

      const three = await run(['plan', '--from-target', 'modelo', '--target', 'frota-*', '--detailed-exitcode']);
      expect(three.code, three.stdout + three.stderr).toBe(2);
      for (const store of ['frota-1', 'frota-2', 'frota-3']) expect(three.stdout).toContain(store);
      const forThree = (await received()).slice(forOne.length);
      expect(forThree.sort()).toEqual([...forOne].sort());
    } finally {
      stop.abort();
      await serving;
    }
  });
});
