// What the state store reads back — journal lines, read-back memory, drift snapshots — turned into
// the caller's types only after a check, in one place, so the local files and the postgres rows
// are trusted alike (a file edited by hand and a row written by another erpsync are both
// evidence, not truth). It reads nothing itself and never throws on bad input: what fails a check
// is left out (a line, an entry, a snapshot) and the caller goes on with the rest.
import type { JournalChangeLine, JournalEndLine, JournalLine, JournalReadBackLine, JournalRun, JournalRunLine } from '../model/journal.js';
import { statusOfRun } from '../model/journal.js';
import { kindKeys, nestedUnitKinds, readOnlyUnitKinds } from '../model/kinds.js';
import { isPlainRecord } from '../model/paths.js';
import type { UnkeptField } from '../model/unkept-fields.js';
import type { AccountReadBack, DriftSnapshot } from './state-store.js';
import type { DriftAttribution, DriftSnapshotRow, DriftedRecord, FindingType } from '../model/drift.js';
import { driftSnapshotLimits, findingTypes } from '../model/drift.js';

/** One journal line, or undefined when it does not parse as one (the torn last line of a run killed while writing it). */
export function parseJournalLine(text: string): JournalLine | undefined {
  if (text.trim() === '') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isPlainRecord(value) && typeof value.type === 'string' ? (value as unknown as JournalLine) : undefined;
  } catch {
    return undefined;
  }
}

/** One run's file as a run; undefined when it holds no run line (not a journal file). */
export function parseJournalRun(text: string, file: string): JournalRun | undefined {
  return journalRunOf(text.split('\n'), file);
}

/** A run from its lines in order (a file's, or the database's); undefined without a run line. */
export function journalRunOf(texts: readonly string[], file: string): JournalRun | undefined {
  const lines = texts.flatMap((text) => parseJournalLine(text) ?? []);
  const header = lines.find((l): l is JournalRunLine => l.type === 'run');
  if (!header) return undefined;
  const changes = lines.filter((l): l is JournalChangeLine => l.type === 'change');
  const ended = new Set(changes.map((c) => c.change));
  const end = lines.find((l): l is JournalEndLine => l.type === 'end');
  return {
    header,
    file,
    changes,
    readBack: lines.filter((l): l is JournalReadBackLine => l.type === 'read-back'),
    ...(end ? { end } : {}),
    unfinished: lines.flatMap((l) => (l.type === 'start' && !ended.has(l.change) ? [l.change] : [])),
    status: statusOfRun(end),
  };
}

/** Oldest first: run ids start with their start time. */
export function byRunId(a: JournalRun, b: JournalRun): number {
  return a.header.run < b.header.run ? -1 : a.header.run > b.header.run ? 1 : 0;
}

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
