// Every file erpsync writes is refused when a symbolic link stands at its path: a saved plan, a
// drift report, an adopted manifest, an export, the sandbox state and its key, the OAuth
// credentials (at login and at a refresh). The command stops (exit 3, refused) naming the path and
// no secret, and the file the link points to — the victim — is exactly as it was.
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readCredentialsFile, requestToken, storedFromTokenSet, writeCredentialsFile } from '../../src/api/index.js';
import { main } from '../../src/cli/main.js';
import { authorizeOnEmulator, freePort, startEmulator } from '../api/support.js';
import { groupsManifest } from '../support/account.js';
import { liveIO, runCli } from '../support/run-cli.js';
import type { CliRun } from '../support/run-cli.js';

const lojaNova = fileURLToPath(new URL('../../examples/loja-nova', import.meta.url));
const victimText = 'the victim: nothing erpsync may write\n';
/** Tokens and secrets of the emulator are 40 hex digits; none may reach the output. */
const secretShape = /[0-9a-f]{40}/;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-file-writes-'));
  writeFileSync(path.join(dir, 'm.yaml'), groupsManifest(['Maquiagem', 'Perfumaria']));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A victim file outside the command's reach, and a link to it at `at` (relative to the test folder). */
function plantLink(at: string, victim = path.join(dir, 'victim', 'victim.txt')): string {
  if (!existsSync(victim)) {
    mkdirSync(path.dirname(victim), { recursive: true });
    writeFileSync(victim, victimText);
  }
  mkdirSync(path.dirname(path.join(dir, at)), { recursive: true });
  symlinkSync(victim, path.join(dir, at));
  return victim;
}

const sandbox = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> => runCli([...args, '--sandbox'], { cwd: dir, env });

function expectRefused(run: CliRun, at: string): void {
  expect(run.code, run.stderr).toBe(3);
  expect(run.stderr).toContain(`erpsync: refusing to write ${path.join(dir, at)}: it is a symbolic link`);
  expect(run.stderr).toContain('remove the link, or use the real path');
  expect(`${run.stdout}${run.stderr}`).not.toMatch(secretShape);
}

function expectUntouched(victim: string, at: string, text = victimText): void {
  expect(readFileSync(victim, 'utf8')).toBe(text);
  expect(readlinkSync(path.join(dir, at))).toBe(victim);
}

describe('a symbolic link where erpsync writes a file is refused', () => {
  it('plan --out', async () => {
    const victim = plantLink('plans/plan.json');
    const run = await sandbox(['plan', 'm.yaml', '--out', 'plans/plan.json']);
    expectRefused(run, 'plans/plan.json');
    expectUntouched(victim, 'plans/plan.json');
  });

  it('drift --out', async () => {
    const victim = plantLink('drift.md');
    const run = await sandbox(['drift', 'm.yaml', '--format', 'markdown', '--out', 'drift.md']);
    expectRefused(run, 'drift.md');
    expectUntouched(victim, 'drift.md');
  });

  it('drift --adopt, for a manifest that is a link to the file it reads', async () => {
    const manifest = 'version: 1\nformasPagamentos:\n  - descricao: Pix da loja\n    tipoPagamento: pix-estatico\n    finalidade: pagamentos-e-recebimentos\n    destino: caixa-e-bancos\n    juros: 1\n';
    writeFileSync(path.join(dir, 'pay.yaml'), manifest);
    expect((await sandbox(['apply', 'pay.yaml', '--auto-approve'])).code).toBe(0);
    // In the ERP, the interest changed by hand.
    const stateFile = path.join(dir, '.erpsync', 'sandbox.json');
    const saved = JSON.parse(readFileSync(stateFile, 'utf8')) as { state: { formasPagamentos: { descricao: string; juros: number }[] } };
    const pix = saved.state.formasPagamentos.find((f) => f.descricao === 'Pix da loja');
    if (!pix) throw new Error('the apply did not create the payment method');
    pix.juros = 3.5;
    writeFileSync(stateFile, JSON.stringify(saved));
    // The manifest set holds a link to the file that is edited elsewhere.
    const victim = path.join(dir, 'victim', 'pay.yaml');
    mkdirSync(path.dirname(victim));
    renameSync(path.join(dir, 'pay.yaml'), victim);
    mkdirSync(path.join(dir, 'm'));
    symlinkSync(victim, path.join(dir, 'm', 'pay.yaml'));

    const run = await sandbox(['drift', 'm', '--adopt']);
    expect(run.stdout).toContain('juros');
    expectRefused(run, 'm/pay.yaml');
    expectUntouched(victim, 'm/pay.yaml', manifest);
  });

  it('export --out', async () => {
    const victim = plantLink('exported/grupos-produtos.yaml');
    expect((await sandbox(['apply', 'm.yaml', '--auto-approve'])).code).toBe(0);
    const run = await sandbox(['export', '--kinds', 'gruposProdutos', '--out', 'exported']);
    expectRefused(run, 'exported/grupos-produtos.yaml');
    expectUntouched(victim, 'exported/grupos-produtos.yaml');
  });

  it('the sandbox state, even when the link points at a real state', async () => {
    // A real state file to point at: the refusal is the write's, not a failed read.
    expect((await sandbox(['apply', 'm.yaml', '--auto-approve', '--sandbox-state', 'victim/state.json'])).code).toBe(0);
    const victim = path.join(dir, 'victim', 'state.json');
    const before = readFileSync(victim, 'utf8');
    plantLink('.erpsync/sandbox.json', victim);
    const run = await sandbox(['plan', 'm.yaml']);
    expectRefused(run, '.erpsync/sandbox.json');
    expectUntouched(victim, '.erpsync/sandbox.json', before);
    // The claim on the state was given back.
    expect(existsSync(path.join(dir, '.erpsync', 'sandbox.json.owner'))).toBe(false);
  });

  it('the sandbox key, before the NFS-e password would be sealed with it', async () => {
    const victim = plantLink('.erpsync/sandbox.json.key');
    const run = await sandbox(['apply', lojaNova, '--auto-approve'], { NFSE_SENHA_PREFEITURA: 'demo' });
    expectRefused(run, '.erpsync/sandbox.json.key');
    expect(`${run.stdout}${run.stderr}`).not.toContain('demo');
    expectUntouched(victim, '.erpsync/sandbox.json.key');
    expect(existsSync(path.join(dir, '.erpsync', 'sandbox.json'))).toBe(false);
  });
});

