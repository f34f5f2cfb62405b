// Helpers every resource module uses: read a body or fail with the real envelope, find a record
// or answer 404, and refuse to delete records that something else still references.
import type { ApiFailure } from '../api-error.js';
import { emptyBodyFailure, notFound, ruleFailure, validationFailure } from '../api-error.js';
import type { ObjectSpec } from '../body-schema.js';
import { readBody } from '../body-schema.js';
import type { Journal } from '../journal.js';
import type { EmulatorMode, RuleId } from '../rules.js';
import { enforces } from '../rules.js';
import type { EmulatorState } from '../state.js';

/** Reads the request body with `spec`; a missing body (empty-body) or any field problem answers 400. */
export function requireBody(body: unknown, spec: ObjectSpec, mode: EmulatorMode): Record<string, unknown> {
  if (body === undefined) throw emptyBodyFailure();
  const { value, problems } = readBody(body, spec, mode);
  if (problems.length > 0) throw validationFailure(problems);
  return value;
}

/** 404 when absent (rule unknown-id). */
export function findById<T extends { id: number }>(records: readonly T[], id: number | undefined): T {
  const record = records.find((r) => r.id === id);
  if (!record) throw notFound();
  return record;
}

export function removeById<T extends { id: number }>(tx: Journal, records: T[], id: number): void {
  const record = records.find((r) => r.id === id);
  if (record) tx.remove(records, record);
}

/** Throws `failure()` when `broken` and the mode applies rule `id`. */
export function check(mode: EmulatorMode, id: RuleId, broken: boolean, failure: () => ApiFailure): void {
  if (broken && enforces(mode, id)) throw failure();
}

/** Rule reference-exists: 400 for a reference to a missing record, in strict mode. */
export function checkReference(mode: EmulatorMode, exists: boolean, element: string, msg: string): void {
  check(mode, 'reference-exists', !exists, () => validationFailure([{ kind: 'unknownReference', element, msg }]));
}

/** Rule in-use: the seed names records used by documents the emulator does not model. */
export function assertNotInUse(state: EmulatorState, id: number): void {
  if (state.emUso.includes(id)) {
    throw ruleFailure('inUse', 'id', 'O registro está em uso e não pode ser excluído.');
  }
}

export function byId<T extends { id: number }>(a: T, b: T): number {
  return a.id - b.id;
}
