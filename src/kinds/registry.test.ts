import { describe, expect, it } from 'vitest';
import type { JsonSchema } from './kind.js';
import { registry } from './registry.js';
import { toolKeyFields } from './shared-schema.js';
import { kindKeys } from '../model/kinds.js';
import type { KindKey } from '../model/kinds.js';

/** The vocabulary's order is the dependency order; the registry must follow it. */
const dependencyOrder: readonly KindKey[] = kindKeys;

function schemaAt(schema: JsonSchema, path: readonly string[]): JsonSchema | undefined {
  let current: JsonSchema | undefined = schema;
  for (const segment of path) {
    const next: unknown = segment === '*' ? current?.items : (current?.properties as Record<string, unknown> | undefined)?.[segment];
    if (typeof next !== 'object' || next === null) return undefined;
    current = next as JsonSchema;
  }
  return current;
}

describe('kind registry', () => {
  it('lists every kind of the vocabulary once, in dependency order', () => {
    expect(registry.kinds.map((definition) => definition.key)).toEqual(dependencyOrder);
  });

  it('finds every kind by its key', () => {
    for (const key of dependencyOrder) expect(registry.kind(key).key).toBe(key);
  });

  for (const definition of registry.kinds) {
    describe(definition.key, () => {
      it('has its enum fields in the schema, accepting exactly the writable codes and their labels', () => {
        for (const field of definition.enums) {
          const readOnly = field.readOnlyCodes ?? [];
          const writable = Object.entries(field.labels).filter(([, code]) => !readOnly.includes(code));
          const schema = schemaAt(definition.recordSchema, field.path);
          expect(schema?.enum, field.path.join('.')).toEqual([...writable.map(([, code]) => code), ...writable.map(([label]) => label)]);
          expect(String(schema?.description)).toContain(`${String(writable[0]?.[1])} ${writable[0]?.[0]}`);
        }
      });

      it('writes labels in lower-case kebab-case without accents, one label per code', () => {
        for (const field of definition.enums) {
          for (const label of Object.keys(field.labels)) expect(label).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
          const codes = Object.values(field.labels);
          expect(new Set(codes).size).toBe(codes.length);
          for (const code of field.readOnlyCodes ?? []) expect(codes).toContain(code);
        }
      });

      it('points its references, secrets, name and scope at fields of its schema', () => {
        for (const reference of definition.references) {
          // A name; references to read-only records take an id too (anyOf string | integer).
          const schema = schemaAt(definition.recordSchema, reference.path);
          const types = [schema?.type, ...((schema?.anyOf as JsonSchema[] | undefined) ?? []).map((s) => s.type)];
          expect(types, reference.path.join('.')).toContain('string');
          if (reference.parent) expect(reference.target).toBe(definition.key);
        }
        for (const path of definition.secretFields) expect(schemaAt(definition.recordSchema, path)?.type).toBe('string');
        const required = (definition.recordSchema.required as string[] | undefined) ?? [];
        for (const field of [definition.nameField, definition.scopeField]) {
          if (field === undefined) continue;
          const schema = schemaAt(definition.recordSchema, [field]);
          expect([schema?.type, ...((schema?.anyOf as JsonSchema[] | undefined) ?? []).map((s) => s.type)]).toContain('string');
          expect(required).toContain(field);
        }
      });

      it('carries the tool keys when it is a list, and no name when it is the singleton', () => {
        const properties = Object.keys((definition.recordSchema.properties as object | undefined) ?? {});
        if (definition.shape === 'list') {
          expect(properties).toEqual(expect.arrayContaining(Object.keys(toolKeyFields)));
          expect(definition.nameField).toBeDefined();
        } else {
          for (const key of Object.keys(toolKeyFields)) expect(properties).not.toContain(key);
          expect(definition.nameField).toBeUndefined();
        }
        expect(definition.recordSchema.additionalProperties).toBe(false);
      });
    });
  }
});
