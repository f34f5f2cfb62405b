import { describe, expect, it } from 'vitest';
import { insertRecords } from './adopt-unmanaged.js';
import type { RecordInsert } from './adopt-unmanaged.js';

const insert = (kind: RecordInsert['kind'], value: Record<string, unknown>, shape: RecordInsert['shape'] = 'list'): RecordInsert => ({ file: 'f.yaml', kind, shape, value, subject: `${kind} ${JSON.stringify(value)}` });

describe('insertRecords', () => {
  it('appends to the kind\'s list, keeping comments, flow values and the air between records', () => {
    const text = '# top\nversion: 1\ngruposProdutos:\n  # the first\n  - nome: A # inline\n\n  - nome: B\n    tags: [x, y]\n';
    const result = insertRecords(text, [insert('gruposProdutos', { nome: 'C', grupoProdutoPai: 'A' })]);
    expect(result.refused).toEqual([]);
    expect(result.text).toBe('# top\nversion: 1\ngruposProdutos:\n  # the first\n  - nome: A # inline\n\n  - nome: B\n    tags: [x, y]\n\n  - nome: C\n    grupoProdutoPai: A\n');
  });

  it('leaves every other byte as written: flow spacing, quotes, comments after the list, an unindented list', () => {
    const text = "version: 1\ndepositos:\n- descricao: 'A'\n  extra: {a: 1,  b: [ x ]} # keep\n# after the list\ngruposProdutos:   # none yet\n";
    const result = insertRecords(text, [insert('depositos', { descricao: 'B' }), insert('gruposProdutos', { nome: 'G' })]);
    expect(result.refused).toEqual([]);
    expect(result.text).toBe("version: 1\ndepositos:\n- descricao: 'A'\n  extra: {a: 1,  b: [ x ]} # keep\n- descricao: B\n# after the list\ngruposProdutos:   # none yet\n  - nome: G\n");
  });

  it('adds a kind the file lacks under a new key at its end, a singleton as an object, and replaces an empty list', () => {
    const text = 'version: 1\ndepositos: []\n';
    const result = insertRecords(text, [insert('depositos', { descricao: 'Vitrine' }), insert('configuracoesNfse', { envioEmail: { remetente: 'Loja' } }, 'singleton')]);
    expect(result.text).toBe('version: 1\ndepositos:\n  - descricao: Vitrine\n\nconfiguracoesNfse:\n  envioEmail:\n    remetente: Loja\n');
  });

  it('adds to a list written in flow style in flow style, the rest as written', () => {
    const text = 'version: 1\ndepositos: [{descricao: A},   {descricao: B}]  # two\n';
    const result = insertRecords(text, [insert('depositos', { descricao: 'C', desconsiderarSaldo: true })]);
    expect(result.text).toBe('version: 1\ndepositos: [{descricao: A},   {descricao: B}, { descricao: C, desconsiderarSaldo: true }]  # two\n');
  });

  it('refuses a file of several documents, and a singleton declared already', () => {
    expect(insertRecords('version: 1\n---\nversion: 1\n', [insert('depositos', { descricao: 'X' })]).refused).toHaveLength(1);
    const declared = insertRecords('version: 1\nconfiguracoesNfse:\n  basicas: {}\n', [insert('configuracoesNfse', {}, 'singleton')]);
    expect(declared.refused.map((r) => r.why)).toEqual([expect.stringContaining('cannot be added to')]);
  });
});
