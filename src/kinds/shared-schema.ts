// Building blocks the kind files use to author their manifest schemas: the tool keys every list
// record carries, enumerations that accept an API code or a readable label, and object schemas
// closed against unknown fields. Pure data builders: nothing here reads files, validates
// manifests or knows about a particular kind.
import type { EnumField, JsonSchema, LabelTable, LengthLimit } from './kind.js';

export type EnsureValue = 'present' | 'absent';

/** Keys erpsync itself interprets on every list record, beside the API fields. */
export interface ToolKeys {
  /** Pins the record to a live record with this id (identity by name is skipped). */
  id?: number;
  /** `absent` is a tombstone: the record is deleted, or retired where the policy says so. */
  ensure?: EnsureValue;
  /** A protected record is never deleted or retired, whatever the policy or tombstones say. */
  protect?: boolean;
  /** Names the record had before, so a rename is planned as an update instead of delete + create. */
  previousNames?: string[];
}

/** The field table of one manifest type: one JSON Schema per property of `T`, nothing more. */
export type FieldTable<T> = { readonly [K in keyof Required<T>]: JsonSchema };

/**
 * One field table and where its object sits inside a record (`*` = every item of an array).
 * Kind files list theirs so a test can compare them with the schemas, level by level.
 */
export interface FieldTableEntry {
  path: readonly string[];
  fields: Readonly<Record<string, JsonSchema>>;
}

/** A value of an enumerated field as a manifest may write it: the API code or its label. */
export type Coded<T extends LabelTable> = T[keyof T] | Extract<keyof T, string>;

export const toolKeyFields = {
  id: {
    type: 'integer',
    minimum: 1,
    description:
      'Tool key. Id of the live record this entry manages; use it only to pin a record whose name is ambiguous or changed outside erpsync.',
  },
  ensure: {
    enum: ['present', 'absent'],
    description:
      'Tool key. `present` (the default) creates or updates the record; `absent` deletes it, or retires it when policy.retireInsteadOfDelete lists the kind.',
  },
  protect: {
    type: 'boolean',
    description: 'Tool key. When true, erpsync never deletes or retires this record, even when pruning.',
  },
  previousNames: {
    type: 'array',
    items: { type: 'string', minLength: 1 },
    uniqueItems: true,
    description:
      'Tool key. Former names of the record: a live record under one of them is renamed (an update) instead of being deleted and created again.',
  },
} as const satisfies FieldTable<ToolKeys>;

/** `1 dinheiro, 2 cheque, …` — the label table as the descriptions and docs show it. */
export function describeLabels(labels: LabelTable, codes?: readonly (number | string)[]): string {
  return Object.entries(labels)
    .filter(([, code]) => codes === undefined || codes.includes(code))
    .map(([label, code]) => `${String(code)} ${label}`)
    .join(', ');
}

export interface EnumDefinition {
  /** Where the field sits in a record; `*` for every item of an array. */
  path: readonly string[];
  /** Every label the API may return, writable or not. */
  labels: LabelTable;
  readOnlyCodes?: readonly (number | string)[];
  /** What the field means in the API, one sentence. */
  summary: string;
}

export interface DefinedEnum {
  field: EnumField;
  schema: JsonSchema;
}

/**
 * An enumerated field's schema and its registry entry, built together so they cannot disagree.
 * The schema is one `enum` of writable codes and labels (not an anyOf: ajv reports one readable
 * error instead of one per branch); read-only codes are documented but refused.
 */
export function defineEnum(definition: EnumDefinition): DefinedEnum {
  const readOnly = definition.readOnlyCodes ?? [];
  const writable = Object.entries(definition.labels).filter(([, code]) => !readOnly.includes(code));
  const codes = [...new Set(writable.map(([, code]) => code))];
  const labels = writable.map(([label]) => label);
  const readOnlyNote =
    readOnly.length === 0
      ? ''
      : ` Read-only (returned by the API, refused here): ${describeLabels(definition.labels, readOnly)}.`;
  const field: EnumField =
    readOnly.length === 0
      ? { path: definition.path, labels: definition.labels }
      : { path: definition.path, labels: definition.labels, readOnlyCodes: readOnly };
  return {
    field,
    schema: {
      enum: [...codes, ...labels],
      description: `${definition.summary} Code or label: ${describeLabels(definition.labels, codes)}.${readOnlyNote}`,
    },
  };
}

export interface ObjectSchemaOptions {
  description?: string;
  required?: readonly string[];
}

/** A closed object schema: unknown properties are reported instead of silently ignored. */
export function defineObject(fields: Readonly<Record<string, JsonSchema>>, options: ObjectSchemaOptions = {}): JsonSchema {
  return {
    type: 'object',
    ...(options.description === undefined ? {} : { description: options.description }),
    properties: fields,
    ...(options.required === undefined || options.required.length === 0 ? {} : { required: [...options.required] }),
    additionalProperties: false,
  };
}

export interface ListRecordOptions {
  title: string;
  description: string;
  /** Fields every entry needs, tombstones included (the identity). */
  identity: readonly string[];
  /** Fields the API needs to create the record; a tombstone (`ensure: absent`) may omit them. */
  requiredUnlessAbsent: readonly string[];
}

/**
 * The schema of one record of a list kind. The create-required fields are asked for through
 * if/else so that `- descricao: Antiga\n  ensure: absent` is a complete tombstone.
 */
export function defineListRecord(fields: Readonly<Record<string, JsonSchema>>, options: ListRecordOptions): JsonSchema {
  return {
    title: options.title,
    ...defineObject(fields, { description: options.description, required: options.identity }),
    ...(options.requiredUnlessAbsent.length === 0
      ? {}
      : {
          if: { properties: { ensure: { const: 'absent' } }, required: ['ensure'] },
          // ajv's strictRequired wants every required name declared beside it; `true` adds no rule.
          else: {
            properties: Object.fromEntries(options.requiredUnlessAbsent.map((name) => [name, true])),
            required: [...options.requiredUnlessAbsent],
          },
        }),
  };
}

/**
 * The limit of a name the documentation gives no size for. Neither OpenAPI document states a
 * maxLength and whether the service cuts a long name is unknown (reference/real-observations), so
 * erpsync takes the shortest size Bling documents for a record's name — STRING(60), the descricao
 * of a nature of operation (API v2 help, "POST Contrato") — to keep a name that passes uncut.
 */
export const erpsyncNameLimit: LengthLimit = {
  maxLength: 60,
  source: "erpsync's own limit: the API documents no size for this field",
};

/** A non-empty name or description (identities, references), with its length limit where it has one. */
export function defineName(description: string, limit?: LengthLimit): JsonSchema {
  if (!limit) return { type: 'string', minLength: 1, description };
  return { type: 'string', minLength: 1, maxLength: limit.maxLength, description: `${description} At most ${limit.maxLength} characters (${limit.source}).` };
}

/** A reference to a parent record of a tree kind, by name or by `Pai > Filho` path. */
export function defineParentReference(description: string): JsonSchema {
  return {
    type: 'string',
    minLength: 1,
    description: `${description} Write the parent's name, or its path from the root joined by " > " (e.g. \`Pai > Filho\`) when the name alone is ambiguous. Omit for a root record.`,
  };
}

/** CNPJ as 14 digits or in the usual 00.000.000/0000-00 layout; empty for none, as a new account holds it (a revert sets it back so). */
export const cnpjPattern = '^(\\d{14}|\\d{2}\\.\\d{3}\\.\\d{3}/\\d{4}-\\d{2})?$';
