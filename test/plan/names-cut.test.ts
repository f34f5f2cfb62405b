// A service that cuts long names (the emulator's `names-truncated` reading, 40 characters, under the offline limit of 60) must not
// make every run plan a twin of the record it stored: the cut name is recognised as the manifest's
// record, with a warning that says what the service stored, and the next plan is empty.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator, truncatedNameLength } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { registry } from '../../src/kinds/registry.js';
import { buildPlan } from '../../src/plan/build-plan.js';
import { actionable, applyOnce, loadDesiredOrThrow, openClient, readAccount } from '../reliability/support/pipeline.js';

const emulators: Emulator[] = [];
afterEach(async () => {
  for (const emulator of emulators.splice(0)) await emulator.close();
});

const longName = 'Pix da loja matriz para pedidos do marketplace e do centro';

async function manifest(yaml: string) {
  const dir = mkdtempSync(`${tmpdir()}/erpsync-cut-`);
  writeFileSync(`${dir}/m.yaml`, `version: 1\n${yaml}`);
  return loadDesiredOrThrow(['m.yaml'], dir, {});
}

describe('a service that cuts long names', () => {
  it('stores the name cut, and the next plans recognise the record instead of creating it again', async () => {
    const emulator = await createEmulator({ seed: 'fresh', rateLimit: 0, readings: ['names-truncated'] });
    emulators.push(emulator);
    const desired = await manifest(`formasPagamentos:\n  - { descricao: ${longName}, tipoPagamento: 17, finalidade: 3, destino: 3, juros: 1 }\n`);
    const first = await applyOnce(emulator, desired);
    expect(first.result?.failed).toBe(0);
    const cut = [...longName].slice(0, truncatedNameLength).join('');
    expect(emulator.snapshot().formasPagamentos.filter((m) => m.descricao.startsWith('Pix da loja')).map((m) => m.descricao)).toEqual([cut]);

    const client = openClient(emulator);
    try {
      const live = await readAccount(client, desired);
      const result = buildPlan(desired, live, registry.units, { target: { mode: 'remote', id: emulator.baseUrl, name: 'default', account: { id: 'a', nome: 'Loja', cnpj: '' } }, allowReplace: false, allowCascade: false, rate: 2.5 });
      expect(actionable(result.plan)).toEqual([]);
      expect(result.diagnostics).toEqual([
        expect.objectContaining({ severity: 'warning', code: 'name-cut-by-service', message: expect.stringContaining(`cut to ${truncatedNameLength} characters (\`${cut}\``) as string }),
      ]);
    } finally {
      await client.close();
    }
    // An edit of another field still reaches the record; no twin ever appears.
    const edited = await manifest(`formasPagamentos:\n  - { descricao: ${longName}, tipoPagamento: 17, finalidade: 3, destino: 3, juros: 2 }\n`);
    const second = await applyOnce(emulator, edited);
    expect(second.plan && actionable(second.plan).map((c) => c.action)).toEqual(['update']);
    expect(emulator.snapshot().formasPagamentos.filter((m) => m.descricao.startsWith('Pix da loja')).map((m) => [m.descricao, m.juros])).toEqual([[cut, 2]]);
  });

  it('never takes a short name for a cut one', async () => {
    const emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
    emulators.push(emulator);
    const run = await applyOnce(emulator, await manifest('formasPagamentos:\n  - { descricao: Pix loja centro e marketplace, tipoPagamento: 17, finalidade: 3, destino: 3 }\n'));
    expect(run.plan && actionable(run.plan).map((c) => `${c.action} ${c.key}`)).toEqual(['create Pix loja centro e marketplace']);
  });
});