describe('the sandbox server publishes where it listens', () => {
  it('through no link planted at the temporary name it once used', async () => {
    // `<state>.owner.<pid>.tmp` was opened with O_TRUNC and followed a link: the server token went to the victim.
    const victim = plantLink(`state.json.owner.${process.pid}.tmp`);
    const stop = new AbortController();
    const server = liveIO({}, dir, stop.signal);
    const serving = main(['sandbox', '--state', 'state.json', '--rate-limit', '0'], server);
    for (let i = 0; i < 500 && !/Press Ctrl-C/.test(server.out()); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    const owner = path.join(dir, 'state.json.owner');
    expect(lstatSync(owner).isFile()).toBe(true);
    expect(lstatSync(owner).mode & 0o777).toBe(0o600);
    expect(readFileSync(owner, 'utf8')).toContain('"role":"server"');
    expectUntouched(victim, `state.json.owner.${process.pid}.tmp`);
    stop.abort();
    expect(await serving).toBe(0);
  });
});

describe('a symbolic link at the credentials file is refused', () => {
  const client = { clientId: 'loja-app', clientSecret: 'loja-app-secret', redirectUri: 'http://127.0.0.1:8123/callback' };

  it('at login, after the browser step, storing nothing through it', async () => {
    const callback = `http://127.0.0.1:${await freePort()}/callback`;
    const emulator = await startEmulator({ oauthClients: [{ ...client, redirectUri: callback }] });
    const victim = plantLink('.erpsync/credentials.json');
    const io = liveIO({ BLING_CLIENT_ID: client.clientId, BLING_CLIENT_SECRET: client.clientSecret }, dir);
    const running = main(['login', '--base-url', emulator.baseUrl, '--redirect-uri', callback, '--timeout', '20'], io);
    let authorizeUrl: string | undefined;
    for (let i = 0; i < 500 && !authorizeUrl; i += 1) {
      authorizeUrl = /https?:\/\/\S+\/oauth\/authorize\?\S+/.exec(io.out())?.[0];
      if (!authorizeUrl) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    if (!authorizeUrl) throw new Error(`no authorize URL printed; stderr: ${io.err()}`);
    await fetch(authorizeUrl); // the browser, following the redirect to the login listener
    const run = { code: await running, stdout: io.out(), stderr: io.err() };
    expectRefused(run, '.erpsync/credentials.json');
    expect(`${run.stdout}${run.stderr}`).not.toContain(client.clientSecret);
    expectUntouched(victim, '.erpsync/credentials.json');
  });

  it('at a refresh, before the stored refresh token is spent', async () => {
    const emulator = await startEmulator({ oauthClients: [client] });
    const tokens = await authorizeOnEmulator(emulator, client);
    const victim = path.join(dir, 'victim', 'credentials.json');
    // Credentials whose access token expired: the next request needs a refresh.
    await writeCredentialsFile(victim, { ...storedFromTokenSet(tokens, { baseUrl: emulator.baseUrl, clientId: client.clientId, tokenUrl: `${emulator.baseUrl}/oauth/token`, now: Date.now() }), expiresAt: new Date(0).toISOString() });
    const before = readFileSync(victim, 'utf8');
    plantLink('.erpsync/credentials.json', victim);

    const run = await runCli(['plan', 'm.yaml'], { cwd: dir, env: { ERPSYNC_BASE_URL: emulator.baseUrl, BLING_CLIENT_ID: client.clientId, BLING_CLIENT_SECRET: client.clientSecret } });
    expectRefused(run, '.erpsync/credentials.json');
    expect(`${run.stdout}${run.stderr}`).not.toContain(client.clientSecret);
    expectUntouched(victim, '.erpsync/credentials.json', before);
    expect(lstatSync(path.join(dir, '.erpsync', 'credentials.json')).isSymbolicLink()).toBe(true);
    // Not spent: the stored refresh token still works.
    const stored = await readCredentialsFile(victim);
    const refreshed = await requestToken({ tokenUrl: `${emulator.baseUrl}/oauth/token`, clientId: client.clientId, clientSecret: client.clientSecret, grant: { type: 'refresh_token', refreshToken: stored.refreshToken } });
    expect(refreshed.refreshToken).not.toBe(stored.refreshToken);
  });
});
