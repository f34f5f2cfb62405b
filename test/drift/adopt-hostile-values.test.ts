// drift --adopt writes the account's value in place of the old one and changes no other line of
// the file, whatever the value holds: YAML indicators, line breaks, `${`, anchors, aliases, tags,
// comments, quotes, control characters, 100,000 characters. The file is compared line by line
// outside the adopted value, and read back by the loader, which must find exactly the value.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rewriteManifest } from '../../src/drift/adopt-drift.js';
import type { FieldEdit } from '../../src/drift/adopt-drift.js';
import { escapeInterpolation } from '../../src/export/manifest-record.js';
import { loadManifests } from '../../src/manifest/load-manifests.js';

const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-adopt-hostile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Lines a re-rendered document would reflow: quotes, a flow map, blank lines, a long line, comments.
const manifest = `# yaml-language-server: $schema=../schemas/manifest.schema.json
version: 1

formasPagamentos:
  # Boleto, two instalments
  - descricao: 'Boleto bancário'
    tipoPagamento: boleto
    finalidade: recebimentos
    destino: caixa-e-bancos
    condicao: "28"   # days
    taxas: { aliquota: 1.5, valor: 0 }


  - descricao: "Pix  da   loja"     # spaces kept
    tipoPagamento: pix-dinamico
    finalidade: pagamentos-e-recebimentos
    destino: caixa-e-bancos
    condicao: '${'0 '.repeat(60)}1'
gruposProdutos:
  - nome: Uma linha
`;

const hostile: [string, string][] = [
  ['a comment sign', 'x # not a comment'],
  ['a mapping indicator', 'a: b'],
  ['a sequence indicator', '- item'],
  ['an anchor and an alias', '&anchor *alias'],
  ['a tag', '!!binary x'],
  ['a local tag', '!local x'],
  ['flow indicators', '[1, {a: b}], c'],
  ['quotes', `'single' "double" \\ backslash`],
  ['a directive', '%YAML 1.2'],
  ['a document marker', '---'],
  ['a block indicator', '|'],
  ['line breaks', 'linha 1\nlinha 2\n\n  indentada\n'],
  ['a variable reference', 'R$ ${HOME} e $${x}'],
  ['leading and trailing spaces', '  margens  '],
  ['YAML literals', 'null'],
  ['a number-looking text', '0x1F'],
  ['control characters', 'a\u0001b\u001b[31mc\u007fd\td'],
  ['U+FFFE and a BOM', 'x\uFFFEy\uFEFFz'],
  ['100,000 characters', `${'x: y # z\n'.repeat(9_999)}fim!`.slice(0, 100_000)],
  ['empty', ''],
];

function edit(value: string): FieldEdit {
  return { file: 'm.yaml', line: 6, recordPath: ['formasPagamentos', 0], fieldPath: ['condicao'], value: escapeInterpolation(value), subject: 'formasPagamentos "Boleto bancário" condicao' };
}

describe('drift --adopt of a hostile value', () => {
  it.each(hostile)('%s: round-trips, and no other line changes', async (_label, value) => {
    const { text, refused } = rewriteManifest(manifest, [edit(value)]);
    expect(refused).toEqual([]);
    // Every line but the adopted one is as it was; on that line only the value's text changed.
    const before = manifest.split('\n');
    const after = text.split('\n');
    const at = before.findIndex((line) => line.startsWith('    condicao: "28"'));
    expect(after.slice(0, at)).toEqual(before.slice(0, at));
    expect(after.slice(at + 1)).toEqual(before.slice(at + 1));
    expect(after[at]?.startsWith('    condicao: ')).toBe(true);
    expect(after[at]?.endsWith('   # days')).toBe(true);

    const file = path.join(dir, `${hostile.findIndex(([, v]) => v === value)}.yaml`);
    writeFileSync(file, text);
    const loaded = await loadManifests([file], { cwd: dir, env: {} });
    expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const record = loaded.desired?.records.get('formasPagamentos')?.find((r) => r.identity === 'Boleto bancário');
    expect(record?.fields.condicao).toBe(value);
  });

  it('two values of one file at once, each in place', () => {
    const second: FieldEdit = { ...edit('b: "c"'), line: 14, recordPath: ['formasPagamentos', 1], subject: 'formasPagamentos "Pix" condicao' };
    const { text, refused } = rewriteManifest(manifest, [edit('linha\nquebrada'), second]);
    expect(refused).toEqual([]);
    const changed = text.split('\n').flatMap((line, i) => (line === manifest.split('\n')[i] ? [] : [i + 1]));
    expect(changed).toEqual([10, 18]);
  });
});
