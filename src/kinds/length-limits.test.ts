// Every length limit a kind declares is the maxLength its schema carries at the same place, so the
// offline check (the schema) and the limit docs/manifest.md lists are one number, kept in the kind.
import { describe, expect, it } from 'vitest';
import { registry } from './registry.js';
import { depositosLengthLimits } from './depositos.js';
import { erpsyncNameLimit } from './shared-schema.js';
import type { JsonSchema } from './kind.js';

function schemaAt(schema: JsonSchema, path: readonly string[]): JsonSchema | undefined {
  let at: JsonSchema | undefined = schema;
  for (const segment of path) {
    if (!at) return undefined;
    at = segment === '*' ? (at.items as JsonSchema | undefined) : ((at.properties as Record<string, JsonSchema> | undefined)?.[segment]);
  }
  return at;
}

describe('length limits', () => {
  it('each declared limit is the schema maxLength of its field, and every name field has one', () => {
    const limited = registry.kinds.filter((kind) => kind.lengthLimits !== undefined);
    for (const kind of limited) {
      for (const [path, limit] of Object.entries(kind.lengthLimits ?? {})) {
        expect([kind.key, path, schemaAt(kind.recordSchema, path.split('.'))?.maxLength]).toEqual([kind.key, path, limit.maxLength]);
      }
      expect(kind.lengthLimits?.[kind.nameField ?? '']).toBeDefined();
    }
    expect(limited.map((k) => k.key).sort()).toEqual(['camposCustomizados', 'categoriasProdutos', 'categoriasReceitasDespesas', 'depositos', 'formasPagamentos', 'gruposProdutos', 'logisticas', 'situacoes']);
  });

  it('uses the documented size where Bling gives one, and says which limits are erpsync’s own', () => {
    expect(depositosLengthLimits.descricao.maxLength).toBe(120);
    expect(depositosLengthLimits.descricao.source).toContain('String(120)');
    expect(registry.kind('gruposProdutos').lengthLimits?.nome).toBe(erpsyncNameLimit);
    expect(erpsyncNameLimit.source).toContain("erpsync's own limit");
  });
});
