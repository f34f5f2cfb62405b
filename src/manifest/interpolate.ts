// ${VAR} and ${VAR:-default} from the variables the project declares (model/variables: the
// target's variables and envFile, ERPSYNC_VAR_* of the environment, a secret field's own
// variable — never any other environment variable), substituted into the scalars of a document
// that is already parsed: a variable's value is text, never YAML, so `@x`, `[1,2`, `"x` or
// `!tag x` are just characters. The text then takes the type the schema gives the field (a
// string field keeps `98765432` as text; a number field parses a number, or says which variable
// does not hold one), the same whether the scalar was quoted or not. An unset variable (without a
// default) is an error at its own position. `$${` writes a literal `${`. No message here quotes a
// variable's value: values may be secrets, so messages name the variable.
import type { JsonSchema } from '../kinds/kind.js';
import type { Diagnostic, SourcePosition } from '../model/diagnostics.js';
import type { ParsedDocument } from './parse-yaml.js';
import type { PathSegment } from '../model/desired.js';
import { toPointer } from '../model/paths.js';
import { describeVariableSources, readVariable, variablePrefix } from '../model/variables.js';
import type { VariableScope } from '../model/variables.js';

const reference = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$\{[^}]*\}?/g;
const wholeWithoutDefault = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
const numberText = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** One `${NAME}` in a scalar, found while interpolating. */
export interface VariableReference {
  path: PathSegment[];
  name: string;
  /** Whether the field is a secret field of its kind. */
  secret: boolean;
  position: SourcePosition;
}

export interface InterpolationResult {
  value: unknown;
  interpolatedPaths: PathSegment[][];
  /** Scalars that are exactly one `${VAR}` (no default): the variable each came from. */
  variables: { path: PathSegment[]; name: string }[];
  /** Every reference to a variable, resolved or not (for the checks across files). */
  references: VariableReference[];
  /** JSON pointer of an interpolated scalar → the variables its text came from, for messages. */
  sources: Map<string, string[]>;
  diagnostics: Diagnostic[];
}

export interface InterpolationOptions {
  /** Secret fields: they take no default, so a hint never suggests one. */
  isSecret?: (path: readonly PathSegment[]) => boolean;
  /**
   * Offline checking (validate): a whole `${VAR}` in a secret field may stay unset, a warning
   * instead of an error (structure is checked; plan and apply need the value).
   */
  secretsMayStayUnset?: boolean;
  /** The schema of the field at a path, which decides the type a substituted text becomes. */
  schemaAt?: (path: readonly PathSegment[]) => JsonSchema | undefined;
  /** The variable a secret field declares for itself (NFSE_SENHA_PREFEITURA), read from the environment by its own name. */
  fieldVariableAt?: (path: readonly PathSegment[]) => string | undefined;
}

/** What one scalar's substitution produced. */
interface Substituted {
  text: string;
  names: string[];
  failed: boolean;
}

export function interpolateDocument(doc: ParsedDocument, scope: VariableScope, options: InterpolationOptions = {}): InterpolationResult {
  const result: InterpolationResult = { value: undefined, interpolatedPaths: [], variables: [], references: [], sources: new Map(), diagnostics: [] };

  const visitScalar = (text: string, path: PathSegment[]): unknown => {
    if (!text.includes('${')) return text;
    const substituted = substituteText(doc, scope, options, text, path, result);
    // A secret left unset offline still counts as coming from its variable (validate defers it).
    const whole = wholeWithoutDefault.exec(text);
    if (whole?.[1] && !substituted.failed) result.variables.push({ path, name: whole[1] });
    if (substituted.names.length === 0 || substituted.failed) return substituted.text;
    result.interpolatedPaths.push(path);
    result.sources.set(toPointer(path), substituted.names);
    return convertToFieldType(substituted, options.schemaAt?.(path), path, doc, result.diagnostics);
  };

  const walk = (value: unknown, path: PathSegment[]): unknown => {
    if (typeof value === 'string') return visitScalar(value, path);
    if (Array.isArray(value)) return value.map((item, index) => walk(item, [...path, index]));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item, [...path, key])]));
    }
    return value;
  };

  result.value = walk(doc.value, []);
  return result;
}

/** Points at the reference itself inside the scalar, not just at the scalar's start. */
function positionOfReference(doc: ParsedDocument, path: readonly PathSegment[], text: string): SourcePosition {
  const position = doc.locate(path);
  const index = doc.sourceOf(path)?.text.indexOf(text) ?? -1;
  return index < 0 ? position : { ...position, col: position.col + index };
}

