// Every PUT sends every field the record holds, so what the service does with an omitted field
// never matters. Under the emulator's `put-resets-padrao` reading (real-observations #10: an
// omitted field was sometimes set to 0), a payment-method PUT without `padrao` would leave the
// store without its default.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator, EmulatorMode } from '../../src/emulator/index.js';
import { actionable, applyOnce, loadDesiredOrThrow, planNow } from '../reliability/support/pipeline.js';

const emulators: Emulator[] = [];
afterEach(async () => {
  for (const emulator of emulators.splice(0)) await emulator.close();
});

async function manifest(yaml: string) {
  const dir = mkdtempSync(`${tmpdir()}/erpsync-put-`);
  writeFileSync(`${dir}/m.yaml`, `version: 1\nformasPagamentos:\n${yaml}`);
  return loadDesiredOrThrow(['m.yaml'], dir, {});
}

const method = (descricao: string, extra: string) => `  - { descricao: ${descricao}, tipoPagamento: 17, finalidade: 3, destino: 3${extra} }\n`;

function padraoOf(emulator: Emulator, descricao: string): number | undefined {
  return emulator.snapshot().formasPagamentos.find((m) => m.descricao === descricao)?.padrao;
}

async function applyClean(emulator: Emulator, yaml: string): Promise<void> {
  const desired = await manifest(yaml);
  const run = await applyOnce(emulator, desired);
  expect(run.error).toBeUndefined();
  expect(run.result?.failed).toBe(0);
  expect(actionable(await planNow(emulator, desired))).toEqual([]);
}

describe.each<EmulatorMode>(['strict', 'lenient'])('a PUT of the default payment method (%s mode, padrao reset on omission)', (mode) => {
  it('keeps it the default, whether the manifest names the default or not', async () => {
    const emulator = await createEmulator({ seed: 'fresh', rateLimit: 0, mode, readings: ['put-resets-padrao'] });
    emulators.push(emulator);
    await applyClean(emulator, method('Pix loja', ', padrao: padrao'));
    expect(padraoOf(emulator, 'Pix loja')).toBe(1);
    // An edit of another field is one PUT; the default rides in it.
    await applyClean(emulator, method('Pix loja', ', padrao: padrao, juros: 2'));
    expect(padraoOf(emulator, 'Pix loja')).toBe(1);
    // A manifest that does not manage padrao leaves it as the account holds it.
    await applyClean(emulator, method('Pix loja', ', juros: 3'));
    expect(padraoOf(emulator, 'Pix loja')).toBe(1);
    expect(emulator.snapshot().formasPagamentos.find((m) => m.descricao === 'Pix loja')?.juros).toBe(3);
  });

  it('lets the default move to another method edited in the same apply, and stay there', async () => {
    const emulator = await createEmulator({ seed: 'fresh', rateLimit: 0, mode, readings: ['put-resets-padrao'] });
    emulators.push(emulator);
    await applyClean(emulator, method('Pix loja', ', padrao: padrao') + method('Pix balcão', ''));
    // The old holder is edited (a PUT carrying its default as read) while the default moves away.
    await applyClean(emulator, method('Pix loja', ', juros: 1') + method('Pix balcão', ', padrao: padrao, juros: 1'));
    expect(padraoOf(emulator, 'Pix balcão')).toBe(1);
    expect(padraoOf(emulator, 'Pix loja')).toBe(0);
  });
});
