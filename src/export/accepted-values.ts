// What export may write: only values the manifest language accepts, so an exported set always
// validates. An account holds whatever its screens let people type (a colour `red`, an empty
// name, a code the API no longer takes); such a field is left out with a note, and a record
// whose identity or required fields are not acceptable is left out whole, with the reason.
import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { KindDefinition } from '../kinds/kind.js';
import { parsePointer, readPath, removePath } from '../model/paths.js';
import { printable } from '../model/printable.js';

/** One compiled validator per kind definition. */
const validators = new WeakMap<KindDefinition, ValidateFunction>();

function validatorOf(definition: KindDefinition): ValidateFunction {
  let validate = validators.get(definition);
  if (!validate) {
    validate = new Ajv({ allErrors: false, strict: true, verbose: true }).compile(definition.recordSchema);
    validators.set(definition, validate);
  }
  return validate;
}

/** A value as a note shows it: escaped, and short. */
export function describeForNote(value: unknown): string {
  const text = typeof value === 'string' ? `\`${value}\`` : JSON.stringify(value) ?? String(value);
  return printable(text.length > 60 ? `${text.slice(0, 57)}…` : text);
}

export type Acceptance = { accepted: true; value: Record<string, unknown>; notes: string[] } | { accepted: false; reason: string };

/** Why the schema refuses a value, in a few words and without the value itself. */
function describeRefusal(error: ErrorObject): string {
  if (error.keyword === 'pattern') return 'does not have the form the manifest language needs';
  if (error.keyword === 'enum') return 'is not one of the values the manifest language accepts';
  if (error.keyword === 'minLength') return (error.params as { limit?: number }).limit === 1 ? 'is empty' : 'is too short';
  return error.message ?? 'is not accepted';
}

/**
 * The entry without the values the kind's schema refuses. Each refusal drops the smallest part
 * that holds it (a field, or an item of a nested list whose own required field is missing); a
 * refusal of the record's identity, or of a field the record needs, drops the record.
 */
export function keepAcceptedValues(definition: KindDefinition, entry: Record<string, unknown>): Acceptance {
  const validate = validatorOf(definition);
  // The name, the scope and the parent make the identity: without one, the record would be another.
  const parents = definition.references.filter((ref) => ref.parent).map((ref) => ref.path.join('.'));
  const identityFields = new Set([definition.nameField, definition.scopeField, ...parents].filter((f): f is string => f !== undefined));
  let value: unknown = entry;
  const notes: string[] = [];
  // Each round drops one refused part; a record has far fewer parts than this.
  for (let round = 0; round < 100; round += 1) {
    if (validate(value)) return { accepted: true, value: value as Record<string, unknown>, notes };
    const error = validate.errors?.[0];
    if (!error) break;
    const path = parsePointer(error.instancePath);
    if (error.keyword === 'required' || error.keyword === 'if') {
      if (path.length === 0) return { accepted: false, reason: `it lacks \`${(error.params as { missingProperty?: string }).missingProperty ?? 'a required field'}\`, which the manifest language needs` };
      notes.push(`${path.join('.')} lacks a field the manifest language needs: left out`);
      value = removePath(value, path);
      continue;
    }
    const target = error.keyword === 'additionalProperties' ? [...path, (error.params as { additionalProperty: string }).additionalProperty] : path;
    const shown = `${target.join('.')} ${describeForNote(readPath(value, target))}`;
    if (target.length === 0 || identityFields.has(target.join('.'))) return { accepted: false, reason: `${shown} ${describeRefusal(error)}` };
    notes.push(`${shown} ${describeRefusal(error)}: left out`);
    value = removePath(value, target);
  }
  return { accepted: false, reason: 'its values are not accepted by the manifest language' };
}
