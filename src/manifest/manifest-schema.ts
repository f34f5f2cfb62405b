// Composes the manifest language's JSON Schema from the kinds' record schemas: the top-level keys
// (`version`, `policy`, one key per kind), in two forms. buildManifestSchema() is one
// self-contained object for ajv; buildSchemaFiles() is the published set in schemas/ (one file
// per kind plus manifest.schema.json joining them by relative $ref, for editors). Pure: it writes
// no files (the schema-files test does, on request) and validates nothing itself.
import type { JsonSchema, KindDefinition } from '../kinds/kind.js';
import { registry } from '../kinds/registry.js';
import { configSchema, configSchemaFileName } from './config-schema.js';
import { planSchema, planSchemaFileName } from '../model/plan-schema.js';
import { journalLineSchema, journalLineSchemaFileName } from '../model/journal-schema.js';
import { driftFleetSchema, driftFleetSchemaFileName, driftNotifySchema, driftNotifySchemaFileName, driftSchema, driftSchemaFileName } from '../model/drift-schema.js';
import type { KindKey } from '../model/kinds.js';
import { defaultMaxDeletes } from '../model/desired.js';
import type { PathSegment } from '../model/desired.js';
import { isPlainRecord } from '../model/paths.js';

const schemaBaseUrl = 'https://erpsync.dev/schemas/';
const draft = 'https://json-schema.org/draft/2020-12/schema';

export const manifestSchemaFileName = 'manifest.schema.json';

export interface SchemaFile {
  /** File name inside schemas/. */
  fileName: string;
  schema: JsonSchema;
}

/** `formasPagamentos` → `formas-pagamentos.schema.json`. */
export function kindSchemaFileName(key: KindKey): string {
  return `${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}.schema.json`;
}

/** One schema object for ajv (draft-07 or 2020-12 classes, strict mode): kinds sit under $defs. */
export function buildManifestSchema(kinds: readonly KindDefinition[] = registry.kinds): JsonSchema {
  const defs: Record<string, JsonSchema> = {};
  for (const definition of kinds) defs[definition.key] = definition.recordSchema;
  return composeManifestSchema((definition) => `#/$defs/${definition.key}`, { $defs: defs }, kinds);
}

/** A schema as a published file: its draft and its address. */
function published(fileName: string, schema: JsonSchema): SchemaFile {
  return { fileName, schema: { $schema: draft, $id: `${schemaBaseUrl}${fileName}`, ...schema } };
}

/** The published files, manifest.schema.json after the kinds, then the config's and the outputs'. */
export function buildSchemaFiles(): SchemaFile[] {
  const kindFiles = registry.kinds.map((definition) => published(kindSchemaFileName(definition.key), acceptVariables(definition.recordSchema)));
  const manifest = composeManifestSchema((definition) => kindSchemaFileName(definition.key), {}, registry.kinds);
  return [
    ...kindFiles,
    published(manifestSchemaFileName, manifest),
    published(configSchemaFileName, configSchema),
    published(planSchemaFileName, planSchema),
    published(driftSchemaFileName, driftSchema),
    published(driftFleetSchemaFileName, driftFleetSchema),
    published(driftNotifySchemaFileName, driftNotifySchema),
    published(journalLineSchemaFileName, journalLineSchema),
  ];
}

/** The bytes of a schema file: stable key order as authored, two-space indent, final newline. */
export function renderSchemaFile(file: SchemaFile): string {
  return `${JSON.stringify(file.schema, null, 2)}\n`;
}

function composeManifestSchema(refOf: (definition: KindDefinition) => string, extra: JsonSchema, kinds: readonly KindDefinition[]): JsonSchema {
  const kindProperties: Record<string, JsonSchema> = {};
  for (const definition of kinds) {
    const ref = { $ref: refOf(definition) };
    kindProperties[definition.key] =
      definition.shape === 'singleton'
        ? ref
        : { type: 'array', description: describeListKind(definition), items: ref };
  }
  return {
    title: 'erpsync manifest',
    description:
      'One file of an erpsync manifest set: the desired configuration of a Bling ERP account. Files of a set are merged by kind; a kind that no file mentions is left untouched.',
    type: 'object',
    properties: {
      version: { const: 1, description: 'Version of the manifest language. Always 1. Required in every file.' },
      policy: buildPolicySchema(kinds),
      ...kindProperties,
    },
    required: ['version'],
    additionalProperties: false,
    ...extra,
  };
}

function describeListKind(definition: KindDefinition): string {
  const title = definition.title.charAt(0).toUpperCase() + definition.title.slice(1);
  return `${title} (${definition.resource}). Listed records are created or updated; live records that no file lists are left alone unless policy.prune names this kind.`;
}

