// Field-level differences between what a manifest declares and what the account holds. Only the
// fields a manifest sets are compared (an omitted field is not managed), objects recursively,
// lists as a whole.
import { isPlainRecord } from '../model/paths.js';
import type { FieldChange } from '../model/plan.js';


export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  if (isPlainRecord(a) && isPlainRecord(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((key) => deepEqual(a[key], b[key]));
  }
  return false;
}

/** Differences for every field `desired` sets; `secretPaths` are compared but marked sensitive. */
export function diffFields(
  desired: Record<string, unknown>,
  live: Record<string, unknown>,
  secretPaths: ReadonlySet<string> = new Set(),
  prefix = '',
): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const [key, wanted] of Object.entries(desired)) {
    if (wanted === undefined) continue;
    const path = prefix ? `${prefix}.${key}` : key;
    const actual = live[key];
    if (isPlainRecord(wanted) && isPlainRecord(actual)) {
      changes.push(...diffFields(wanted, actual, secretPaths, path));
      continue;
    }
    if (deepEqual(wanted, actual)) continue;
    changes.push(secretPaths.has(path) ? { path, before: undefined, after: undefined, sensitive: true } : { path, before: actual, after: wanted });
  }
  return changes;
}

/**
 * A keyed collection (NFS-e tax entries by CNAE + listaServico, …) is compared as an object keyed
 * by each entry's match key, so entries are diffed field by field; beside it, a list of the keys
 * under `keyListField(collection, how)` makes an added or dropped entry a difference too (the
 * comparison only walks what the manifest sets). Reporters read that list back with
 * `parseKeyListField` to show dropped entries by key, entry by entry, instead of as a list.
 */
export function keyListField(collection: string, keyDescription: string): string {
  return `${collection} (${keyDescription})`;
}

/** The collection a key-list field path lists (`ISS.tributos`), or undefined for any other field. */
export function parseKeyListField(path: string): string | undefined {
  return /^(.+) \([^()]+\)$/.exec(path)?.[1];
}
