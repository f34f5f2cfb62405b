// Reads a JSON request body against a small field description: checks types strictly (the real
// service is strict on write: "17" is not an integer, "true" is not a boolean — rule
// schema-members), reports every problem with its element path, ignores unknown members
// (unknown-members-ignored), and fills omitted optional fields with their defaults, which is how
// a full-replacement PUT resets them (put-replaces). Minimums, patterns and the refusal of `null`
// are inferences the schemas do not state, so they apply in strict mode only (rules.ts).
// Pure; no HTTP here.
import type { FieldProblem } from './api-error.js';
import type { EmulatorMode, RuleId } from './rules.js';
import { enforces } from './rules.js';

interface BaseSpec {
  required?: boolean;
}

export interface StringSpec extends BaseSpec {
  type: 'string';
  enum?: readonly string[];
  default?: string;
  /** Regular expression the value must match, the wording used when it does not, and the rule it enforces. */
  pattern?: { regex: RegExp; hint: string; rule: RuleId };
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

/** Where one read is: the problems found so far and the mode that decides the inferred checks. */
interface Reading {
  problems: FieldProblem[];
  mode: EmulatorMode;
}

/** Reads `body` as the object `spec` describes; `value` is only meaningful when `problems` is empty. */
export function readBody(body: unknown, spec: ObjectSpec, mode: EmulatorMode = 'strict'): ReadResult {
  const reading: Reading = { problems: [], mode };
  const value = readObject(body, spec, '', reading);
  return { value: value ?? {}, problems: reading.problems };
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

function readObject(body: unknown, spec: ObjectSpec, element: string, reading: Reading): Record<string, unknown> | undefined {
  const { problems } = reading;
  if (!isPlainObject(body)) {
    problems.push({ kind: 'wrongType', element: element || 'body', msg: `${element || 'O corpo'} deve ser um objeto` });
    return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(spec.properties)) {
    const path = join(element, key);
    const raw = body[key];
    if (raw === undefined || (raw === null && !enforces(reading.mode, 'null-members'))) {
      if (child.required) {
        problems.push({ kind: 'missing', element: path, msg: `O campo ${path} é obrigatório` });
        continue;
      }
      const d = defaultOf(child);
      if (d !== undefined) out[key] = d;
      continue;
    }
    const read = readField(raw, child, path, reading);
    if (read !== undefined) out[key] = read;
  }
  return out;
}

function belowMinimum(value: number, min: number | undefined, reading: Reading): boolean {
  return min !== undefined && value < min && enforces(reading.mode, 'non-negative-numbers');
}

function readField(raw: unknown, spec: FieldSpec, path: string, reading: Reading): unknown {
  const { problems } = reading;
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
      if (spec.pattern && enforces(reading.mode, spec.pattern.rule) && !spec.pattern.regex.test(raw)) {
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
      if (belowMinimum(raw, spec.min, reading)) {
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
      if (belowMinimum(raw, spec.min, reading)) {
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
      return readObject(raw, spec, path, reading);
    case 'array': {
      if (!Array.isArray(raw)) {
        problems.push({ kind: 'wrongType', element: path, msg: `O campo ${path} deve ser uma lista` });
        return undefined;
      }
      return raw.map((item, index) => readField(item, spec.items, `${path}[${index}]`, reading));
    }
  }
}
