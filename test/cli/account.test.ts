// Every run names the account it talks to on its first line (sandbox, token, OAuth, named target),
// JSON carries the same identity, and a saved plan applies only to the account it was made on —
// even when another account answers behind the same base URL.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storedFromTokenSet, writeCredentialsFile } from '../../src/api/index.js';
import { createEmulator, defaultOAuthClient } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { authorizeOnEmulator } from '../api/support.js';
import { closeTestAccount, groupNamesOf, groupsManifest, openTestAccount } from '../support/account.js';
import { runCli } from '../support/run-cli.js';

let emulator: Emulator;
let dir: string;
let env: NodeJS.ProcessEnv;
const sandboxAccount = 'Account: Loja Sandbox Ltda (CNPJ 12.345.678/0001-90)';

beforeEach(async () => {
  ({ emulator, dir, env } = await openTestAccount('erpsync-account-'));
  writeFileSync(path.join(dir, 'm.yaml'), groupsManifest(['Maquiagem']));
});
afterEach(() => closeTestAccount({ emulator, dir }));

const firstLine = (text: string): string => text.split('\n')[0] ?? '';

describe('the first line names the account', () => {
  it('with a token, in text and JSON', async () => {
    const host = new URL(emulator.baseUrl).host;
    const plan = await runCli(['plan', 'm.yaml'], { cwd: dir, env });
    expect(firstLine(plan.stdout)).toBe(`${sandboxAccount} · ${host} · token from BLING_ACCESS_TOKEN`);
    const json = await runCli(['plan', 'm.yaml', '--json'], { cwd: dir, env });
    expect(firstLine(json.stderr)).toBe(`${sandboxAccount} · ${host} · token from BLING_ACCESS_TOKEN`);
    expect(JSON.parse(json.stdout)).toMatchObject({ target: { name: 'default', account: { id: emulator.snapshot().empresa?.id, nome: 'Loja Sandbox Ltda', cnpj: '12.345.678/0001-90' } } });
    const exported = await runCli(['export', '--out', 'exported', '--json'], { cwd: dir, env });
    expect(JSON.parse(exported.stdout)).toMatchObject({ target: { account: { nome: 'Loja Sandbox Ltda' } } });
    // The identity costs one request, and the plan says so.
    expect(emulator.requestLog().filter((e) => e.path === '/empresas/me/dados-basicos')).toHaveLength(3);
    expect(JSON.parse(json.stdout).cost.reads).toBe(2);
  });

  it('on the sandbox, with its state file', async () => {
    const run = await runCli(['plan', 'm.yaml', '--sandbox', '--sandbox-state', 'state.json'], { cwd: dir, env: {} });
    expect(firstLine(run.stdout)).toBe(`${sandboxAccount} · local sandbox (state in state.json)`);
  });

  it('with OAuth credentials, and with a named target', async () => {
    const tokens = await authorizeOnEmulator(emulator, defaultOAuthClient);
    await writeCredentialsFile(path.join(dir, '.erpsync', 'credentials.json'), storedFromTokenSet(tokens, { clientId: defaultOAuthClient.clientId, tokenUrl: `${emulator.baseUrl}/oauth/token`, now: Date.now() }));
    const host = new URL(emulator.baseUrl).host;
    const oauth = await runCli(['drift', 'm.yaml'], { cwd: dir, env: { ERPSYNC_BASE_URL: emulator.baseUrl } });
    expect(firstLine(oauth.stdout)).toBe(`${sandboxAccount} · ${host} · OAuth credentials in .erpsync/credentials.json`);

    writeFileSync(path.join(dir, 'erpsync.config.yaml'), `targets:\n  loja-sul:\n    baseUrl: ${emulator.baseUrl}\n    credentials: { tokenEnv: SUL_TOKEN }\n`);
    const named = await runCli(['plan', 'm.yaml', '--target', 'loja-sul'], { cwd: dir, env: { SUL_TOKEN: emulator.token } });
    expect(firstLine(named.stdout)).toBe(`${sandboxAccount} · ${host} · target loja-sul`);
  });
});

describe('a saved plan and another account', () => {
  it('is refused (exit 3) on another account behind the same base URL, before anything is read or written', async () => {
    expect((await runCli(['plan', 'm.yaml', '--out', 'plan.json'], { cwd: dir, env })).code).toBe(0);
    const port = Number(new URL(emulator.baseUrl).port);
    await emulator.close();
    // Another store answers at the same address, with the same token.
    emulator = await createEmulator({ rateLimit: 0, port, token: emulator.token, company: { id: 'f'.repeat(32), nome: 'Outra Loja Ltda', cnpj: '98.765.432/0001-10' } });
    const refused = await runCli(['apply', 'plan.json', '--auto-approve'], { cwd: dir, env });
    expect(refused.code).toBe(3);
    expect(firstLine(refused.stdout)).toContain('Account: Outra Loja Ltda (CNPJ 98.765.432/0001-10)');
    expect(refused.stderr).toContain('the plan was made on the account Loja Sandbox Ltda (CNPJ 12.345.678/0001-90), but these credentials reach Outra Loja Ltda');
    expect(emulator.requestLog().map((e) => `${e.method} ${e.path}`)).toEqual(['GET /empresas/me/dados-basicos']);
    expect(groupNamesOf(emulator)).toEqual([]);
  });
});
