// Query handling shared by the list endpoints: `pagina`/`limite` paging (rule paging) and typed
// filters whose values outside their enums answer 400 (filter-values). Paging has no totals or
// links, like the real service: a client walks pages until one is short.
import { validationFailure } from './api-error.js';
import type { EmulatorMode } from './rules.js';
import { enforces } from './rules.js';

/** The real maximum is undocumented; 100 is the community's observation. Larger values are
 * clamped rather than refused, the stricter choice: a client that asks for 500 and stops at the
 * first page shorter than 500 would silently miss records, and our tests should catch that. */
const maxPageSize = 100;

export function readIntegerParam(query: URLSearchParams, name: string, min: number): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^-?\d+$/.test(raw) || Number(raw) < min) {
    throw validationFailure([{ kind: 'notAllowed', element: name, msg: `O parâmetro ${name} deve ser um inteiro maior ou igual a ${min}` }]);
  }
  return Number(raw);
}

export function readEnumParam<T extends string | number>(
  query: URLSearchParams,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  const found = allowed.find((a) => String(a) === raw);
  if (found === undefined) {
    throw validationFailure([{ kind: 'notAllowed', element: name, msg: `O parâmetro ${name} aceita: ${allowed.join(', ')}` }]);
  }
  return found;
}

export function readBooleanParam(query: URLSearchParams, name: string): boolean | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw validationFailure([{ kind: 'notAllowed', element: name, msg: `O parâmetro ${name} deve ser true ou false` }]);
}

/** PHP-style array parameter: `name[]=1&name[]=2`. */
export function readIntegerArrayParam(query: URLSearchParams, name: string): number[] {
  return query.getAll(`${name}[]`).map((raw) => {
    if (!/^\d+$/.test(raw)) {
      throw validationFailure([{ kind: 'wrongType', element: `${name}[]`, msg: `O parâmetro ${name}[] aceita apenas inteiros` }]);
    }
    return Number(raw);
  });
}

export function paginate<T>(items: readonly T[], query: URLSearchParams): T[] {
  const page = readIntegerParam(query, 'pagina', 1) ?? 1;
  const limit = Math.min(readIntegerParam(query, 'limite', 1) ?? maxPageSize, maxPageSize);
  const start = (page - 1) * limit;
  return items.slice(start, start + limit);
}

/**
 * Rule text-filters: what a text filter (`descricao`, `nome`, `nomePai`, `pesquisa`) matches is
 * undocumented, so the two modes take the two ends of what is plausible. Strict: the narrowest
 * match, the stored value exactly (case, accents, blanks and Unicode form included), so a client
 * that takes "not found by the filter" as "absent" meets a record its own name rules treat as the
 * same. Lenient: case- and accent-insensitive anywhere in the value, so a client that takes the
 * answers as exactly its record meets extras.
 */
export function matchesTextFilter(mode: EmulatorMode, value: string, filter: string): boolean {
  return enforces(mode, 'text-filters') ? value === filter : foldText(value).includes(foldText(filter));
}

function foldText(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}
