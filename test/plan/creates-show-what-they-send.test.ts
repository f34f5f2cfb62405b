// A create's plan shows every field its requests send, and sends none it does not show: a payment
// method's `padrao: fiado` (set by the PATCH after the POST, never read back, so never compared)
// is among the create's fields; a child category's grupoDRE (the service derives it from the
// parent) is warned about and neither shown nor sent.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openTestAccount } from '../export/support.js';
import type { TestAccount } from '../export/support.js';
import type { Plan } from '../../src/model/plan.js';
import { runCli } from '../support/run-cli.js';

let account: TestAccount | undefined;
afterEach(async () => {
  await account?.close();
  account = undefined;
});

const manifest = `version: 1
formasPagamentos:
  - descricao: Crediário da loja
    tipoPagamento: credito-loja
    finalidade: recebimentos
    destino: ficha-financeira
    padrao: fiado
categoriasReceitasDespesas:
  - descricao: Marketing
    tipo: despesa
    grupoDRE: despesas-operacionais
  - descricao: Anúncios
    tipo: despesa
    categoriaPai: Marketing
    grupoDRE: outras-despesas
`;

describe('what a create sends is what its plan shows', () => {
  it('shows padrao: fiado among the fields of the create that sets it; leaves a child category its parent DRE group', async () => {
    account = await openTestAccount();
    mkdirSync(path.join(account.dir, 'm'));
    writeFileSync(path.join(account.dir, 'm/store.yaml'), manifest);
    const { dir, env, emulator } = account;
    const run = (...args: string[]) => runCli(args, { cwd: dir, env });

    const plan = JSON.parse((await run('plan', 'm', '--json')).stdout) as Plan;
    const fieldsOf = (key: string) => plan.changes.find((c) => c.key === key)?.fields.map((f) => `${f.path}=${JSON.stringify(f.after)}`);
    expect(fieldsOf('Crediário da loja')).toContain('padrao=3');
    expect(fieldsOf('Marketing > Anúncios')).toEqual(['descricao="Anúncios"', 'tipo=1', 'categoriaPai="Marketing"']);
    const text = await run('plan', 'm');
    expect(text.stdout).toContain('padrao: 3 (fiado)');
    expect(text.stderr).toContain('warning: derived-field: grupoDRE is ignored on a child category');

    expect((await run('apply', 'm', '--auto-approve')).code).toBe(0);
    const state = emulator.snapshot();
    const crediario = state.formasPagamentos.find((f) => f.descricao === 'Crediário da loja');
    expect(state.idFormaPagamentoFiado).toBe(crediario?.id);
    const groups = Object.fromEntries(state.categoriasReceitasDespesas.map((c) => [c.descricao, c.idGrupoDre]));
    expect([groups.Marketing, groups['Anúncios']]).toEqual([7, 7]);
    expect((await run('plan', 'm', '--detailed-exitcode')).code).toBe(0);
  });
});
