// Checks one parsed document against the manifest schema and turns every ajv error into a
// diagnostic at the right line:col, in plain language, with a hint where a typo is likely. The
// validators are ajv's standalone code, generated at build time from manifest-schema.ts and
// config-schema.ts (see compile-validators.ts), so no command compiles a schema when it starts.
import type { ErrorObject } from 'ajv';
import { config, manifest } from '#standalone-validators';
import type { SchemaValidator } from '#standalone-validators';
import type { Diagnostic } from '../model/diagnostics.js';
import { suggestClosest } from '../model/suggest.js';
import { parsePointer, toPointer } from '../model/paths.js';
import type { Locator, PathSegment } from '../model/desired.js';
import type { KindDefinition } from '../kinds/kind.js';
import { registry } from '../kinds/registry.js';

export type { SchemaValidator } from '#standalone-validators';

/** The validator of erpsync.config.yaml. */
export const configValidator: SchemaValidator = config;

/** Validators of kind lists the build did not know (a test's own), compiled once each. */
const compiled = new WeakMap<readonly KindDefinition[], SchemaValidator>();

/**
 * The one place that picks the manifest validator: the registry's kinds have theirs generated at
 * build time; any other list is compiled here, and only then is ajv's compiler loaded.
 */
export async function manifestValidator(kinds: readonly KindDefinition[]): Promise<SchemaValidator> {
  if (kinds === registry.kinds) return manifest;
  let validate = compiled.get(kinds);
  if (!validate) {
    const { compileManifestValidator } = await import('./compile-validators.js');
    validate = compileManifestValidator(kinds);
    compiled.set(kinds, validate);
  }
  return validate;
}

/** JSON pointer of an interpolated scalar → the variables its text came from. */
export type ValueSources = ReadonlyMap<string, readonly string[]>;

/**
 * The value as a message shows it. A value that came from variables is named by them instead:
 * it may be a secret, and the user knows what they set.
 */
function describeValue(value: unknown, pointer: string, sources: ValueSources): string {
  const names = sources.get(pointer);
  if (names && names.length > 0) return `the value of ${names.map((name) => `\`\${${name}}\``).join(', ')}`;
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `the text \`${value.length > 40 ? `${value.slice(0, 40)}…` : value}\``;
  return `${typeof value} \`${String(value)}\``;
}

function fieldName(path: readonly PathSegment[]): string {
  const named = [...path].reverse().find((segment) => typeof segment === 'string');
  return named === undefined ? 'the manifest' : `\`${named}\``;
}

/** The parts of an ajv error every diagnostic needs. */
interface ErrorContext {
  error: ErrorObject;
  path: PathSegment[];
  locate: Locator;
  base: { severity: 'error'; path: string };
  described: () => string;
}

