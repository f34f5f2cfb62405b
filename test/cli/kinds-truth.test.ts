// What the kinds promise is what the API does: fiado is writable (create-only, never drift), a
// native carrier's services switch on and off, and a kind that cannot be retired says so.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import type { TestAccount } from '../support/account.js';
import { closeTestAccount, openTestAccount } from '../support/account.js';

let account: TestAccount;
beforeEach(async () => {
  account = await openTestAccount('erpsync-kinds-truth-');
});
afterEach(async () => closeTestAccount(account));

async function applyThenReplan(manifest: string) {
  writeFileSync(path.join(account.dir, 'm.yaml'), manifest);
  const applied = await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: account.dir, env: account.env });
  const replan = await runCli(['plan', 'm.yaml', '--detailed-exitcode'], { cwd: account.dir, env: account.env });
  return { applied, replan };
}

/** The fresh account's native Correios with its (inactive) Mini Envios service, as the carrier set it up but for `fields`. */
const correios = (...fields: string[]) =>
  ['version: 1', 'logisticas:', '  - descricao: Correios', '    situacao: habilitada', '    servicos:', '      - codigo: "04227"', '        descricao: Mini Envios', '        estimativaEntrega: 10', ...fields.map((f) => `        ${f}`)].join('\n') + '\n';

describe('kinds tell the truth', () => {
  it('sets padrao fiado when creating a method, and never reports it as not converged or as drift', async () => {
    const { applied, replan } = await applyThenReplan('version: 1\nformasPagamentos:\n  - descricao: Fiado da loja\n    tipoPagamento: credito-loja\n    finalidade: recebimentos\n    destino: ficha-financeira\n    padrao: fiado\n');
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const created = account.emulator.snapshot().formasPagamentos.find((m) => m.descricao === 'Fiado da loja');
    expect(account.emulator.snapshot().idFormaPagamentoFiado).toBe(created?.id);
    expect(replan.code).toBe(0);
  });

  it("switches a native carrier's service on, and blocks what only the carrier may change", async () => {
    const { applied, replan } = await applyThenReplan(correios('ativo: true', 'freteItem: 0'));
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('~ logisticas › servicos "Correios > 04227" — set-status: differs from the manifest');
    expect(account.emulator.snapshot().servicosLogisticas.find((s) => s.codigo === '04227')?.ativo).toBe(true);
    expect(replan.code).toBe(0);
    writeFileSync(path.join(account.dir, 'm.yaml'), correios('ativo: true', 'freteItem: 5'));
    const blocked = await runCli(['plan', 'm.yaml'], { cwd: account.dir, env: account.env });
    expect(blocked.stdout).toContain('! logisticas › servicos "Correios > 04227" — blocked: the API cannot make this change');
  });

  it('a category tombstone under retireInsteadOfDelete is blocked with a note that says how to delete it', async () => {
    writeFileSync(path.join(account.dir, 'm.yaml'), 'version: 1\npolicy:\n  retireInsteadOfDelete: [categoriasReceitasDespesas]\ncategoriasReceitasDespesas:\n  - descricao: Tarifa bancária\n    ensure: absent\n');
    const plan = await runCli(['plan', 'm.yaml'], { cwd: account.dir, env: account.env });
    expect(plan.stdout).toContain('policy.retireInsteadOfDelete lists categoriasReceitasDespesas, but the API has no way to retire its records; take the kind out of that list to delete them');
  });
});
