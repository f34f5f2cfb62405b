// What the state store reads back — read-back memory, drift snapshots — turned into the caller's
// types only after a check, in one place, so the local files and the postgres rows are trusted
// alike (a file edited by hand and a row written by another erpsync are both evidence, not
// truth). Journal runs have checks of their own (journal-evidence). It reads nothing itself and
// never throws on bad input: what fails a check is left out (an entry, a snapshot) and the caller
// goes on with the rest.
import { kindKeys, nestedUnitKinds, readOnlyUnitKinds } from '../model/kinds.js';
import { isPlainRecord } from '../model/paths.js';
import type { UnkeptField } from '../model/unkept-fields.js';
import type { AccountReadBack, DriftSnapshot } from './state-store.js';

const unitKinds: ReadonlySet<string> = new Set([...kindKeys, ...nestedUnitKinds, ...readOnlyUnitKinds]);

export function emptyReadBack(): AccountReadBack {
  return { unkept: [], restated: [] };
}

/** An account's read-back memory with every entry checked; what fails is dropped, and a value that is no memory at all is an empty one. */
export function accountReadBackOf(value: unknown): AccountReadBack {
  if (!isPlainRecord(value)) return emptyReadBack();
  const unkept = Array.isArray(value.unkept) ? value.unkept.filter(isUnkeptField) : [];
  const restated = Array.isArray(value.restated) ? value.restated.filter((r): r is string => typeof r === 'string') : [];
  return { unkept, restated };
}

function isUnkeptField(value: unknown): value is UnkeptField {
  return (
    isPlainRecord(value) &&
    typeof value.kind === 'string' &&
    unitKinds.has(value.kind) &&
    typeof value.key === 'string' &&
    typeof value.path === 'string' &&
    'sent' in value &&
    Number.isSafeInteger(value.runs) &&
    (value.runs as number) > 0
  );
}

/** A drift snapshot whose time is a date and whose rows each name a target and count its changes; undefined otherwise. */
export function driftSnapshotOf(value: unknown): DriftSnapshot | undefined {
  if (!isPlainRecord(value) || typeof value.at !== 'string' || Number.isNaN(Date.parse(value.at)) || !Array.isArray(value.rows)) return undefined;
  const rows = value.rows.filter((r): r is DriftSnapshot['rows'][number] => isPlainRecord(r) && typeof r.target === 'string' && Number.isSafeInteger(r.changes) && (r.changes as number) >= 0);
  return rows.length === value.rows.length ? { at: new Date(value.at).toISOString(), rows } : undefined;
}
