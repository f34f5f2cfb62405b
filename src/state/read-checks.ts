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
import type { DriftAttribution, DriftSnapshotRow, DriftedRecord, FindingType } from '../model/drift.js';
import { driftSnapshotLimits, findingTypes } from '../model/drift.js';

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

/**
 * A drift snapshot whose time is a date and whose rows each name a target and count its changes;
 * undefined otherwise. A row's details (owners, drifted records) are kept only when each passes its
 * check and stays within the limits a summary keeps to; otherwise the row keeps its counts without them.
 */
export function driftSnapshotOf(value: unknown): DriftSnapshot | undefined {
  if (!isPlainRecord(value) || typeof value.at !== 'string' || Number.isNaN(Date.parse(value.at)) || !Array.isArray(value.rows)) return undefined;
  const rows = value.rows.filter((r): r is DriftSnapshotRow => isPlainRecord(r) && typeof r.target === 'string' && Number.isSafeInteger(r.changes) && (r.changes as number) >= 0);
  return rows.length === value.rows.length ? { at: new Date(value.at).toISOString(), rows: rows.map(checkedDetails) } : undefined;
}

function checkedDetails(row: DriftSnapshotRow): DriftSnapshotRow {
  const { owners, drifted, driftedLeftOut, ...counts } = row;
  const ownersKept = Array.isArray(owners) && owners.length <= 100 && owners.every(isBoundedText) ? { owners } : {};
  const records = Array.isArray(drifted) && drifted.length <= driftSnapshotLimits.records ? drifted.map(driftedRecordOf) : [undefined];
  const driftedKept =
    records.every((r) => r !== undefined) && (driftedLeftOut === undefined || isCount(driftedLeftOut)) ? { drifted: records, ...(driftedLeftOut === undefined ? {} : { driftedLeftOut }) } : {};
  return { ...counts, ...ownersKept, ...driftedKept };
}

function isBoundedText(value: unknown): value is string {
  return typeof value === 'string' && value.length <= driftSnapshotLimits.textLength;
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** A drifted record rebuilt from what passed its checks (nothing else of the stored object is kept); undefined when one fails. */
function driftedRecordOf(value: unknown): DriftedRecord | undefined {
  if (!isPlainRecord(value) || !findingTypes.includes(value.type as FindingType) || typeof value.kind !== 'string' || !unitKinds.has(value.kind) || !isBoundedText(value.key)) return undefined;
  const { fields, fieldsLeftOut, attribution } = value;
  if (!Array.isArray(fields) || fields.length > driftSnapshotLimits.fields || !fields.every(isBoundedText)) return undefined;
  if (fieldsLeftOut !== undefined && !isCount(fieldsLeftOut)) return undefined;
  const origin = attribution === undefined ? undefined : attributionOf(attribution);
  if (attribution !== undefined && origin === undefined) return undefined;
  return { type: value.type as FindingType, kind: value.kind, key: value.key, fields, ...(fieldsLeftOut === undefined ? {} : { fieldsLeftOut }), ...(origin ? { attribution: origin } : {}) };
}

function attributionOf(value: unknown): DriftAttribution | undefined {
  if (!isPlainRecord(value) || (value.by !== 'erpsync' && value.by !== 'erp' && value.by !== 'never-applied')) return undefined;
  if ((value.run !== undefined && !isBoundedText(value.run)) || (value.at !== undefined && !isBoundedText(value.at))) return undefined;
  return { by: value.by, ...(value.run === undefined ? {} : { run: value.run }), ...(value.at === undefined ? {} : { at: value.at }) };
}
