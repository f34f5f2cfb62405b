// A list that does not page as documented (real-observations #1: GET /categorias/receitas-despesas
// answered all 62 records to `limite=1`) is read whole once, with a note, never an error; the plan
// counts what reading it again really costs. The emulator's `categories-unpaged` reading models it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { applyAndCount, loadDesiredOrThrow } from '../reliability/support/pipeline.js';

const emulators: Emulator[] = [];
afterEach(async () => {
  for (const emulator of emulators.splice(0)) await emulator.close();
});

async function unpagedAccount(): Promise<Emulator> {
  const emulator = await createEmulator({ seed: 'fresh', rateLimit: 0, readings: ['categories-unpaged'] });
  emulators.push(emulator);
  return emulator;
}

function categories(count: number, extra = ''): string {
  const rows = Array.from({ length: count }, (_, i) => `  - { descricao: Despesa ${String(i + 1).padStart(3, '0')}, tipo: despesa }\n`);
  return `version: 1\ncategoriasReceitasDespesas:\n${rows.join('')}${extra}`;
}

/** Applies the manifest; what was predicted and what was sent. */
async function applyManifest(emulator: Emulator, yaml: string) {
  const dir = mkdtempSync(`${tmpdir()}/erpsync-unpaged-`);
  writeFileSync(`${dir}/m.yaml`, yaml);
  const run = await applyAndCount(emulator, await loadDesiredOrThrow(['m.yaml'], dir, {}));
  const { reads, writes, verifyReads = 0 } = run.plan.cost;
  return { ...run, sent: run.log.length, predicted: reads + writes + verifyReads };
}

describe('a list that ignores limite and pagina', () => {
  it('plans and applies 250 categories correctly, reads the list once, notes it, and keeps the cost line exact', async () => {
    const emulator = await unpagedAccount();
    const first = await applyManifest(emulator, categories(250));
    expect(first.result.failed).toBe(0);
    expect(first.notConverged).toEqual([]);
    // 62 records fit one page, so nothing told the plan that this list ignores paging: it counted
    // the read-back at four pages (312 records) and the service answered all of them to the first.
    // A list that turns out unpaged costs less than predicted, never more.
    expect(first.predicted - first.sent).toBe(3);
    expect(first.log.filter((e) => e.method === 'GET' && e.path === '/categorias/receitas-despesas')).toHaveLength(2);
    const own = emulator.snapshot().categoriasReceitasDespesas.filter((c) => c.descricao.startsWith('Despesa '));
    expect(own).toHaveLength(250);

    // 312 records now: one answer holds them all, so the read is one request and a note says why.
    const again = await applyManifest(emulator, categories(250));
    expect(again.plan.changes.filter((c) => c.action !== 'blocked')).toEqual([]);
    expect(again.log.filter((e) => e.path === '/categorias/receitas-despesas')).toHaveLength(1);
    expect(again.plan.warnings.join('\n')).toMatch(/GET \/categorias\/receitas-despesas answered 312 records to limite=100: the service does not page this list/);

    // Growing past another hundred costs no extra page: the prediction knows the list comes whole.
    const grown = await applyManifest(emulator, categories(345));
    expect(grown.result.failed).toBe(0);
    expect(grown.plan.changes.filter((c) => c.action === 'create')).toHaveLength(95);
    expect(grown.sent).toBe(grown.predicted);
    expect(grown.notConverged).toEqual([]);
    expect(emulator.snapshot().categoriasReceitasDespesas.filter((c) => c.descricao.startsWith('Despesa '))).toHaveLength(345);
  });

  it('takes a page that repeats the one before as the end of the list (exactly 100 records)', async () => {
    const emulator = await unpagedAccount();
    const chart = emulator.snapshot().categoriasReceitasDespesas.length;
    await applyManifest(emulator, categories(100 - chart));
    const again = await applyManifest(emulator, categories(100 - chart));
    expect(again.plan.changes.filter((c) => c.action !== 'blocked')).toEqual([]);
    expect(again.log.filter((e) => e.path === '/categorias/receitas-despesas')).toHaveLength(2);
    expect(again.plan.warnings.join('\n')).toMatch(/answered the same 100 records for every pagina/);
  });

  it('reads the same 250 categories page by page where the list pages (strict, no reading)', async () => {
    const emulator = await createEmulator({ seed: 'fresh', rateLimit: 0, readings: [] });
    emulators.push(emulator);
    await applyManifest(emulator, categories(250));
    const again = await applyManifest(emulator, categories(250));
    expect(again.plan.changes.filter((c) => c.action !== 'blocked')).toEqual([]);
    expect(again.log.filter((e) => e.path === '/categorias/receitas-despesas')).toHaveLength(4);
    expect(again.plan.warnings).toEqual([]);
  });
});
