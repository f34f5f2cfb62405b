// examples/loja-nova is what a new store copies: applied to a fresh account, the account and the
// example agree at once — a nightly `drift` on it passes from day one, and a re-plan is empty.
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import type { TestAccount } from '../support/account.js';
import { closeTestAccount, openTestAccount } from '../support/account.js';

const example = path.resolve(import.meta.dirname, '../../examples/loja-nova');
let account: TestAccount;

beforeEach(async () => {
  account = await openTestAccount('erpsync-loja-nova-');
});
afterEach(async () => closeTestAccount(account));

describe('examples/loja-nova on a fresh account', () => {
  it('applies, then drift reports nothing (exit 0) and a plan is empty', async () => {
    const env = { ...account.env, NFSE_SENHA_PREFEITURA: 'senha-de-teste' };
    const applied = await runCli(['apply', example, '--auto-approve'], { cwd: account.dir, env });
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).not.toContain('did not take');
    const drift = await runCli(['drift', example], { cwd: account.dir, env });
    expect(drift.stdout).toContain('No drift: the account matches the manifests');
    expect(drift.code).toBe(0);
    const plan = await runCli(['plan', example, '--detailed-exitcode'], { cwd: account.dir, env });
    expect(plan.code).toBe(0);
    // The account's own "Pix" is adopted, not duplicated under another case.
    expect(account.emulator.snapshot().formasPagamentos.filter((m) => m.descricao.toLowerCase() === 'pix')).toHaveLength(1);
  });
});
