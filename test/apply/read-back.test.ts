// Every write is read back and compared by meaning, in both emulator modes: values the service
// keeps in another form (money as float32, codes formatted — the readings seen on real accounts)
// are no change and leave a clean second plan, with no churn of the NFS-e tax entries; a field the
// service does not keep fails the apply naming it with both values; a run with nothing to change
// sends no read-back at all (the emulator's request log says so).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator, ReadingId } from '../../src/emulator/index.js';
import { emulatorModes } from '../../src/emulator/rules.js';
import type { EmulatorMode } from '../../src/emulator/rules.js';
import { runCli } from '../support/run-cli.js';

interface Account {
  emulator: Emulator;
  dir: string;
  env: NodeJS.ProcessEnv;
}

const open: Account[] = [];
afterEach(async () => {
  for (const account of open.splice(0)) {
    await account.emulator.close();
    rmSync(account.dir, { recursive: true, force: true });
  }
});

async function openAccount(mode: EmulatorMode, readings: readonly ReadingId[] = []): Promise<Account> {
  const emulator = await createEmulator({ seed: 'fresh', rateLimit: 0, mode, readings });
  const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-read-back-'));
  const account = { emulator, dir, env: { BLING_ACCESS_TOKEN: emulator.token, ERPSYNC_BASE_URL: emulator.baseUrl, ERPSYNC_RATE: '1000', ERPSYNC_LOCK_DIR: path.join(dir, '.locks'), NFSE_SENHA_PREFEITURA: 'senha' } };
  open.push(account);
  return account;
}

/** A payment method with money and rates that float32 cannot hold exactly, a card acquirer's CNPJ and NFS-e codes as bare digits. */
const manifest = `version: 1
formasPagamentos:
  - descricao: Boleto da loja
    tipoPagamento: boleto
    finalidade: recebimentos
    destino: contas
    juros: 1.33
    multa: 2.1
    taxas: { valor: 2.49, aliquota: 3.49 }
  - descricao: Cartão da loja
    tipoPagamento: cartao-credito
    finalidade: recebimentos
    destino: contas
    dadosCartao: { bandeira: visa, tipo: pos, cnpjCredenciadora: "11222333000181" }
configuracoesNfse:
  ISS:
    tributos:
      - CNAE: "9602501"
        descricaoServico: Maquiagem
        codigo: { listaServico: "0601" }
        percentualISS: 2.01
        padrao: true
  controle:
    numeracaoRPS: { cnpjEmitente: "11222333000181" }
  impostos:
    IR: { percentual: 1.7 }
`;

function writeManifest(account: Account, text: string): string {
  const file = path.join(account.dir, 'loja.yaml');
  writeFileSync(file, text);
  return file;
}

/** An account that holds the manifest, a proxy that drops `juros` from every payment-method PUT, and a manifest that changes it. */
async function changeJurosBehindADroppingProxy(mode: EmulatorMode): Promise<{ account: Account; file: string }> {
  const account = await openAccount(mode);
  const file = writeManifest(account, manifest);
  expect((await runCli(['apply', file, '--auto-approve'], { cwd: account.dir, env: account.env })).code).toBe(0);
  account.emulator.setFaults('drop=PUT/formas-pagamentos:juros');
  writeManifest(account, manifest.replace('juros: 1.33', 'juros: 1.5'));
  return { account, file };
}

const writesIn = (emulator: Emulator, from: number) => emulator.requestLog().slice(from).filter((e) => e.method !== 'GET');