function buildPolicySchema(kinds: readonly KindDefinition[]): JsonSchema {
  const listKinds = kinds.filter((definition) => definition.shape === 'list').map((definition) => definition.key);
  const allKinds = kinds.map((definition) => definition.key);
  return {
    type: 'object',
    description:
      'How far the manifest set owns the account: which kinds it may prune, how many deletions one run may make, and drift to ignore. Declare it in one file of the set.',
    properties: {
      prune: {
        type: 'array',
        items: { enum: listKinds },
        uniqueItems: true,
        description:
          "Kinds the set owns completely: live records of these kinds that no file declares are deleted (or retired), except protected ones and the account's own (built-ins, the default chart). A pruned kind must be declared in some file (`kind: []` declares none).",
      },
      maxDeletes: {
        type: 'integer',
        minimum: 0,
        default: defaultMaxDeletes,
        description: `Most deletions and retirements one plan may contain; a larger plan is refused. Default ${defaultMaxDeletes}.`,
      },
      retireInsteadOfDelete: {
        type: 'array',
        items: { enum: listKinds },
        uniqueItems: true,
        description:
          'Kinds whose records are deactivated instead of deleted: payment methods (situacao 0) and logistics (situacao D) support it. Categories and groups cannot be retired (no endpoint writes their situacao): a removal of theirs is a delete.',
      },
      ignore: {
        type: 'array',
        description: 'Differences erpsync must not report or change, each with the reason it is tolerated.',
        items: {
          type: 'object',
          properties: {
            kind: { enum: allKinds, description: 'Kind the rule applies to.' },
            key: {
              type: 'string',
              minLength: 1,
              description:
                "Record the rule applies to, by its key as plans show it (its name, or its path for tree kinds). Omit for every record of the kind.",
            },
            field: {
              type: 'string',
              pattern: '^[A-Za-z_][A-Za-z0-9_]*(\\.([A-Za-z_][A-Za-z0-9_]*|[0-9]+|\\*))*$',
              description:
                'Field the rule applies to, as a dot path inside the record (e.g. `adicionais.proximoNumeroLote`, `servicos.*.freteItem`). Omit for the whole record.',
            },
            reason: {
              type: 'string',
              minLength: 1,
              pattern: '\\S',
              description: 'Why this difference is tolerated. Required.',
            },
            until: {
              type: 'string',
              pattern: '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$',
              description:
                'Last day the rule applies (YYYY-MM-DD, inclusive). From the next day on it ignores nothing: plan and drift show the difference again, and drift says the rule expired.',
            },
          },
          required: ['kind', 'reason'],
          additionalProperties: false,
        },
      },
    },
    additionalProperties: false,
  };
}

/** What a whole `${NAME}` or `${NAME:-default}` looks like, for editors checking a file before interpolation. */
export const variableReferencePattern = '^\\$\\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\\}$';

/** A leaf whose values are not all text: a number, a boolean, an enumeration, a constant. */
function isNonTextLeaf(schema: JsonSchema): boolean {
  if (schema.type === 'object' || schema.type === 'array') return false;
  if (Array.isArray(schema.enum) || 'const' in schema) return true;
  return schema.type === 'number' || schema.type === 'integer' || schema.type === 'boolean';
}

/**
 * The published form of a record schema: every non-text leaf also accepts a whole `${VAR}`,
 * because an editor sees the file before interpolation (`juros: ${JUROS}`, `tipo: ${TIPO}`).
 * The loader validates interpolated values against the strict form, so nothing is loosened there.
 */
export function acceptVariables(schema: JsonSchema): JsonSchema {
  if (isNonTextLeaf(schema)) {
    const { description, ...rest } = schema;
    const variable = { type: 'string', pattern: variableReferencePattern, description: 'An environment variable, interpolated when erpsync loads the file.' };
    return { ...(description === undefined ? {} : { description }), anyOf: [rest, variable] };
  }
  const result: JsonSchema = { ...schema };
  if (isPlainRecord(schema.properties)) {
    result.properties = Object.fromEntries(Object.entries(schema.properties).map(([key, child]) => [key, isPlainRecord(child) ? acceptVariables(child) : child]));
  }
  if (isPlainRecord(schema.items)) result.items = acceptVariables(schema.items);
  return result;
}

/**
 * The schema that governs the value at `path` of a manifest document (through local `$ref`s,
 * `properties` and `items`), or undefined where the schema says nothing (an unknown field).
 * Interpolation asks it what type a variable's text must become.
 */
export function schemaAtPath(root: JsonSchema, path: readonly PathSegment[]): JsonSchema | undefined {
  const resolve = (schema: JsonSchema): JsonSchema => {
    const ref = schema.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/$defs/')) return schema;
    const target = (root.$defs as Record<string, unknown> | undefined)?.[ref.slice('#/$defs/'.length)];
    return isPlainRecord(target) ? target : schema;
  };
  let current: JsonSchema | undefined = resolve(root);
  for (const segment of path) {
    if (!current) return undefined;
    const next: unknown = typeof segment === 'number' ? current.items : (current.properties as Record<string, unknown> | undefined)?.[segment];
    current = isPlainRecord(next) ? resolve(next) : undefined;
  }
  return current;
}
