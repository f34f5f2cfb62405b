// The kinds' references read backwards: which unit kinds can name a record of a kind and where,
// which live records do, and whether a read holds them all. Planning (what a removal would orphan)
// and apply (a saved plan's re-check) ask these questions here and nowhere else. A reference to the
// record's own parent is not one of them: the records inside a removed one are its children
// (plan/plan-changes, the children precondition). Read-only kinds are never removed, so nothing
// here looks for their referrers.
import type { UnitKind } from '../model/kinds.js';
import type { LiveRecord, RemovedRecord, WholeRead } from '../model/live.js';
import { firstSegment } from '../model/names.js';
import { mapPath, readPath, readPathValues, writePath } from '../model/paths.js';
import type { KindAdapter, ReferenceField } from './kind.js';
import { referencesOf } from './kind.js';

/** A place where records of a unit kind can name a record of another (or the same) kind. */
export interface ReferrerSlot {
  kind: UnitKind;
  reference: ReferenceField;
}

/** Every place a record of `target` can be named from, in registry order. */
export function referrerSlotsOf(units: readonly KindAdapter[], target: UnitKind): ReferrerSlot[] {
  return units.flatMap((unit) => referencesOf(unit).filter((r) => !r.parent && r.target === target).map((reference) => ({ kind: unit.kind, reference })));
}

/** What a referrer undergoes when the record it names leaves (ReferenceField.whenTargetRemoved and its default). */
export function effectOnReferrer(reference: ReferenceField): 'referrer-goes' | 'name-dropped' {
  return reference.whenTargetRemoved ?? (reference.path.at(-1) === '*' ? 'name-dropped' : 'referrer-goes');
}

/**
 * Whether a value in a reference field names the record: by identity when the target kind was read
 * (the kinds write references as identities then), else by its id (a number, or its digits).
 */
export function namesRecord(value: unknown, target: RemovedRecord): boolean {
  if (typeof value === 'number') return value === target.id;
  return typeof value === 'string' && (value === target.identity || value === String(target.id));
}

/**
 * The records among `records` that name a target at `path` (the target itself left out), as a
 * lookup built once: plans that remove thousands of records look each one up instead of scanning.
 */
export function indexReferrers(records: readonly LiveRecord[], path: readonly string[]): (target: RemovedRecord & { kind: UnitKind }) => LiveRecord[] {
  const byValue = new Map<string, LiveRecord[]>();
  for (const record of records) {
    for (const value of readPathValues(record.fields, path)) {
      if (typeof value !== 'string' && typeof value !== 'number') continue;
      const key = String(value);
      byValue.set(key, [...(byValue.get(key) ?? []), record]);
    }
  }
  return (target) => {
    const found = [...(byValue.get(target.identity) ?? []), ...(byValue.get(String(target.id)) ?? [])];
    return [...new Set(found)].filter((r) => !(r.kind === target.kind && r.id === target.id));
  };
}

/**
 * Whether a read of the slot's kind holds every record that can name `target` there. A set of
 * scopes answers only for names scoped by the referrer's own scope (a transition's ends within its
 * module, a situation's base): such a name is of a record of that scope, whose identity starts with it.
 */
export function holdsReferrers(whole: WholeRead | undefined, slot: ReferrerSlot, target: RemovedRecord & { kind: UnitKind }): boolean {
  if (whole === true) return true;
  if (whole === undefined) return false;
  const scoped = slot.reference.scope !== undefined || slot.kind === target.kind;
  return scoped && whole.has(firstSegment(target.identity));
}

/** The fields of a referrer with the name of `target` taken out of the list at the slot's path. */
export function withoutName(fields: Record<string, unknown>, path: readonly string[], target: RemovedRecord): Record<string, unknown> {
  const listPath = path.at(-1) === '*' ? path.slice(0, -1) : path;
  const list = readPath(fields, listPath);
  if (!Array.isArray(list)) return fields;
  return writePath(fields, listPath, list.filter((value: unknown) => !namesRecord(value, target)));
}

/** The fields of a referrer naming `identity` wherever they named `target` at the slot's path (a replacement's new record). */
export function withNameReplaced(fields: Record<string, unknown>, path: readonly string[], target: RemovedRecord, identity: string): Record<string, unknown> {
  return mapPath(fields, path, (value) => (namesRecord(value, target) ? identity : value)) as Record<string, unknown>;
}
