// Helpers every resource module uses: read a body or fail with the real envelope, find a record
// or answer 404, and refuse to delete records that something else still references.
import { emptyBodyFailure, notFound, ruleFailure, validationFailure } from '../api-error.js';
import type { ObjectSpec } from '../body-schema.js';
import { readBody } from '../body-schema.js';
import type { EmulatorState } from '../state.js';

/** Reads the request body with `spec`; a missing body or any field problem answers 400. */
export function requireBody(body: unknown, spec: ObjectSpec): Record<string, unknown> {
  if (body === undefined) throw emptyBodyFailure();
  const { value, problems } = readBody(body, spec);
  if (problems.length > 0) throw validationFailure(problems);
  return value;
}

export function findById<T extends { id: number }>(records: readonly T[], id: number | undefined): T {
  const record = records.find((r) => r.id === id);
  if (!record) throw notFound();
  return record;
}

export function removeById<T extends { id: number }>(records: T[], id: number): void {
  const index = records.findIndex((r) => r.id === id);
  if (index >= 0) records.splice(index, 1);
}

export function assertNotInUse(state: EmulatorState, id: number): void {
  if (state.emUso.includes(id)) {
    throw ruleFailure('inUse', 'id', 'O registro está em uso e não pode ser excluído.');
  }
}

export function byId<T extends { id: number }>(a: T, b: T): number {
  return a.id - b.id;
}
