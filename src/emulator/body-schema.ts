// Reads a JSON request body against a small field description: checks types strictly (the real
// service is strict on write: "17" is not an integer, "true" is not a boolean), reports every
// problem with its element path, ignores unknown members, and fills omitted optional fields with
// their defaults, which is how a full-replacement PUT resets them. Pure; no HTTP here.
import type { FieldProblem } from './api-error.js';

interface BaseSpec {
  required?: boolean;
}

export interface StringSpec extends BaseSpec {
  type: 'string';
  enum?: readonly string[];
  default?: string;
  /** Regular expression the value must match, and the wording used when it does not. */
  pattern?: { regex: RegExp; hint: string };
}

export interface IntegerSpec extends BaseSpec {
  type: 'integer';
  enum?: readonly number[];
  default?: number;
  min?: number;
}

export interface NumberSpec extends BaseSpec {
  type: 'number';
  default?: number;
  min?: number;
}

export interface BooleanSpec extends BaseSpec {
  type: 'boolean';
  default?: boolean;
}

export interface ObjectSpec extends BaseSpec {
  type: 'object';
  properties: Record<string, FieldSpec>;
  /** `defaults` (default): an omitted optional object becomes its defaults; `absent`: stays out. */
  whenOmitted?: 'defaults' | 'absent';
}

export interface ArraySpec extends BaseSpec {
  type: 'array';
  items: FieldSpec;
  /** `empty` (default): an omitted optional array becomes []; `absent`: stays out. */
  whenOmitted?: 'empty' | 'absent';
}

export type FieldSpec = StringSpec | IntegerSpec | NumberSpec | BooleanSpec | ObjectSpec | ArraySpec;

export interface ReadResult {
  value: Record<string, unknown>;
  problems: FieldProblem[];
}

/** Reads `body` as the object `spec` describes; `value` is only meaningful when `problems` is empty. */
export function readBody(body: unknown, spec: ObjectSpec): ReadResult {
  const problems: FieldProblem[] = [];
  const value = readObject(body, spec, '', problems);
  return { value: value ?? {}, problems };
}

/** The value an omitted optional field takes. */
export function defaultOf(spec: FieldSpec): unknown {
  switch (spec.type) {
    case 'object': {
      if (spec.whenOmitted === 'absent') return undefined;
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(spec.properties)) {
        const d = defaultOf(child);
        if (d !== undefined) out[key] = d;
      }
      return out;
    }
    case 'array':
      return spec.whenOmitted === 'absent' ? undefined : [];
    default:
      return spec.default;
  }
}

function join(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readObject(
  body: unknown,
  spec: ObjectSpec,
  element: string,
  problems: FieldProblem[],
): Record<string, unknown> | undefined {
  if (!isPlainObject(body)) {
    problems.push({ kind: 'wrongType', element: element || 'body', msg: `${element || 'O corpo'} deve ser um objeto` });
    return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(spec.properties)) {
    const path = join(element, key);
    const raw = body[key];
    if (raw === undefined) {
      if (child.required) {
        problems.push({ kind: 'missing', element: path, msg: `O campo ${path} é obrigatório` });
        continue;
      }
      const d = defaultOf(child);
      if (d !== undefined) out[key] = d;
      continue;
    }
    const read = readField(raw, child, path, problems);
    if (read !== undefined) out[key] = read;
  }
  return out;
}

function readField(raw: unknown, spec: FieldSpec, path: string, problems: FieldProblem[]): unknown {
  switch (spec.type) {
    case 'string': {
      if (typeof raw !== 'string') {
        problems.push({ kind: 'wrongType', element: path, msg: `O campo ${path} deve ser um texto` });
        return undefined;
      }
      if (spec.required && raw.trim() === '') {
        problems.push({ kind: 'missing', element: path, msg: `O campo ${path} é obrigatório` });
        return undefined;
      }
      if (spec.enum && !spec.enum.includes(raw)) {
        problems.push({ kind: 'notAllowed', element: path, msg: `O campo ${path} aceita: ${spec.enum.join(', ')}` });
        return undefined;
      }
      if (spec.pattern && !spec.pattern.regex.test(raw)) {
        problems.push({ kind: 'notAllowed', element: path, msg: `O campo ${path} ${spec.pattern.hint}` });
        return undefined;
      }
      return raw;
    }
    case 'integer': {
      if (typeof raw !== 'number' || !Number.isSafeInteger(raw)) {
        problems.push({ kind: 'wrongType', element: path, msg: `O campo ${path} deve ser um número inteiro` });
        return undefined;
      }
      if (spec.enum && !spec.enum.includes(raw)) {
        problems.push({ kind: 'notAllowed', element: path, msg: `O campo ${path} aceita: ${spec.enum.join(', ')}` });
        return undefined;
      }
      if (spec.min !== undefined && raw < spec.min) {
        problems.push({ kind: 'notAllowed', element: path, msg: `O campo ${path} deve ser maior ou igual a ${spec.min}` });
        return undefined;
      }
      return raw;
    }
    case 'number': {
      if (typeof raw !== 'number' || !Number.isFinite(raw)) {
        problems.push({ kind: 'wrongType', element: path, msg: `O campo ${path} deve ser numérico` });
        return undefined;
      }
      if (spec.min !== undefined && raw < spec.min) {
        problems.push({ kind: 'notAllowed', element: path, msg: `O campo ${path} deve ser maior ou igual a ${spec.min}` });
        return undefined;
      }
      return raw;
    }
    case 'boolean': {
      if (typeof raw !== 'boolean') {
        problems.push({ kind: 'wrongType', element: path, msg: `O campo ${path} deve ser verdadeiro ou falso` });
        return undefined;
      }
      return raw;
    }
    case 'object':
      return readObject(raw, spec, path, problems);
    case 'array': {
      if (!Array.isArray(raw)) {
        problems.push({ kind: 'wrongType', element: path, msg: `O campo ${path} deve ser uma lista` });
        return undefined;
      }
      return raw.map((item, index) => readField(item, spec.items, `${path}[${index}]`, problems));
    }
  }
}
