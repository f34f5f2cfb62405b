// Reverse logistics (an integration's, seeded in every fresh sandbox) are read right under both
// readings of `logisticasReversas`: listed by default (the documented one: `true` narrows) or left
// out unless asked for (the `reverse-logistics-hidden` reading). Either way a manifest that names
// one adopts it rather than planting a twin, and a prune of the kind never removes one unasked.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator, ReadingId } from '../../src/emulator/index.js';
import { actionable, applyOnce, loadDesiredOrThrow, planNow } from '../reliability/support/pipeline.js';

const emulators: Emulator[] = [];
afterEach(async () => {
  for (const emulator of emulators.splice(0)) await emulator.close();
});

async function account(readings: ReadingId[]): Promise<Emulator> {
  const emulator = await createEmulator({ seed: 'fresh', rateLimit: 0, readings });
  emulators.push(emulator);
  return emulator;
}

async function manifest(yaml: string) {
  const dir = mkdtempSync(`${tmpdir()}/erpsync-reverse-`);
  writeFileSync(`${dir}/m.yaml`, `version: 1\n${yaml}`);
  return loadDesiredOrThrow(['m.yaml'], dir, {});
}

const reverse = (emulator: Emulator) => emulator.snapshot().logisticas.filter((l) => l.reversa);

describe.each<[string, ReadingId[]]>([
  ['listed by default', []],
  ['left out unless asked for', ['reverse-logistics-hidden']],
])('reverse logistics %s', (_reading, readings) => {
  it('are not pruned when the manifests own the kind, nor their services', async () => {
    const emulator = await account(readings);
    const desired = await manifest(
      'policy:\n  prune: [logisticas]\nlogisticas:\n  - descricao: Motoboy\n    situacao: habilitada\n    servicos:\n      - { codigo: EXP, descricao: Expresso, freteItem: 1, estimativaEntrega: 1 }\n',
    );
    const plan = await planNow(emulator, desired);
    expect(plan.changes.filter((c) => c.key.includes('reversa'))).toEqual([]);
    const run = await applyOnce(emulator, desired);
    expect(run.result?.failed).toBe(0);
    expect(reverse(emulator).map((l) => l.descricao)).toEqual(['Melhor Envio reversa']);
    expect(emulator.snapshot().servicosLogisticas.filter((s) => s.codigo === 'REVERSA')).toHaveLength(1);
    expect(actionable(await planNow(emulator, desired))).toEqual([]);
  });

  it('are adopted, not twinned, when a manifest names one', async () => {
    const emulator = await account(readings);
    const desired = await manifest('logisticas:\n  - descricao: Melhor Envio reversa\n    situacao: desabilitada\n');
    const plan = await planNow(emulator, desired);
    expect(actionable(plan).map((c) => `${c.action} ${c.key}`)).toEqual(['update Melhor Envio reversa']);
    const run = await applyOnce(emulator, desired);
    expect(run.result?.failed).toBe(0);
    expect(reverse(emulator)).toEqual([expect.objectContaining({ descricao: 'Melhor Envio reversa', situacao: 'D' })]);
    expect(emulator.snapshot().logisticas.filter((l) => l.descricao === 'Melhor Envio reversa')).toHaveLength(1);
    expect(actionable(await planNow(emulator, desired))).toEqual([]);
  });
});
