// Every typed field of every kind declares how it compares: a number field left without a
// precision would compare float noise as a change, a CNPJ field without `code` its punctuation.
import { describe, expect, it } from 'vitest';
import type { JsonSchema, KindAdapter } from './kind.js';
import { registry } from './registry.js';
import { cnpjPattern } from './shared-schema.js';
import { fieldTypeAt } from '../model/field-types.js';

/** Every leaf of a schema with its dot path (`*` for array items). */
function leaves(schema: JsonSchema, prefix: string[] = []): { path: string[]; schema: JsonSchema }[] {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (properties) return Object.entries(properties).flatMap(([key, inner]) => leaves(inner, [...prefix, key]));
  if (schema.type === 'array' && typeof schema.items === 'object' && schema.items !== null) return leaves(schema.items as JsonSchema, [...prefix, '*']);
  return [{ path: prefix, schema }];
}

/** The unit a schema path belongs to (a nested kind's list field) and the path inside it. */
function unitAt(kind: KindAdapter & { nested: readonly KindAdapter[] }, path: string[]): { unit: KindAdapter; path: string } {
  const nested = kind.nested.find((unit) => unit.nestedField === path[0] && path[1] === '*');
  return nested ? { unit: nested, path: path.slice(2).join('.') } : { unit: kind, path: path.join('.') };
}

describe('field types of the kinds', () => {
  for (const kind of registry.kinds) {
    it(`${kind.key}: every number has a precision and every CNPJ compares by its digits`, () => {
      for (const leaf of leaves(kind.recordSchema)) {
        const { unit, path } = unitAt(kind, leaf.path);
        const type = fieldTypeAt(unit.fieldTypes, path);
        if (leaf.schema.type === 'number') expect(type?.type, `${kind.key} ${leaf.path.join('.')}`).toBe('decimal');
        if (leaf.schema.pattern === cnpjPattern) expect(type?.type, `${kind.key} ${leaf.path.join('.')}`).toBe('code');
      }
    });
  }
});
