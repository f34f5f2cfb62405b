// ${VAR} and ${VAR:-default} from the environment. An unset variable (without a default) is an
// error at its own position. `$${` writes a literal `${`. A plain (unquoted) scalar that is one
// whole ${VAR} takes the type the value reads as in YAML (so `juros: ${JUROS}` can be a number).
import { parse as parseYamlScalar } from 'yaml';
import type { Diagnostic } from '../model/diagnostics.js';
import type { ParsedDocument } from './parse-yaml.js';
import type { PathSegment } from '../model/desired.js';

const reference = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$\{[^}]*\}?/g;

export interface InterpolationResult {
  value: unknown;
  interpolatedPaths: PathSegment[][];
  /** Scalars that are exactly one `${VAR}` (no default): the variable each came from. */
  variables: { path: PathSegment[]; name: string }[];
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
}

export function interpolateDocument(doc: ParsedDocument, env: NodeJS.ProcessEnv, options: InterpolationOptions = {}): InterpolationResult {
  const interpolatedPaths: PathSegment[][] = [];
  const variables: InterpolationResult['variables'] = [];
  const diagnostics: Diagnostic[] = [];

  // Points at the reference itself inside the scalar, not just at the scalar's start.
  const positionOfReference = (path: PathSegment[], reference: string) => {
    const position = doc.locate(path);
    const index = doc.sourceOf(path)?.text.indexOf(reference) ?? -1;
    return index < 0 ? position : { ...position, col: position.col + index };
  };

  const substitute = (text: string, path: PathSegment[]): unknown => {
    if (!text.includes('${')) return text;
    let used = false;
    let failed = false;
    const result = text.replace(reference, (match: string, name: string | undefined, fallback: string | undefined) => {
      if (match === '$${') return '${';
      if (name === undefined) {
        failed = true;
        diagnostics.push({
          severity: 'error',
          code: 'bad-variable',
          message: `\`${match}\` is not a valid variable reference`,
          hint: 'write ${NAME} or ${NAME:-default}; names are letters, digits and _',
          position: positionOfReference(path, match),
          path: toPointer(path),
        });
        return match;
      }
      used = true;
      const fromEnv = env[name];
      // An empty secret is a variable someone forgot to fill, not a password to send.
      const secret = options.isSecret?.(path) === true;
      if (fromEnv !== undefined && (fromEnv !== '' || (fallback === undefined && !secret))) return fromEnv;
      if (fallback !== undefined) return fallback;
      const deferred = match === text && secret && options.secretsMayStayUnset === true;
      if (!deferred) failed = true;
      diagnostics.push({
        severity: deferred ? 'warning' : 'error',
        code: 'unset-variable',
        message: `environment variable ${name} is ${fromEnv === '' ? 'empty' : 'not set'}${deferred ? '; plan and apply will need it' : ''}`,
        hint: secret ? `set ${name} where erpsync plans and applies` : `set ${name}, or give a default with \${${name}:-value}`,
        position: positionOfReference(path, match),
        path: toPointer(path),
      });
      return match;
    });
    if (used && !failed) interpolatedPaths.push(path);
    const whole = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(text);
    if (whole?.[1] && !failed) variables.push({ path, name: whole[1] });
    const source = doc.sourceOf(path);
    const wholeReference = /^\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}$/.test(text);
    if (used && wholeReference && source && !source.quoted) {
      const typed: unknown = parseYamlScalar(result);
      if (typeof typed === 'number' || typeof typed === 'boolean') return typed;
    }
    return result;
  };

  const walk = (value: unknown, path: PathSegment[]): unknown => {
    if (typeof value === 'string') return substitute(value, path);
    if (Array.isArray(value)) return value.map((item, index) => walk(item, [...path, index]));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item, [...path, key])]));
    }
    return value;
  };

  return { value: walk(doc.value, []), interpolatedPaths, variables, diagnostics };
}

export function toPointer(path: readonly PathSegment[]): string {
  return path.length === 0 ? '' : `/${path.map((s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}
