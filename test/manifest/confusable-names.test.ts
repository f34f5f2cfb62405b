// Names that look alike in the ERP's screens: look-alike letters of another script, zero-width
// and control characters. Each is a warning with the code points, and records whose names fold
// to the same text are near-duplicates, like names that differ only in case or accents.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/load-manifests.js';
import { renderDiagnosticsText } from '../../src/report/diagnostics-report.js';

const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-names-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function warningsOf(yaml: string): Promise<string[]> {
  writeFileSync(path.join(dir, 'm.yaml'), yaml);
  const result = await loadManifests(['m.yaml'], { cwd: dir, env: {} });
  expect(result.desired, 'warnings only').toBeDefined();
  return renderDiagnosticsText(result.diagnostics.filter((d) => d.severity === 'warning')).filter((line) => !line.startsWith('    hint'));
}

describe('names that look like other names', () => {
  it('warns about a Cyrillic look-alike, with its code point, and about the near-duplicate it makes', async () => {
    const lines = await warningsOf('version: 1\ngruposProdutos:\n  - nome: Maquiagem\n  - nome: M\u0430quiagem\n');
    expect(lines).toEqual([
      'm.yaml:4:11: warning: confusable-name: `M\u0430quiagem` holds letters of another script among the others (U+0430 Cyrillic), which look like Latin letters',
      'm.yaml:4:11: warning: near-duplicate: `M\u0430quiagem` differs from `Maquiagem` (m.yaml:3:5) only in case, accents, look-alike letters or invisible characters',
    ]);
  });

  it('warns about zero-width and control characters, escaped, in names and in the names a record refers to', async () => {
    const lines = await warningsOf('version: 1\ncategoriasProdutos:\n  - descricao: "Kits\\u200b"\n  - descricao: Kits\n  - descricao: Viagem\n    categoriaPai: "Kits\\u0007"\n');
    expect(lines).toEqual([
      'm.yaml:3:16: warning: confusable-name: `Kits\\u200b` holds invisible or control characters (U+200B)',
      'm.yaml:4:16: warning: near-duplicate: `Kits` differs from `Kits\\u200b` (m.yaml:3:5) only in case, accents, look-alike letters or invisible characters',
      'm.yaml:6:19: warning: confusable-name: `Kits\\u0007` holds invisible or control characters (U+0007)',
    ]);
  });

  it('leaves names of one script alone, accents and all', async () => {
    expect(await warningsOf('version: 1\ngruposProdutos:\n  - nome: Ação\n  - nome: Москва\n  - nome: Ελλάδα\n  - nome: Café ☕\n')).toEqual([]);
  });
});
