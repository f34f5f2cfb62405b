// Every broken manifest under test/fixtures/broken gets exactly the diagnostics in its golden file.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/load-manifests.js';
import { renderDiagnosticsText } from '../../src/report/diagnostics-report.js';

const fixtures = fileURLToPath(new URL('../fixtures/broken/', import.meta.url));
const cases = readdirSync(fixtures).sort();

describe('broken manifests', () => {
  it('has at least 25 distinct cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(25);
  });

  it.each(cases)('%s', async (name) => {
    const result = await loadManifests([name], { cwd: fixtures, env: {} });
    expect(result.diagnostics.length).toBeGreaterThan(0);
    for (const d of result.diagnostics) {
      expect(d.position, `${d.code} has a position`).toBeDefined();
      expect(d.position?.line).toBeGreaterThan(0);
      expect(d.position?.col).toBeGreaterThan(0);
    }
    const text = `${renderDiagnosticsText(result.diagnostics).join('\n')}\n`;
    await expect(text).toMatchFileSnapshot(`../fixtures/broken-golden/${name.replace(/\.ya?ml$/, '')}.txt`);
  });

  it('reports a path that does not exist', async () => {
    const result = await loadManifests(['nao-existe.yaml'], { cwd: fixtures, env: {} });
    expect(result.desired).toBeUndefined();
    expect(result.diagnostics).toEqual([
      { severity: 'error', code: 'path-not-found', message: 'no such file or directory', position: { file: 'nao-existe.yaml', line: 1, col: 1 } },
    ]);
  });

  it('reports schema errors and the checks across records of one file in one run', async () => {
    const result = await loadManifests(['35-every-problem-at-once.yaml'], { cwd: fixtures, env: {} });
    const codes = new Set(result.diagnostics.map((d) => d.code));
    for (const code of ['wrong-type', 'unknown-field', 'card-data-without-card-type', 'duplicate-record', 'reference-cycle', 'secret-not-from-variable']) expect(codes).toContain(code);
  });

  it('reports every kind of mistake of one file in one run, records with a mistake of their own included', async () => {
    const result = await loadManifests(['39-every-kind-of-mistake.yaml'], { cwd: fixtures, env: {} });
    expect(result.diagnostics.map((d) => `${d.position?.line ?? 0}: ${d.severity} ${d.code}`)).toEqual([
      '12: error wrong-type',
      '14: error invalid-value', // the enumeration label, with its did-you-mean
      '17: error multiple-defaults', // both defaults are on records with a schema error of their own
      '21: error reference-cycle',
      '23: error duplicate-pinned-id',
      '26: error unknown-field',
      '27: error duplicate-record', // its twin has an unknown field
      '28: error unknown-tag',
      '35: warning derived-field',
      '38: note unresolved-reference', // with a did-you-mean
      '43: error secret-not-from-variable',
    ]);
  });

  it('checks records with schema errors of their own across records, on their sound part', async () => {
    const result = await loadManifests(['37-broken-records-still-checked.yaml'], { cwd: fixtures, env: {} });
    expect(result.diagnostics.map((d) => `${d.position?.line ?? 0}: ${d.code}`)).toEqual([
      '10: wrong-type',
      '12: invalid-value',
      '15: multiple-defaults',
      '18: unknown-field',
      '19: duplicate-record',
    ]);
  });

  it('treats an empty secret variable as unset', async () => {
    const result = await loadManifests(['34-secret-unset.yaml'], { cwd: fixtures, env: { NFSE_SENHA_PREFEITURA: '' } });
    expect(result.desired).toBeUndefined();
    expect(result.diagnostics.map((d) => `${d.code}: ${d.message}`)).toEqual(['unset-variable: variable NFSE_SENHA_PREFEITURA is empty']);
  });
});
