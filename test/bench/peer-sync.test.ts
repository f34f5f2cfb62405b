// The bench's peer script (bench/peer-sync.ts) is only a fair yardstick while it really syncs: on
// a fresh account it must bring examples/loja-nova to the state erpsync's plan calls "no
// changes", and a second run must find nothing to write. Speed is the bench's business, not this test's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { syncLikeAScript } from '../../bench/peer-sync.js';
import { writeChangeMix } from '../../bench/workloads.js';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { actionable, loadDesiredOrThrow, planNow } from '../reliability/support/pipeline.js';

const example = path.resolve(import.meta.dirname, '../../examples/loja-nova');
const env = { NFSE_SENHA_PREFEITURA: 'senha-de-teste' };
let emulator: Emulator | undefined;
let scratch: string | undefined;

afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

const pending = async (at: Emulator, desired: Awaited<ReturnType<typeof loadDesiredOrThrow>>) =>
  actionable(await planNow(at, desired)).map((c) => `${c.action} ${c.kind} ${c.key}`);

describe('the bench peer script', () => {
  it('brings loja-nova to "no changes" on a fresh account, and a second run writes nothing', async () => {
    emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
    const desired = await loadDesiredOrThrow([example], example, env);
    const connection = { token: emulator.token, baseUrl: emulator.baseUrl };

    await syncLikeAScript(desired, connection);
    expect(await pending(emulator, desired)).toEqual([]);
    const state = emulator.snapshot();
    expect(state.gruposProdutos.map((g) => g.nome).sort()).toEqual(['Importados', 'Linha Flor do Cerrado', 'Linha Mar Aberto', 'Marcas próprias', 'Nacionais', 'Revenda']);
    expect(state.servicosLogisticas.filter((s) => s.codigo.startsWith('MOTO-')).map((s) => s.codigo).sort()).toEqual(['MOTO-AGENDADA', 'MOTO-EXPRESSA']);

    emulator.clearLog();
    await syncLikeAScript(desired, connection);
    expect(emulator.requestLog().filter((e) => e.method !== 'GET')).toEqual([]);
  });

  it('then follows the bench\'s change mix: the default moves, services come and go, renames, deletes', async () => {
    emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
    const connection = { token: emulator.token, baseUrl: emulator.baseUrl };
    await syncLikeAScript(await loadDesiredOrThrow([example], example, env), connection);
    scratch = mkdtempSync(path.join(tmpdir(), 'erpsync-peer-mix-'));
    const mix = await loadDesiredOrThrow([writeChangeMix(example, path.join(scratch, 'change-mix'))], scratch, env);

    await syncLikeAScript(mix, connection);
    expect(await pending(emulator, mix)).toEqual([]);
    const state = emulator.snapshot();
    expect(state.formasPagamentos.find((m) => m.padrao === 1)?.descricao).toBe('Boleto bancário');
    expect(state.gruposProdutos.map((g) => g.nome).sort()).toEqual(['Importados', 'Linha Flor do Cerrado', 'Marcas próprias', 'Nacionais', 'Parceiros']);
    expect(state.servicosLogisticas.find((s) => s.codigo === 'MOTO-AGENDADA')?.ativo).toBe(false);
  });
});
