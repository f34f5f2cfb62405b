// Plan text on a terminal: colour by line marker, and how hard field diffs fold.
import { describe, expect, it } from 'vitest';
import { chooseFieldFold, colorizePlanLine, largeChangeSet } from './plan-terminal.js';

describe('colorizePlanLine', () => {
  it('colours each change and diff line by its marker and leaves other lines alone', () => {
    expect(colorizePlanLine('+ gruposProdutos "A" — create: not in the account (wave 1)')).toBe('\u001B[32m+ gruposProdutos "A" — create: not in the account (wave 1)\u001B[39m');
    const opens = (line: string, code: number) => expect(colorizePlanLine(line).startsWith(`\u001B[${code}m${line.slice(0, 3)}`)).toBe(true);
    opens('~ formasPagamentos "Pix" — update: differs from the manifest (id 3, wave 1)', 33);
    opens('  - gruposProdutos "B" — delete: in no manifest of a pruned kind (id 4, wave 2)', 31);
    opens("! situacoes \"Vendas > Em aberto\" — blocked: the account's own record (id 6, wave 1)", 35);
    opens('      + nova linha', 32);
    expect(colorizePlanLine('WARNING: 1 record(s) will be deleted or retired:')).toContain('\u001B[1m');
    opens('    … 3 more field(s) (use --verbose)', 2);
    for (const plain of ['    nome: "A"', '  gruposProdutos  2 to create', '', 'Cost: 1 request(s)', '    taxas.aliquota: 1 → 2']) {
      expect(colorizePlanLine(plain)).toBe(plain);
    }
  });
});

describe('chooseFieldFold', () => {
  it('folds harder for a large change set on a terminal, never with --verbose', () => {
    expect(chooseFieldFold(largeChangeSet + 1, { verbose: false, terminal: true })).toBe(5);
    expect(chooseFieldFold(largeChangeSet, { verbose: false, terminal: true })).toBe(20);
    expect(chooseFieldFold(largeChangeSet + 1, { verbose: false, terminal: false })).toBe(20);
    expect(chooseFieldFold(largeChangeSet + 1, { verbose: true, terminal: true })).toBeUndefined();
  });
});
