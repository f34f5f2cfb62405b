// Live records → records in the manifest language, as a person would write them: enum labels
// instead of codes, references by name (a path only where the name is ambiguous), secrets as
// `${VAR}` placeholders, a literal `${` of account text as `$${`, keys in the schema's order, and only what the kind's adapter says was
// configured (no server fields, counters or create defaults). Pure: export files and drift's
// snippets of unmanaged records are both built from it. It must not read the account or print.
import type { EnumField, JsonSchema, KindDefinition } from '../kinds/kind.js';
import { labelOfCode } from '../kinds/enum-labels.js';
import { pathSeparator } from '../model/names.js';
import { isPlainRecord, mapPath, readPath } from '../model/paths.js';
import type { KindAdapter } from '../kinds/kind.js';
import type { LiveRecord, LiveState } from '../model/live.js';
import type { UnitKind } from '../model/kinds.js';

/**
 * Every `${` of account text as `$${`, which the loader reads back as a literal `${` instead of
 * interpolating a variable (a category named `${BLING_CLIENT_SECRET}` stays a name). It lives
 * here, not beside the ajv checks of accepted values: plan and drift reach this module, and must
 * not load ajv's compiler for it.
 */
export function escapeInterpolation(value: unknown): unknown {
  if (typeof value === 'string') return value.split('${').join('$${');
  if (Array.isArray(value)) return value.map(escapeInterpolation);
  if (isPlainRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, escapeInterpolation(item)]));
  return value;
}

export interface ExportContext {
  adapters: readonly KindAdapter[];
  live: LiveState;
}

export interface ManifestEntry {
  /** The record as the manifest declares it. */
  value: Record<string, unknown>;
  /** What was left out and why, for a comment above the record. */
  notes: string[];
}

type Plain = Record<string, unknown>;


/** Orders names as people of the account read them: accents beside their letters, case ignored. */
const collator = new Intl.Collator('pt-BR', { sensitivity: 'base', numeric: true });

/** Identities compared segment by segment, so a parent always comes right before its children. */
export function compareIdentities(a: string, b: string): number {
  const left = a.split(pathSeparator);
  const right = b.split(pathSeparator);
  for (let i = 0; i < Math.min(left.length, right.length); i += 1) {
    const order = collator.compare(left[i] ?? '', right[i] ?? '') || ((left[i] ?? '') < (right[i] ?? '') ? -1 : (left[i] ?? '') > (right[i] ?? '') ? 1 : 0);
    if (order !== 0) return order;
  }
  return left.length - right.length;
}

function lastSegment(identity: string): string {
  return identity.split(pathSeparator).at(-1) ?? identity;
}


/** Codes → labels; a code the API never accepts on write cannot sit in a manifest, so it goes with a note. */
function labelEnums(fields: Plain, enums: readonly EnumField[], notes: string[]): Plain {
  let result: unknown = fields;
  for (const field of enums) {
    result = mapPath(result, field.path, (leaf) => {
      if (typeof leaf !== 'number' && typeof leaf !== 'string') return leaf;
      const label = labelOfCode(field, leaf);
      if (field.readOnlyCodes?.includes(leaf)) {
        notes.push(`${field.path.join('.')} is ${label === leaf ? String(leaf) : `${String(label)} (${String(leaf)})`}, which the account sets itself and the API does not accept: left out`);
        return undefined;
      }
      return label;
    });
  }
  return result as Plain;
}

/** The shortest way to name a record of `kind`: its name when no other record has it, else its path. */
function nameOf(identity: string, kind: UnitKind, live: LiveState): string {
  const name = lastSegment(identity);
  const sameName = (live.records.get(kind) ?? []).filter((r) => lastSegment(r.identity) === name);
  return sameName.length <= 1 ? name : identity;
}

/** References hold identities; a manifest names them as a person would (see the kind's reference rules). */
function nameReferences(fields: Plain, definition: KindDefinition, live: LiveState): Plain {
  let result: unknown = fields;
  for (const reference of definition.references) {
    result = mapPath(result, reference.path, (identity) => {
      if (typeof identity !== 'string') return identity;
      if (reference.parent) return nameOf(identity, reference.target, live);
      // A scoped reference (a situation's base or a transition's actions, within their module) is written without the scope.
      const scopePath = reference.scope ?? (definition.scopeField ? [definition.scopeField] : undefined);
      const scope = scopePath ? readPath(fields, scopePath) : undefined;
      const prefix = typeof scope === 'string' ? `${scope}${pathSeparator}` : undefined;
      return prefix && identity.startsWith(prefix) ? identity.slice(prefix.length) : identity;
    });
  }
  return result as Plain;
}