function toDiagnostic(error: ErrorObject, locate: Locator, sources: ValueSources): Diagnostic {
  const path = parsePointer(error.instancePath);
  const context: ErrorContext = { error, path, locate, base: { severity: 'error', path: error.instancePath || '/' }, described: () => describeValue(error.data, error.instancePath, sources) };
  const { base, described } = context;
  // A key that breaks `propertyNames` (a config's target name): the problem sits at the key itself.
  if (error.propertyName !== undefined) return invalidNameDiagnostic(context, error.propertyName);
  switch (error.keyword) {
    case 'additionalProperties':
      return unknownKeyDiagnostic(context, (error.params as { additionalProperty: string }).additionalProperty);
    case 'required': {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      return {
        ...base,
        code: 'missing-field',
        message: `missing required field \`${missing}\``,
        position: locate(path, path.length === 0 ? 'value' : 'key'),
      };
    }
    case 'enum':
      return enumDiagnostic(context);
    case 'not':
      return refusedKeyDiagnostic(context) ?? invalidValueDiagnostic(context);
    case 'minLength': {
      const limit = (error.params as { limit: number }).limit;
      return { ...base, code: 'invalid-value', message: limit === 1 ? `${fieldName(path)} must not be empty` : `${fieldName(path)} must have at least ${limit} characters`, position: locate(path) };
    }
    case 'maxLength':
      return tooLongDiagnostic(context);
    case 'type': {
      const expected = (error.params as { type: string | string[] }).type;
      const wanted = Array.isArray(expected) ? expected.join(' or ') : expected;
      return {
        ...base,
        code: 'wrong-type',
        message: `${fieldName(path)} must be ${article(wanted)}, found ${described()}`,
        position: locate(path),
      };
    }
    case 'const':
      return {
        ...base,
        code: 'invalid-value',
        message: `${fieldName(path)} must be ${JSON.stringify((error.params as { allowedValue: unknown }).allowedValue)}, found ${described()}`,
        position: locate(path),
      };
    case 'pattern':
      return {
        ...base,
        code: 'invalid-value',
        message: `${described()} does not have the form ${fieldName(path)} needs (${(error.params as { pattern: string }).pattern})`,
        position: locate(path),
      };
    case 'uniqueItems': {
      // `j` is the later of the two: the one to remove.
      const { i, j } = error.params as { i: number; j: number };
      const item = Array.isArray(error.data) ? (error.data as unknown[])[j] : undefined;
      return { ...base, code: 'invalid-value', message: `${fieldName(path)} holds ${typeof item === 'string' ? `\`${item}\`` : 'the same item'} twice (items ${i + 1} and ${j + 1})`, position: locate([...path, j]) };
    }
    case 'minItems': {
      const limit = (error.params as { limit: number }).limit;
      return { ...base, code: 'invalid-value', message: limit === 1 ? `${fieldName(path)} must not be an empty list` : `${fieldName(path)} must hold at least ${limit} items`, position: locate(path) };
    }
    default:
      return invalidValueDiagnostic(context);
  }
}

/**
 * Text longer than its field takes: the limit is the kind's (KindDefinition.lengthLimits, found by
 * the field's place in the record), said with where the number comes from.
 */
function tooLongDiagnostic({ error, path, locate, base }: ErrorContext): Diagnostic {
  const max = (error.params as { limit: number }).limit;
  const [kindKey, , ...inRecord] = path;
  const definition = registry.kinds.find((k) => k.key === kindKey);
  const limit = definition?.lengthLimits?.[inRecord.map((segment) => (typeof segment === 'number' ? '*' : segment)).join('.')];
  const length = typeof error.data === 'string' ? [...error.data].length : undefined;
  return {
    ...base,
    code: 'too-long',
    message: `${fieldName(path)} ${length === undefined ? 'is too long' : `has ${length} characters`}; ${definition ? `${definition.key} take` : 'it takes'} at most ${max}${limit ? ` (${limit.source})` : ''}`,
    hint: 'shorten it: the service may refuse a longer name, or keep only part of it',
    position: locate(path),
  };
}

function invalidValueDiagnostic({ error, path, locate, base }: ErrorContext): Diagnostic {
  return { ...base, code: 'invalid-value', message: `${fieldName(path)} ${error.message ?? 'is invalid'}`, position: locate(path) };
}

function invalidNameDiagnostic({ error, path, locate, base }: ErrorContext, name: string): Diagnostic {
  return {
    ...base,
    path: toPointer([...path, name]),
    code: 'invalid-name',
    message: `\`${name}\` is not a valid name under ${fieldName(path)}`,
    ...(error.keyword === 'pattern' ? { hint: `names have the form ${(error.params as { pattern: string }).pattern}` } : {}),
    position: locate([...path, name], 'key'),
  };
}

function unknownKeyDiagnostic({ error, path, locate, base }: ErrorContext, key: string): Diagnostic {
  const parentProperties = Object.keys(((error.parentSchema as { properties?: object } | undefined)?.properties ?? {}) as object);
  const keyPath = [...path, key];
  const suggestion = suggestClosest(key, parentProperties);
  const topLevel = path.length === 0;
  return {
    ...base,
    path: toPointer(keyPath),
    code: topLevel ? 'unknown-kind' : 'unknown-field',
    message: topLevel ? `unknown top-level key \`${key}\`` : `unknown field \`${key}\``,
    position: locate(keyPath, 'key'),
    ...(suggestion ? { hint: `did you mean \`${suggestion}\`?` } : topLevel ? { hint: `top-level keys are: ${parentProperties.join(', ')}` } : {}),
  };
}

/**
 * A key the schema refuses whatever its value (`{ not: {}, description }`, see config-schema.ts
 * refusedKey): the description is the reason, at the key. Any other `not` says what ajv says.
 */
function refusedKeyDiagnostic({ error, path, locate, base }: ErrorContext): Diagnostic | undefined {
  const reason = (error.parentSchema as { description?: unknown } | undefined)?.description;
  const refusesAll = typeof error.schema === 'object' && error.schema !== null && Object.keys(error.schema as object).length === 0;
  if (!refusesAll || typeof reason !== 'string') return undefined;
  return { ...base, code: 'refused-field', message: `${fieldName(path)}: ${reason}`, position: locate(path, 'key') };
}

function enumDiagnostic({ error, path, locate, base, described }: ErrorContext): Diagnostic {
  const allowed = (error.schema as unknown[]) ?? [];
  const labels = allowed.filter((v): v is string => typeof v === 'string');
  const codes = allowed.filter((v) => typeof v !== 'string');
  const suggestion = typeof error.data === 'string' ? suggestClosest(error.data, labels) : undefined;
  const accepted = labels.length > 0 ? `accepted: ${labels.join(', ')}${codes.length > 0 ? ' (or the API code)' : ''}` : `accepted: ${allowed.map(String).join(', ')}`;
  return {
    ...base,
    code: 'invalid-value',
    message: `${described()} is not a valid value for ${fieldName(path)}`,
    hint: suggestion ? `did you mean \`${suggestion}\`? ${accepted}` : accepted,
    position: locate(path),
  };
}

function article(type: string): string {
  const words: Record<string, string> = { object: 'a mapping', array: 'a list', string: 'text', integer: 'a whole number', number: 'a number', boolean: 'true or false', null: 'null' };
  return type
    .split(' or ')
    .map((t) => words[t] ?? t)
    .join(' or ');
}

/** A value checked by a validator (the manifest's, the config file's): its errors as positioned diagnostics, none when it matches. */
export function diagnosticsOf(validate: SchemaValidator, value: unknown, locate: Locator, sources: ValueSources = new Map()): Diagnostic[] {
  if (validate(value)) return [];
  const seen = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  for (const error of validate.errors ?? []) {
    // `if`/`then` and composition keywords only repeat what their sub-errors say.
    if (error.keyword === 'if' || error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'propertyNames') continue;
    const diagnostic = toDiagnostic(error, locate, sources);
    const key = `${diagnostic.path}|${diagnostic.code}|${diagnostic.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    diagnostics.push(diagnostic);
  }
  return diagnostics;
}
