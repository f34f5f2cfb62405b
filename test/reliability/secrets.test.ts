// Secrets: a known access token, OAuth client secret and NFS-e city-hall password (plus the
// password the account held before) go through every command in every output format the command
// offers (read from its --help), on success and on failure: API errors, rejected credentials,
// broken manifests, refused applies, --debug traces. None of them may appear in any output, nor in
// any file erpsync writes (saved plans, reports, exported manifests, credentials, sandbox state,
// the journal of every apply).
import { readFileSync, rmSync, writeFileSync, mkdtempSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { waitForOutput } from '../support/eventually.js';
import { runCli } from '../support/run-cli.js';
import { liveIO } from '../support/run-cli.js';
import { filesUnder, formatsOf as formatsOfCommand, leakForms, leaksIn as findLeaks } from './support/leaks.js';
import { applyOnce, loadDesiredOrThrow } from './support/pipeline.js';
import { example } from './support/stores.js';

const token = 'tok-KNOWN-9f2c41d7e8a6';
const clientId = 'loja-app';
const clientSecret = 'cs-KNOWN-5be0a3c9d1f4';
const password = 'pw-KNOWN-7d44e19b02c3';
const oldPassword = 'pw-OLD-KNOWN-c1d2e3f4a5';

/** Every form a secret could leak in: as is, JSON-escaped, URL- and form-encoded, base64, and inside HTTP Basic credentials. */
const forbidden = [...new Set([token, clientSecret, password, oldPassword].flatMap((secret) => leakForms(secret, clientId)))];

function leaksIn(text: string): string[] {
  return findLeaks(text, forbidden);
}

let emulator: Emulator;
let cwd: string;
let redirectUri: string;
const runs: { label: string; code: number }[] = [];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const remoteEnv = (): NodeJS.ProcessEnv => ({
  BLING_ACCESS_TOKEN: token,
  BLING_CLIENT_ID: clientId,
  BLING_CLIENT_SECRET: clientSecret,
  NFSE_SENHA_PREFEITURA: password,
  ERPSYNC_BASE_URL: emulator.baseUrl,
  ERPSYNC_RATE: '1000',
});

function withoutPassword(): NodeJS.ProcessEnv {
  const env = remoteEnv();
  delete env.NFSE_SENHA_PREFEITURA;
  return env;
}

/** Runs one command, records it, and checks its output. */
async function run(label: string, args: string[], env: NodeJS.ProcessEnv = remoteEnv(), expected?: number[]): Promise<string> {
  const result = await runCli(args, { cwd, env });
  runs.push({ label, code: result.code });
  const output = `${result.stdout}\n${result.stderr}`;
  expect(leaksIn(output), `${label}: erpsync ${args.join(' ')}\n${output}`).toEqual([]);
  if (expected) expect(expected, `${label} exit code; output:\n${output}`).toContain(result.code);
  return output;
}

async function formatsOf(command: string) {
  return formatsOfCommand(command, cwd);
}

beforeAll(async () => {
  redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
  emulator = await createEmulator({ seed: 'fresh', rateLimit: 0, token, oauthClients: [{ clientId, clientSecret, redirectUri }] });
  cwd = mkdtempSync(path.join(tmpdir(), 'erpsync-secrets-'));
  // The account already holds an older city-hall password: plans and drift compare it with the new one.
  const setup = mkdtempSync(path.join(tmpdir(), 'erpsync-secrets-setup-'));
  writeFileSync(path.join(setup, 'm.yaml'), 'version: 1\nconfiguracoesNfse:\n  adicionais:\n    cadastroPrefeitura:\n      login: loja\n      senha: ${NFSE_SENHA_PREFEITURA}\n');
  const applied = await applyOnce(emulator, await loadDesiredOrThrow(['m.yaml'], setup, { NFSE_SENHA_PREFEITURA: oldPassword }));
  expect(applied.result?.failed).toBe(0);
  rmSync(setup, { recursive: true, force: true });
});

afterAll(async () => {
  await emulator.close();
  rmSync(cwd, { recursive: true, force: true });
});


/** Every attempt at reading the NFS-e settings answers 500 (reads are retried, so one is not enough). */
const nfseReadsFail = {
  schedule: Array.from({ length: 10 }, (_, i) => ({ method: 'GET', path: '/nfse/configuracoes', nth: i + 1, fault: 'http500' as const })),
};

describe('no secret in any output or written file', () => {
  it('validate: valid and invalid manifests, every format', async () => {
    mkdirSync(path.join(cwd, 'broken'), { recursive: true });
    // The password written into the manifest by mistake, literally and as a variable's default.
    writeFileSync(path.join(cwd, 'broken/literal.yaml'), `version: 1\nconfiguracoesNfse:\n  adicionais:\n    cadastroPrefeitura:\n      senha: ${password}\n`);
    writeFileSync(path.join(cwd, 'broken/default.yaml'), `version: 1\nconfiguracoesNfse:\n  adicionais:\n    cadastroPrefeitura:\n      senha: \${NFSE_SENHA_PREFEITURA:-${password}}\n`);
    writeFileSync(path.join(cwd, 'broken/syntax.yaml'), `version: 1\nconfiguracoesNfse:\n  adicionais: [\n    senha: "${password}\n`);
    for (const format of await formatsOf('validate')) {
      await run(`validate ${format.name}`, ['validate', example, ...format.flag], remoteEnv(), [0]);
      for (const broken of ['literal', 'default', 'syntax']) {
        await run(`validate ${broken} ${format.name}`, ['validate', `broken/${broken}.yaml`, ...format.flag], remoteEnv(), [1]);
        await run(`plan ${broken} ${format.name}`, ['plan', `broken/${broken}.yaml`], remoteEnv(), [1]);
      }
    }
  });

  it('plan: every format, saved plan, --debug, and API failures', async () => {
    for (const format of await formatsOf('plan')) {
      // --verbose: every changed field is shown (the NFS-e change has more than a screenful), the password's included.
      const output = await run(`plan ${format.name}`, ['plan', example, '--detailed-exitcode', '--verbose', ...format.flag], remoteEnv(), [2]);
      // The password does change (old → new), and says so without the values.
      expect(output).toContain('senha');
      await run(`plan ${format.name} --verbose --debug`, ['plan', example, '--verbose', '--debug', ...format.flag], remoteEnv(), [0]);
    }
    await run('plan --out', ['plan', example, '--out', 'plans/plan.json'], remoteEnv(), [0]);
    emulator.setFaults(nfseReadsFail);
    await run('plan, the NFS-e read fails', ['plan', example, '--debug'], remoteEnv(), [1]);
    emulator.setFaults(undefined);
    await run('plan, token rejected', ['plan', example, '--debug'], { ...remoteEnv(), BLING_ACCESS_TOKEN: `${token}-revoked` }, [1]);
    await run('plan, secret variable unset', ['plan', example], withoutPassword(), [1]);
  });

  it('drift: every format, written reports, failures', async () => {
    for (const format of await formatsOf('drift')) {
      const extension = { text: 'txt', json: 'json', markdown: 'md', junit: 'xml' }[format.name] ?? format.name;
      await run(`drift ${format.name}`, ['drift', example, ...format.flag, '--out', `reports/drift.${extension}`], remoteEnv(), [2]);
      await run(`drift ${format.name} --debug`, ['drift', example, '--debug', ...format.flag], remoteEnv(), [2]);
    }
    emulator.setFaults(nfseReadsFail);
    await run('drift, the NFS-e read fails', ['drift', example], remoteEnv(), [1]);
    emulator.setFaults(undefined);
    await run('drift, token rejected', ['drift', example, '--format', 'junit'], { ...remoteEnv(), BLING_ACCESS_TOKEN: `${token}-revoked` }, [1]);
  });

  it('apply: refused, failing, a saved plan, every format', async () => {
    await run('apply without approval', ['apply', example], remoteEnv(), [3]);
    await run('apply of a saved plan without the secret variable', ['apply', 'plans/plan.json', '--auto-approve'], withoutPassword(), [1]);
    emulator.setFaults({ schedule: [{ method: 'PUT', path: '/nfse/configuracoes', nth: 1, fault: 'http500' }] });
    await run('apply, the NFS-e write fails', ['apply', 'plans/plan.json', '--auto-approve', '--debug'], remoteEnv(), [1]);
    emulator.setFaults({ schedule: [{ method: 'PUT', path: '/nfse/configuracoes', nth: 1, fault: 'reset-after' }] });
    await run('apply, the NFS-e write answer is lost', ['apply', example, '--auto-approve', '--debug'], remoteEnv(), [0, 1]);
    emulator.setFaults(undefined);
    for (const format of await formatsOf('apply')) {
      await run(`apply ${format.name}`, ['apply', example, '--auto-approve', '--debug', ...format.flag], remoteEnv(), [0]);
    }
    expect(emulator.snapshot().nfseConfiguracoes.adicionais.cadastroPrefeitura.senha).toBe(password);
  });

  it('export: stdout, files, every format, failures', async () => {
    for (const format of await formatsOf('export')) {
      await run(`export ${format.name}`, ['export', ...format.flag], remoteEnv(), [0]);
      await run(`export ${format.name} --out`, ['export', '--out', `exported-${format.name}`, ...format.flag], remoteEnv(), [0]);
    }
    emulator.setFaults(nfseReadsFail);
    await run('export, the NFS-e read fails', ['export', '--debug'], remoteEnv(), [1]);
    emulator.setFaults(undefined);
  });

  it('login and OAuth runs: stored credentials, refresh, a rejected client secret', async () => {
    const env = { ...remoteEnv(), BLING_ACCESS_TOKEN: '' };
    const io = liveIO(env, cwd);
    const running = main(['login', '--base-url', emulator.baseUrl, '--redirect-uri', redirectUri, '--debug'], io);
    const [authorizeUrl] = await waitForOutput(io.out, /https?:\/\/\S+\/oauth\/authorize\?\S+/);
    expect((await fetch(authorizeUrl)).status).toBe(200);
    expect(await running).toBe(0);
    runs.push({ label: 'login', code: 0 });
    expect(leaksIn(`${io.out()}\n${io.err()}`)).toEqual([]);
    // With the stored refresh token: plan and drift over OAuth.
    await run('plan over OAuth', ['plan', example, '--debug'], env, [0]);
    // The example adopts the fresh account's own records, so nothing drifted.
    await run('drift over OAuth', ['drift', example, '--format', 'json'], env, [0]);

    const wrong = liveIO({ ...env, BLING_CLIENT_SECRET: `${clientSecret}-wrong` }, cwd);
    const refused = main(['login', '--base-url', emulator.baseUrl, '--redirect-uri', redirectUri, '--debug'], wrong);
    const [url] = await waitForOutput(wrong.out, /https?:\/\/\S+\/oauth\/authorize\?\S+/);
    await fetch(url);
    expect(await refused).toBe(1);
    runs.push({ label: 'login with a rejected secret', code: 1 });
    expect(leaksIn(`${wrong.out()}\n${wrong.err()}`)).toEqual([]);
    expect(leaksIn(`${clientSecret}-wrong`).length, 'the wrong secret contains the known one').toBeGreaterThan(0);
    // An expired access token makes the next run refresh, which the service refuses for the wrong secret.
    const file = path.join(cwd, '.erpsync/credentials.json');
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...stored, expiresAt: new Date(0).toISOString() }));
    await run('plan over OAuth, refresh rejected', ['plan', example, '--debug'], { ...env, BLING_CLIENT_SECRET: `${clientSecret}-wrong` }, [1]);
    await run('plan over OAuth, refreshed', ['plan', example, '--debug'], env, [0]);
  });

  it('sandbox: the command, and plan/apply against it', async () => {
    const controller = new AbortController();
    const io = liveIO(remoteEnv(), cwd, controller.signal);
    const serving = main(['sandbox', '--state', '.erpsync/sandbox-served.json'], io);
    await waitForOutput(io.out, /Press Ctrl-C/);
    controller.abort();
    expect(await serving).toBe(0);
    runs.push({ label: 'sandbox', code: 0 });
    expect(leaksIn(`${io.out()}\n${io.err()}`)).toEqual([]);

    const sandboxEnv = { NFSE_SENHA_PREFEITURA: password, BLING_CLIENT_SECRET: clientSecret };
    await run('apply to the sandbox', ['apply', example, '--sandbox', '--auto-approve'], sandboxEnv, [0]);
    for (const format of await formatsOf('plan')) await run(`plan sandbox ${format.name}`, ['plan', example, '--sandbox', ...format.flag], sandboxEnv, [0]);
    await run('drift sandbox', ['drift', example, '--sandbox'], sandboxEnv, [0]);
    await run('export sandbox', ['export', '--sandbox', '--out', 'exported-sandbox'], sandboxEnv, [0]);
  });

  it('every file erpsync wrote is free of secrets', () => {
    const written = filesUnder(cwd).filter((f) => !f.includes(`${path.sep}broken${path.sep}`));
    // Saved plan, reports of every format, exported manifests, credentials, sandbox states.
    expect(written.length).toBeGreaterThanOrEqual(8);
    // The journal of every apply is swept too: the NFS-e password changed in those runs.
    const journal = written.filter((f) => f.includes(`${path.sep}.erpsync${path.sep}journal${path.sep}`));
    expect(journal.length).toBeGreaterThanOrEqual(2);
    expect(journal.some((f) => readFileSync(f, 'utf8').includes('"path":"adicionais.cadastroPrefeitura.senha"'))).toBe(true);
    const leaks = written.flatMap((file) => leaksIn(readFileSync(file, 'latin1')).map((secret) => `${path.relative(cwd, file)} holds ${secret}`));
    expect(leaks).toEqual([]);
    expect(runs.length).toBeGreaterThanOrEqual(40);
  });
});
