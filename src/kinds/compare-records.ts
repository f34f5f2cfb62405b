// The one comparison of what a manifest wants with what the account holds, for plan, drift (and
// so adopt), the rename hints and the check after apply: both sides in the kind's canonical form
// (keyed collections, sets sorted, fields a create alone takes left out), then field by field,
// each by its declared type's meaning (model/field-types). Nobody else diffs a record.
import { diffFields, restatedFields } from '../model/diff-fields.js';
import type { FieldChange } from '../model/plan.js';
import type { KindAdapter } from './kind.js';

export type Comparing = Pick<KindAdapter, 'canonicalize' | 'fieldTypes'>;

/** A record in the form its kind compares (KindAdapter.canonicalize); the fields as given when it has none. */
export function comparableRecord(adapter: Comparing, fields: Record<string, unknown>): Record<string, unknown> {
  return adapter.canonicalize ? adapter.canonicalize(fields) : fields;
}

/** Differences for every field `desired` sets, by meaning; `secretPaths` are marked sensitive. */
export function diffRecord(adapter: Comparing, desired: Record<string, unknown>, live: Record<string, unknown>, secretPaths?: ReadonlySet<string>): FieldChange[] {
  return diffFields(comparableRecord(adapter, desired), comparableRecord(adapter, live), secretPaths, adapter.fieldTypes);
}

/** Fields `live` holds in another form than `desired`, meaning the same (`before` is the account's form). */
export function restatedInRecord(adapter: Comparing, desired: Record<string, unknown>, live: Record<string, unknown>): FieldChange[] {
  return restatedFields(comparableRecord(adapter, desired), comparableRecord(adapter, live), adapter.fieldTypes);
}
