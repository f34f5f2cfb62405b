// Field-level differences between what a manifest declares and what the account holds. Only the
// fields a manifest sets are compared (an omitted field is not managed), objects recursively,
// lists as a whole; a field with a declared type by its meaning (model/field-types).
import type { FieldTypes } from '../model/field-types.js';
import { fieldTypeAt, sameMeaning } from '../model/field-types.js';
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

/** A leaf the walk compared: the manifest's value, the account's, and whether they mean the same. */
interface ComparedLeaf {
  path: string;
  wanted: unknown;
  actual: unknown;
  same: boolean;
}

/** Every field `desired` sets, objects recursively, each compared by its type's meaning. */
function compareLeaves(desired: Record<string, unknown>, live: Record<string, unknown>, types: FieldTypes | undefined, prefix: string, visit: (leaf: ComparedLeaf) => void): void {
  for (const [key, wanted] of Object.entries(desired)) {
    if (wanted === undefined) continue;
    const path = prefix ? `${prefix}.${key}` : key;
    const actual = live[key];
    if (isPlainRecord(wanted) && isPlainRecord(actual)) {
      compareLeaves(wanted, actual, types, path, visit);
      continue;
    }
    visit({ path, wanted, actual, same: deepEqual(wanted, actual) || sameMeaning(fieldTypeAt(types, path), wanted, actual) });
  }
}

/**
 * Differences for every field `desired` sets; `secretPaths` are compared but marked sensitive, and
 * fields `types` names compare by meaning (a decimal at its precision, a code by its digits).
 */
export function diffFields(
  desired: Record<string, unknown>,
  live: Record<string, unknown>,
  secretPaths: ReadonlySet<string> = new Set(),
  types?: FieldTypes,
): FieldChange[] {
  const changes: FieldChange[] = [];
  compareLeaves(desired, live, types, '', ({ path, wanted, actual, same }) => {
    if (same) return;
    changes.push(secretPaths.has(path) ? { path, before: undefined, after: undefined, sensitive: true } : { path, before: actual, after: wanted });
  });
  return changes;
}

/** Fields the account holds in another form than `desired` writes, meaning the same (8501.10.19 for 85011019). */
export function restatedFields(desired: Record<string, unknown>, live: Record<string, unknown>, types?: FieldTypes): FieldChange[] {
  const restated: FieldChange[] = [];
  compareLeaves(desired, live, types, '', ({ path, wanted, actual, same }) => {
    if (same && !deepEqual(wanted, actual)) restated.push({ path, before: actual, after: wanted });
  });
  return restated;
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