/** The variable export writes for a secret: the kind's own name for it, else one made from the path. */
export function secretVariableOf(adapter: KindAdapter, path: readonly string[]): string {
  const named = adapter.secretVariables?.[path.join('.')];
  if (named) return named;
  const words = [adapter.kind, ...path].map((part) => part.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase());
  return words.join('_');
}

function placeSecrets(fields: Plain, adapter: KindAdapter, definition: KindDefinition): Plain {
  let result: unknown = fields;
  for (const path of definition.secretFields) {
    result = mapPath(result, path, (value) => (typeof value === 'string' && value !== '' ? `\${${secretVariableOf(adapter, path)}}` : undefined));
  }
  return result as Plain;
}

/** Keys in the order the schema declares them (the name first), unknown keys after, recursively. */
export function orderBySchema(value: unknown, schema: JsonSchema | undefined): unknown {
  if (Array.isArray(value)) {
    const items = isPlainRecord(schema?.items) ? (schema.items as JsonSchema) : undefined;
    return value.map((item) => orderBySchema(item, items));
  }
  if (!isPlainRecord(value)) return value;
  const properties = isPlainRecord(schema?.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
  const declared = Object.keys(properties).filter((key) => key in value);
  const others = Object.keys(value).filter((key) => !(key in properties));
  return Object.fromEntries([...declared, ...others].map((key) => [key, orderBySchema(value[key], properties[key])]));
}

/** The schema of one unit of `adapter`'s kind: its own record schema, or the list item of its container. */
export function unitSchemaOf(adapter: KindAdapter, adapters: readonly KindAdapter[]): JsonSchema | undefined {
  if (adapter.definition) return adapter.definition.recordSchema;
  const container = adapters.find((a) => a.kind === adapter.nestedIn)?.definition;
  const list = adapter.nestedField ? (container?.recordSchema.properties as Record<string, JsonSchema> | undefined)?.[adapter.nestedField] : undefined;
  return isPlainRecord(list?.items) ? (list.items as JsonSchema) : undefined;
}

/** Units nested in `record` (services of a logistics) that export writes inside it, by name. */
function nestedEntries(adapter: KindAdapter, record: LiveRecord, context: ExportContext, notes: string[]): [string, Plain[]][] {
  return context.adapters
    .filter((nested) => nested.nestedIn === adapter.kind && nested.nestedField !== undefined)
    .flatMap((nested): [string, Plain[]][] => {
      const children = (context.live.records.get(nested.kind) ?? [])
        .filter((child) => child.parent === record.identity)
        .sort((a, b) => compareIdentities(a.identity, b.identity));
      if (children.length === 0) return [];
      const entries = children.map((child) => {
        const entry = toManifestEntry(nested, child, context);
        notes.push(...entry.notes.map((note) => `${nested.nestedField}/${child.name}: ${note}`));
        return entry.value;
      });
      return [[nested.nestedField as string, entries]];
    });
}

/** One live record in the manifest language. */
export function toManifestEntry(adapter: KindAdapter, record: LiveRecord, context: ExportContext): ManifestEntry {
  const notes: string[] = [];
  const definition = adapter.definition;
  let fields: Plain = { ...(adapter.exportFields?.(record) ?? record.fields) };
  if (definition) fields = nameReferences(fields, definition, context.live);
  // Account text is data: escaped once, here, before the nested entries (escaped by their own call) join it.
  fields = escapeInterpolation(fields) as Plain;
  for (const [field, entries] of nestedEntries(adapter, record, context, notes)) fields[field] = entries;
  if (definition) {
    fields = placeSecrets(fields, adapter, definition);
    fields = labelEnums(fields, definition.enums, notes);
  }
  return { value: orderBySchema(fields, unitSchemaOf(adapter, context.adapters)) as Plain, notes };
}