for (const mode of emulatorModes) {
  describe(`the read-back after apply (${mode} mode)`, () => {
    it('takes float32 money and formatted codes as the values sent: noted once, no change, a clean second plan and no tax entry churn', async () => {
      const account = await openAccount(mode, ['float-noise', 'formatted-codes']);
      const file = writeManifest(account, manifest);
      const applied = await runCli(['apply', file, '--auto-approve'], { cwd: account.dir, env: account.env });
      expect(applied.stderr).toBe('');
      expect(applied.code).toBe(0);
      // The service answers what it holds in its own form; the apply says so, and converges.
      expect(applied.stdout).toContain('note: the account holds 2.490000009536743 where the manifest has 2.49');
      expect(applied.stdout).toContain('note: the account holds "9602-5/01" where the manifest has "9602501"');
      expect(applied.stdout).toContain('note: the account holds "11.222.333/0001-81" where the manifest has "11222333000181"');
      expect(applied.stdout).not.toContain('not converged');
      const entryIds = account.emulator.snapshot().nfseConfiguracoes.ISS.tributos.map((t) => t.id);

      const plan = await runCli(['plan', file, '--detailed-exitcode'], { cwd: account.dir, env: account.env });
      expect(plan.stdout).toContain('No changes');
      expect(plan.code).toBe(0);
      const before = account.emulator.requestLog().length;
      const again = await runCli(['apply', file, '--auto-approve'], { cwd: account.dir, env: account.env });
      expect(again.code).toBe(0);
      expect(writesIn(account.emulator, before)).toEqual([]);
      expect(account.emulator.snapshot().nfseConfiguracoes.ISS.tributos.map((t) => t.id)).toEqual(entryIds);
    });

    it('fails the apply (exit 1) when the service drops a written field, naming the record, the field, what was sent and what it holds', async () => {
      const { account, file } = await changeJurosBehindADroppingProxy(mode);
      const applied = await runCli(['apply', file, '--auto-approve'], { cwd: account.dir, env: account.env });
      expect(applied.code).toBe(1);
      expect(applied.stdout).toContain('formasPagamentos "Boleto da loja": juros was not kept: sent 1.5, the account holds 0');
      expect(account.emulator.snapshot().formasPagamentos.find((m) => m.descricao === 'Boleto da loja')?.juros).toBe(0);
    });

    it('reports a field that keeps failing as one the service does not keep, and stops sending it', async () => {
      const { account, file } = await changeJurosBehindADroppingProxy(mode);
      const first = await runCli(['apply', file, '--auto-approve'], { cwd: account.dir, env: account.env });
      expect(first.code).toBe(1);
      expect(first.stdout).not.toContain('does not keep this field');
      const second = await runCli(['apply', file, '--auto-approve'], { cwd: account.dir, env: account.env });
      expect(second.code).toBe(1);
      expect(second.stdout).toContain('juros was not kept: sent 1.5, the account holds 0 — the service does not keep this field (not kept on 2 runs)');
      // The third run sends it no more: the plan says why, and nothing is written.
      const before = account.emulator.requestLog().length;
      const third = await runCli(['apply', file, '--auto-approve'], { cwd: account.dir, env: account.env });
      expect(third.code).toBe(0);
      expect(`${third.stdout}${third.stderr}`).toContain('juros: the service does not keep this field');
      expect(writesIn(account.emulator, before)).toEqual([]);
      // A new value in the manifest is sent again.
      account.emulator.setFaults(undefined);
      writeManifest(account, manifest.replace('juros: 1.33', 'juros: 1.75'));
      expect((await runCli(['apply', file, '--auto-approve'], { cwd: account.dir, env: account.env })).code).toBe(0);
      expect(account.emulator.snapshot().formasPagamentos.find((m) => m.descricao === 'Boleto da loja')?.juros).toBe(1.75);
    });

    it('sends no read-back when there is nothing to change', async () => {
      const account = await openAccount(mode);
      const file = writeManifest(account, manifest);
      expect((await runCli(['apply', file, '--auto-approve'], { cwd: account.dir, env: account.env })).code).toBe(0);
      const beforePlan = account.emulator.requestLog().length;
      expect((await runCli(['plan', file], { cwd: account.dir, env: account.env })).code).toBe(0);
      const planReads = account.emulator.requestLog().slice(beforePlan);
      const beforeApply = account.emulator.requestLog().length;
      const again = await runCli(['apply', file, '--auto-approve'], { cwd: account.dir, env: account.env });
      expect(again.code).toBe(0);
      // The apply sends exactly the plan's reads, no more: no write, and no request to verify one.
      const sent = account.emulator.requestLog().slice(beforeApply);
      expect(sent.map((e) => `${e.method} ${e.path}?${e.query}`)).toEqual(planReads.map((e) => `${e.method} ${e.path}?${e.query}`));
      expect(sent.every((e) => e.method === 'GET')).toBe(true);
    });
  });
}
