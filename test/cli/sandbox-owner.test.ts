// One owner per sandbox state file: a CLI run that finds `erpsync sandbox` serving the state talks
// to that server (so the server's next save cannot undo the apply), a second server is refused,
// and a claim left by a dead process is taken over.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { groupsManifest } from '../support/account.js';
import { waitForOutput } from '../support/eventually.js';
import { liveIO, runCli } from '../support/run-cli.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-sandbox-owner-'));
  writeFileSync(path.join(dir, 'm.yaml'), groupsManifest(['Maquiagem']));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const savedGroups = (file: string): string[] =>
  (JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { state: { gruposProdutos: { nome: string }[] } }).state.gruposProdutos.map((g) => g.nome);

describe('the sandbox state has one owner', () => {
  it('a CLI apply goes through the running server, and the server keeps it when it saves', async () => {
    const stop = new AbortController();
    const server = liveIO({}, dir, stop.signal);
    const serving = main(['sandbox', '--state', 'state.json', '--rate-limit', '0'], server);
    await waitForOutput(server.out, /Press Ctrl-C/);
    const url = /listening on (\S+)/.exec(server.out())?.[1] ?? '';

    const applied = await runCli(['apply', 'm.yaml', '--sandbox', '--sandbox-state', 'state.json', '--auto-approve'], { cwd: dir, env: {} });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout.split('\n')[0]).toBe(`Account: Loja Sandbox Ltda (CNPJ 12.345.678/0001-90) · sandbox server ${new URL(url).host} (state in state.json)`);

    const second = await runCli(['sandbox', '--state', 'state.json'], { cwd: dir, env: {} });
    expect(second.code).toBe(3);
    expect(second.stderr).toContain(`the sandbox state ${path.join(dir, 'state.json')} is in use by another erpsync sandbox server (pid ${process.pid}) at ${url}`);

    stop.abort();
    expect(await serving).toBe(0);
    // The server saved last, and its state holds what the CLI applied.
    expect(savedGroups('state.json')).toEqual(['Maquiagem']);
    expect(existsSync(path.join(dir, 'state.json.owner'))).toBe(false);
    const again = await runCli(['plan', 'm.yaml', '--sandbox', '--sandbox-state', 'state.json', '--detailed-exitcode'], { cwd: dir, env: {} });
    expect(again.code).toBe(0);
  });

  it('a run against a server with its limit on paces itself at that limit: no 429s', async () => {
    writeFileSync(path.join(dir, 'many.yaml'), groupsManifest(Array.from({ length: 12 }, (_, i) => `Grupo ${i}`)));
    const stop = new AbortController();
    const server = liveIO({}, dir, stop.signal);
    const serving = main(['sandbox', '--state', 'state.json', '--rate-limit', '3'], server);
    await waitForOutput(server.out, /Press Ctrl-C/);

    const applied = await runCli(['apply', 'many.yaml', '--sandbox', '--sandbox-state', 'state.json', '--auto-approve', '--debug'], { cwd: dir, env: {} });
    stop.abort();
    expect(await serving).toBe(0);
    expect(applied.code, applied.stderr).toBe(0);
    const answers = applied.stderr.split('\n').filter((line) => / ← \d{3} /.test(line));
    expect(answers.length).toBeGreaterThan(12);
    expect(answers.filter((line) => / ← 429 /.test(line))).toEqual([]);
    expect(savedGroups('state.json')).toHaveLength(12);
  });

  it('a sandbox target with `reserve: 1` leaves 1 req/s of a server at 3 req/s to others: its requests arrive at 2 req/s', async () => {
    writeFileSync(path.join(dir, 'many.yaml'), groupsManifest(Array.from({ length: 8 }, (_, i) => `Grupo ${i}`)));
    writeFileSync(path.join(dir, 'erpsync.config.yaml'), 'version: 1\ntargets:\n  shared:\n    sandbox: { state: state.json }\n    reserve: 1\n');
    const stop = new AbortController();
    const server = liveIO({}, dir, stop.signal);
    const serving = main(['sandbox', '--state', 'state.json', '--rate-limit', '3'], server);
    await waitForOutput(server.out, /Press Ctrl-C/);
    const root = (/listening on (\S+)/.exec(server.out())?.[1] ?? '').replace('/Api/v3', '');

    const applied = await runCli(['apply', 'many.yaml', '--target', 'shared', '--auto-approve'], { cwd: dir, env: {} });
    const log = ((await (await fetch(`${root}/__sandbox/log`)).json()) as { data: { status: number; at: number }[] }).data;
    stop.abort();
    expect(await serving).toBe(0);
    expect(applied.code, applied.stderr).toBe(0);
    expect(log.length).toBeGreaterThan(8);
    expect(log.filter((entry) => entry.status === 429)).toEqual([]);
    // Slots 1/2 s apart: no three arrivals within 0.9 s (at the default 2.9 req/s three take 0.7 s).
    const spans = log.slice(2).map((entry, i) => entry.at - (log[i]?.at ?? 0));
    expect(Math.min(...spans)).toBeGreaterThanOrEqual(900);
    expect(savedGroups('state.json')).toHaveLength(8);
  });

  it('takes over a claim left by a process that is gone', async () => {
    mkdirSync(path.join(dir, '.erpsync'));
    writeFileSync(path.join(dir, '.erpsync', 'sandbox.json.owner'), JSON.stringify({ pid: 2 ** 22 + 12345, role: 'cli' }));
    const applied = await runCli(['apply', 'm.yaml', '--sandbox', '--auto-approve'], { cwd: dir, env: {} });
    expect(applied.code, applied.stderr).toBe(0);
    expect(savedGroups('.erpsync/sandbox.json')).toEqual(['Maquiagem']);
    expect(existsSync(path.join(dir, '.erpsync', 'sandbox.json.owner'))).toBe(false);
  });
});
