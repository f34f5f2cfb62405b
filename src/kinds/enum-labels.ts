// Enumerations accept the API code or a readable label; the desired state always holds codes.
import type { EnumField } from '../kinds/kind.js';

function mapAtPath(value: unknown, path: readonly string[], map: (leaf: unknown) => unknown): unknown {
  if (path.length === 0) return map(value);
  const [head, ...rest] = path;
  if (head === '*') return Array.isArray(value) ? value.map((item) => mapAtPath(item, rest, map)) : value;
  if (value === null || typeof value !== 'object' || Array.isArray(value) || head === undefined) return value;
  const record = value as Record<string, unknown>;
  if (!(head in record)) return value;
  return { ...record, [head]: mapAtPath(record[head], rest, map) };
}

/** Replaces every label of the given enum fields by its API code. Codes pass through. */
export function normalizeEnumLabels<T>(value: T, enums: readonly EnumField[]): T {
  let result: unknown = value;
  for (const field of enums) {
    result = mapAtPath(result, field.path, (leaf) =>
      typeof leaf === 'string' && Object.hasOwn(field.labels, leaf) ? field.labels[leaf] : leaf,
    );
  }
  return result as T;
}

/** The readable label of an API code (for export and output), or the code itself when unlabelled. */
export function labelOfCode(field: EnumField, code: number | string): number | string {
  const hit = Object.entries(field.labels).find(([, value]) => value === code);
  return hit ? hit[0] : code;
}