/** Replaces every reference in one scalar's text; problems go to `result.diagnostics`. */
function substituteText(doc: ParsedDocument, scope: VariableScope, options: InterpolationOptions, text: string, path: PathSegment[], result: InterpolationResult): Substituted {
  const names: string[] = [];
  let failed = false;
  const secret = options.isSecret?.(path) === true;
  const fieldVariable = secret ? options.fieldVariableAt?.(path) : undefined;
  const replaced = text.replace(reference, (match: string, name: string | undefined, fallback: string | undefined) => {
    if (match === '$${') return '${';
    const position = positionOfReference(doc, path, match);
    const problem = (severity: Diagnostic['severity'], code: string, message: string, hint: string): string => {
      if (severity === 'error') failed = true;
      result.diagnostics.push({ severity, code, message, hint, position, path: toPointer(path) });
      return match;
    };
    if (name === undefined) return problem('error', 'bad-variable', `\`${match}\` is not a valid variable reference`, 'write ${NAME} or ${NAME:-default}; names are letters, digits and _');
    if (name.startsWith(variablePrefix)) {
      const bare = name.slice(variablePrefix.length);
      return problem('error', 'prefixed-variable', `write \`\${${bare}}\`: erpsync reads it from ${name} itself`, `a manifest names a variable without the ${variablePrefix} prefix`);
    }
    result.references.push({ path, name, secret, position });
    const value = readVariable(scope, name, fieldVariable);
    // An empty secret is a variable someone forgot to fill, not a password to send.
    if (value !== undefined && (value !== '' || (fallback === undefined && !secret))) {
      names.push(name);
      return value;
    }
    if (fallback !== undefined) {
      names.push(name);
      return fallback;
    }
    const deferred = match === text && secret && options.secretsMayStayUnset === true;
    const own = fieldVariable !== undefined && fieldVariable !== name ? ` (or write \`\${${fieldVariable}}\`, the variable this field declares)` : '';
    if (value === '') return problem(deferred ? 'warning' : 'error', 'unset-variable', `variable ${name} is empty${deferred ? '; plan and apply will need it' : ''}`, `give ${name} a value where erpsync ${secret ? 'plans and applies' : 'runs'}`);
    const unset = name === fieldVariable;
    return problem(
      deferred ? 'warning' : 'error',
      unset ? 'unset-variable' : 'undeclared-variable',
      `variable ${name} is not ${unset ? 'set' : 'declared'}${deferred ? '; plan and apply will need it' : ''}${unset ? '' : ': a manifest reads only the variables its project declares, never other environment variables'}`,
      `set ${describeVariableSources(name, fieldVariable)}${own}${secret ? '' : `, or give a default with \${${name}:-value}`}`,
    );
  });
  return { text: replaced, names, failed };
}

/** The JSON types a field's schema admits for a scalar. */
function scalarTypesOf(schema: JsonSchema): Set<string> {
  const types = new Set<string>();
  const declared = schema.type;
  for (const type of Array.isArray(declared) ? declared : [declared]) if (typeof type === 'string') types.add(type);
  for (const allowed of Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : []) types.add(typeof allowed);
  return types;
}

/**
 * A substituted text as the field's type: text where the field takes text (or is unknown), a
 * number or boolean where it takes only those. An enumeration of labels and codes keeps a
 * label as text and turns a code into a number. Unparseable text is a diagnostic naming the
 * variables, and stays text (the schema then reports nothing more quoting it).
 */
function convertToFieldType(substituted: Substituted, schema: JsonSchema | undefined, path: PathSegment[], doc: ParsedDocument, diagnostics: Diagnostic[]): unknown {
  const { text } = substituted;
  if (!schema) return text;
  const types = scalarTypesOf(schema);
  const allowed = Array.isArray(schema.enum) ? (schema.enum as unknown[]) : undefined;
  if (allowed?.includes(text)) return text;
  const wantsNumber = types.has('number') || types.has('integer');
  if (wantsNumber && numberText.test(text) && (!types.has('string') || allowed?.includes(Number(text)) === true)) return Number(text);
  if (types.has('boolean') && !types.has('string') && (text === 'true' || text === 'false')) return text === 'true';
  if (types.size === 0 || types.has('string')) return text;
  const wanted = wantsNumber ? 'a number' : types.has('boolean') ? '`true` or `false`' : [...types].join(' or ');
  const variables = substituted.names.map((name) => `\`\${${name}}\``).join(', ');
  diagnostics.push({
    severity: 'error',
    code: 'variable-wrong-type',
    message: `\`${String(path[path.length - 1] ?? 'value')}\` needs ${wanted}, and the value of ${variables} is not one`,
    hint: `set ${substituted.names.join(', ')} to ${wanted}`,
    position: doc.locate(path),
    path: toPointer(path),
  });
  return text;
}
