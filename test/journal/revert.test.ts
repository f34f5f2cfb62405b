// plan --revert end to end through the CLI against the emulator over HTTP: a run that created,
// updated (a rename included) and deleted records is undone exactly — the emulator's state after
// the revert is the state before the run — and a record edited in the ERP since the run is shown as
// a conflict and left alone, unless --revert-conflicts.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { closeTestAccount, openTestAccount } from '../support/account.js';
import { runCli } from '../support/run-cli.js';

let emulator: Emulator;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  ({ emulator, dir, env } = await openTestAccount('erpsync-revert-'));
});
afterEach(() => closeTestAccount({ emulator, dir }));

const before = `version: 1
policy:
  prune: [gruposProdutos]
gruposProdutos:
  - nome: Maquiagem
  - nome: Perfumaria
  - nome: Velas
formasPagamentos:
  - descricao: Boleto da loja
    tipoPagamento: boleto
    finalidade: recebimentos
    destino: contas
    juros: 1
`;

// Creates Cosméticos, renames Perfumaria to Perfumes, deletes Velas, changes the boleto's interest.
const after = `version: 1
policy:
  prune: [gruposProdutos]
gruposProdutos:
  - nome: Maquiagem
  - nome: Perfumes
    previousNames: [Perfumaria]
  - nome: Cosméticos
formasPagamentos:
  - descricao: Boleto da loja
    tipoPagamento: boleto
    finalidade: recebimentos
    destino: contas
    juros: 2.5
`;

/** The account's records the test compares, without server clocks. */
function accountState() {
  const snapshot = emulator.snapshot();
  return {
    groups: snapshot.gruposProdutos.map((g) => ({ nome: g.nome, pai: g.idGrupoPai })).sort((a, b) => a.nome.localeCompare(b.nome)),
    payments: snapshot.formasPagamentos.map(({ id: _id, ...rest }) => rest).sort((a, b) => String(a.descricao).localeCompare(String(b.descricao))),
  };
}

function runIds(): string[] {
  return readdirSync(path.join(dir, '.erpsync/journal')).sort().map((name) => name.replace(/\.jsonl$/, ''));
}

async function put(resource: string, id: number | undefined, body: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${emulator.baseUrl}/${resource}/${id}`, { method: 'PUT', headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(response.status).toBeLessThan(300);
}

async function applyRun(manifest: string): Promise<string> {
  writeFileSync(path.join(dir, 'm.yaml'), manifest);
  const applied = await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env });
  expect(applied.code, applied.stderr).toBe(0);
  return runIds().at(-1) ?? '';
}

describe('plan --revert', () => {
  it('restores the account exactly: deletes what the run created, re-creates what it deleted, restores what it updated', async () => {
    await applyRun(before);
    const expected = accountState();
    const run = await applyRun(after);
    expect(accountState()).not.toEqual(expected);

    const planned = await runCli(['plan', '--revert', run, '--out', 'revert.json'], { cwd: dir, env });
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toMatch(/- gruposProdutos "Cosméticos" — delete/);
    expect(planned.stdout).toMatch(/\+ gruposProdutos "Velas" — create/);
    expect(planned.stdout).not.toContain('conflict');
    const applied = await runCli(['apply', 'revert.json', '--auto-approve'], { cwd: dir, env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(accountState()).toEqual(expected);
    // The revert is itself a run of the journal.
    expect(runIds()).toHaveLength(3);
  });

  it('restores a payment method the run retired, though the run read only its list (the fields only its detail has are as they were)', async () => {
    await applyRun(before);
    const expected = accountState();
    const run = await applyRun(`version: 1\npolicy:\n  retireInsteadOfDelete: [formasPagamentos]\nformasPagamentos:\n  - descricao: Boleto da loja\n    ensure: absent\n`);
    expect(emulator.snapshot().formasPagamentos.find((f) => f.descricao === 'Boleto da loja')?.situacao).toBe(0);
    const planned = await runCli(['plan', '--revert', run, '--out', 'revert.json'], { cwd: dir, env });
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toMatch(/~ formasPagamentos "Boleto da loja" — (update|set-status)/);
    expect((await runCli(['apply', 'revert.json', '--auto-approve'], { cwd: dir, env })).code).toBe(0);
    expect(accountState()).toEqual(expected);
  });

  it('shows a record edited since the run as a conflict and leaves it, unless --revert-conflicts', async () => {
    await applyRun(before);
    const run = await applyRun(after);
    const boleto = emulator.snapshot().formasPagamentos.find((f) => f.descricao === 'Boleto da loja');
    await put('formas-pagamentos', boleto?.id, { ...boleto, juros: 7 });

    const planned = await runCli(['plan', '--revert', run, '--json'], { cwd: dir, env });
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as { changes: { kind: string; key: string }[]; warnings: string[] };
    expect(plan.warnings.join('\n')).toMatch(/conflict: formasPagamentos "Boleto da loja" changed since the run: juros is 7, the run left 2.5/);
    expect(plan.changes.map((c) => c.kind)).not.toContain('formasPagamentos');
    expect(plan.changes.length).toBeGreaterThan(0);
    const text = await runCli(['plan', '--revert', run], { cwd: dir, env });
    expect(text.stdout).toContain('WARNING: conflict: formasPagamentos "Boleto da loja"');

    const forced = JSON.parse((await runCli(['plan', '--revert', run, '--revert-conflicts', '--json'], { cwd: dir, env })).stdout) as typeof plan;
    expect(forced.changes.find((c) => c.kind === 'formasPagamentos')).toBeDefined();
    expect(forced.warnings.join('\n')).toContain('undone anyway (--revert-conflicts)');
    expect(readFileSync(path.join(dir, 'm.yaml'), 'utf8')).toBe(after);
  });
});
