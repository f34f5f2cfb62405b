// A change is its requests: when the answer of a create that carries more is lost (the emulator
// resets the connection after the POST committed), apply finds the record, adopts it, and still
// sends what the change needs after the POST — a payment method's default by PATCH; a logistics'
// services ride in its own POST. One apply converges with exit 0, and only when the follow-up went
// out: a follow-up that fails fails the change, saying the record was made.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import type { TestAccount } from '../support/account.js';
import { closeTestAccount, openTestAccount } from '../support/account.js';
import { runCli } from '../support/run-cli.js';

let account: TestAccount | undefined;
afterEach(async () => {
  if (account) await closeTestAccount(account);
  account = undefined;
});

async function openWith(manifest: string): Promise<TestAccount & { run: (...args: string[]) => ReturnType<typeof runCli> }> {
  account = await openTestAccount('erpsync-lost-answer-', { ERPSYNC_OUTCOME_WAIT: '2' });
  writeFileSync(path.join(account.dir, 'm.yaml'), manifest);
  const { dir, env } = account;
  return { ...account, run: (...args) => runCli(args, { cwd: dir, env }) };
}

const defaultOf = (emulator: Emulator, finalidade: number, padrao: number) =>
  emulator.snapshot().formasPagamentos.filter((m) => m.finalidade === finalidade && m.padrao === padrao).map((m) => m.descricao);

const paymentMethod = (padrao: string) =>
  ['version: 1', 'formasPagamentos:', '  - descricao: Boleto da loja', '    tipoPagamento: boleto', '    finalidade: recebimentos', '    destino: contas', `    padrao: ${padrao}`, ''].join('\n');

describe('a create whose answer is lost', () => {
  it.each([
    ['padrao', 1],
    ['padrao-devolucao', 2],
  ] as const)('payment method with padrao %s: adopted, then its PATCH sent; the default really moved', async (label, code) => {
    const { run, emulator } = await openWith(paymentMethod(label));
    const before = defaultOf(emulator, 2, code);
    expect(before).not.toContain('Boleto da loja');
    emulator.setFaults({ schedule: [{ method: 'POST', path: '/formas-pagamentos', nth: 1, fault: 'reset-after' }] });
    const applied = await run('apply', 'm.yaml', '--auto-approve');
    expect(applied.code, applied.stderr + applied.stdout).toBe(0);
    expect(emulator.snapshot().formasPagamentos.filter((m) => m.descricao === 'Boleto da loja')).toHaveLength(1);
    expect(defaultOf(emulator, 2, code)).toEqual(['Boleto da loja']);
    expect(emulator.requestLog().filter((e) => e.method === 'PATCH' && e.path.endsWith('/padrao'))).toHaveLength(1);
    const replanned = await run('plan', 'm.yaml', '--detailed-exitcode');
    expect(replanned.code, replanned.stdout).toBe(0);
  });

  it('payment method whose follow-up PATCH fails too: exit 1, naming the record made and what did not follow', async () => {
    const { run, emulator } = await openWith(paymentMethod('padrao'));
    emulator.setFaults({
      schedule: [
        { method: 'POST', path: '/formas-pagamentos', nth: 1, fault: 'reset-after' },
        { method: 'PATCH', nth: 1, fault: 'http500' },
      ],
    });
    const applied = await run('apply', 'm.yaml', '--auto-approve');
    expect(applied.code).toBe(1);
    expect(`${applied.stdout}${applied.stderr}`).toMatch(/created \(id \d+, found after its answer was lost\), but what follows the create failed: PATCH \/formas-pagamentos\/\d+\/padrao/);
    expect(defaultOf(emulator, 2, 1)).not.toContain('Boleto da loja');
    // The next apply finishes the change: no twin, the default moves.
    emulator.setFaults({});
    expect((await run('apply', 'm.yaml', '--auto-approve')).code).toBe(0);
    expect(emulator.snapshot().formasPagamentos.filter((m) => m.descricao === 'Boleto da loja')).toHaveLength(1);
    expect(defaultOf(emulator, 2, 1)).toEqual(['Boleto da loja']);
  });

  it('logistics with nested services: adopted with the services its POST carried, and read back', async () => {
    const manifest = [
      'version: 1',
      'logisticas:',
      '  - descricao: Entrega própria',
      '    situacao: habilitada',
      '    servicos:',
      '      - { codigo: MOTO, descricao: Motoboy, freteItem: 0, estimativaEntrega: 1, aliases: [moto] }',
      '      - { codigo: RETIRA, descricao: Retirada na loja, freteItem: 0, estimativaEntrega: 0, aliases: [] }',
      '',
    ].join('\n');
    const { run, emulator } = await openWith(manifest);
    emulator.setFaults({ schedule: [{ method: 'POST', path: '/logisticas', nth: 1, fault: 'reset-after' }] });
    const applied = await run('apply', 'm.yaml', '--auto-approve');
    expect(applied.code, applied.stderr + applied.stdout).toBe(0);
    const state = emulator.snapshot();
    const own = state.logisticas.filter((l) => l.descricao === 'Entrega própria');
    expect(own).toHaveLength(1);
    expect(state.servicosLogisticas.filter((s) => s.idLogistica === own[0]?.id).map((s) => s.codigo).sort()).toEqual(['MOTO', 'RETIRA']);
    expect((await run('plan', 'm.yaml', '--detailed-exitcode')).code).toBe(0);
  });
});
