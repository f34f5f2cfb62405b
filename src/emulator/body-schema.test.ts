import { describe, expect, it } from 'vitest';
import type { ObjectSpec } from './body-schema.js';
import { defaultOf, readBody } from './body-schema.js';

const spec: ObjectSpec = {
  type: 'object',
  properties: {
    nome: { type: 'string', required: true },
    quantidade: { type: 'integer', min: 0, default: 1 },
    preco: { type: 'number', default: 0 },
    ativo: { type: 'boolean', default: true },
    tipo: { type: 'string', enum: ['A', 'B'], default: 'A' },
    opcoes: { type: 'object', properties: { cor: { type: 'string', default: '' } } },
    cartao: { type: 'object', whenOmitted: 'absent', properties: { bandeira: { type: 'integer', required: true } } },
    tags: { type: 'array', items: { type: 'string' } },
  },
};

describe('readBody', () => {
  it('fills omitted optional fields with defaults and drops unknown members', () => {
    expect(readBody({ nome: 'x', extra: 1 }, spec)).toEqual({
      value: { nome: 'x', quantidade: 1, preco: 0, ativo: true, tipo: 'A', opcoes: { cor: '' }, tags: [] },
      problems: [],
    });
  });

  it('reports every problem with its element path, strict on types', () => {
    const { problems } = readBody(
      { nome: '  ', quantidade: '2', preco: 'x', ativo: 'true', tipo: 'C', cartao: {}, tags: ['a', 3], opcoes: [] },
      spec,
    );
    expect(problems.map((p) => [p.kind, p.element])).toEqual([
      ['missing', 'nome'],
      ['wrongType', 'quantidade'],
      ['wrongType', 'preco'],
      ['wrongType', 'ativo'],
      ['notAllowed', 'tipo'],
      ['wrongType', 'opcoes'],
      ['missing', 'cartao.bandeira'],
      ['wrongType', 'tags[1]'],
    ]);
  });

  it('refuses a body that is not an object, and null members', () => {
    expect(readBody([], spec).problems).toEqual([expect.objectContaining({ kind: 'wrongType', element: 'body' })]);
    expect(readBody({ nome: 'x', preco: null }, spec).problems).toEqual([expect.objectContaining({ element: 'preco' })]);
  });

  it('derives the defaults of a whole object', () => {
    expect(defaultOf(spec)).toEqual({ quantidade: 1, preco: 0, ativo: true, tipo: 'A', opcoes: { cor: '' }, tags: [] });
  });
});
