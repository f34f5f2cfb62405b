// drift --adopt: takes the account's values of drifted fields back into the manifest files, in
// place. Two pure steps: planAdoption decides, per modified field, the manifest value to write
// (the account's value in the manifest language, as export writes it: labels, names, `$${`
// escapes) or why it cannot be adopted; rewriteManifest edits one file's text through the yaml
// document API, so comments, key order, other records and `${VAR}` references stay as they were.
// It never writes a secret, and never replaces a value that came from a variable.
import { isMap, isNode, isSeq, LineCounter, parseAllDocuments } from 'yaml';
import type { Document, Node } from 'yaml';
import { toManifestEntry } from '../export/manifest-record.js';
import type { KindAdapter } from '../kinds/kind.js';
import type { DesiredRecord, DesiredState, PathSegment } from '../model/desired.js';
import type { DriftReport } from '../model/drift.js';
import type { LiveState } from '../model/live.js';
import { isPlainRecord, parsePointer, readPath } from '../model/paths.js';
import { spliceValues } from './write-yaml-value.js';
import type { ValueSplice } from './write-yaml-value.js';

/** One field to write: where the record sits in its file, and the path and value inside it. */
export interface FieldEdit {
  file: string;
  /** Line the record starts on (tells the documents of a multi-document file apart). */
  line: number;
  recordPath: PathSegment[];
  fieldPath: PathSegment[];
  /** The account's value in the manifest language; undefined: the account has none (the key is removed). */
  value: unknown;
  /** For the report: the record and the field as drift named them. */
  subject: string;
}

export interface NotAdopted {
  subject: string;
  why: string;
}

export interface Adoption {
  edits: FieldEdit[];
  notAdopted: NotAdopted[];
}

export interface AdoptionInput {
  report: DriftReport;
  desired: DesiredState;
  live: LiveState;
  adapters: readonly KindAdapter[];
}

/** Splits a dot path the way the record's keys are spelled (a key may itself hold dots: `82.99 + 0107`). */
function splitFieldPath(value: unknown, path: string): PathSegment[] {
  if (path === '') return [];
  if (Array.isArray(value)) {
    const [head = '', ...rest] = path.split('.');
    return /^\d+$/.test(head) ? [Number(head), ...splitFieldPath(value[Number(head)], rest.join('.'))] : path.split('.');
  }
  if (isPlainRecord(value)) {
    const key = Object.keys(value)
      .filter((k) => path === k || path.startsWith(`${k}.`))
      .sort((a, b) => b.length - a.length)[0];
    if (key !== undefined) return [key, ...splitFieldPath(value[key], path.slice(key.length + 1))];
  }
  return path.split('.');
}

const startsWith = (path: readonly PathSegment[], prefix: readonly PathSegment[]) => prefix.length <= path.length && prefix.every((s, i) => String(s) === String(path[i]));

function findRecord(desired: DesiredState, adapter: KindAdapter, key: string): DesiredRecord | undefined {
  const kind = adapter.definition?.key;
  return kind === undefined ? undefined : desired.records.get(kind)?.find((r) => r.identity === key);
}

export function planAdoption(input: AdoptionInput): Adoption {
  const edits: FieldEdit[] = [];
  const notAdopted: NotAdopted[] = [];
  for (const finding of input.report.findings.filter((f) => f.type === 'modified')) {
    const adapter = input.adapters.find((a) => a.kind === finding.kind);
    const record = adapter ? findRecord(input.desired, adapter, finding.key) : undefined;
    const live = (input.live.records.get(finding.kind) ?? []).find((r) => r.id === finding.liveId);
    const name = `${finding.kind} "${finding.key}"`;
    if (!adapter || !record || !live) {
      notAdopted.push({ subject: name, why: adapter?.nestedIn ? `declared inside a ${adapter.nestedIn} record: edit it by hand` : 'its declaration was not found' });
      continue;
    }
    const entry = toManifestEntry(adapter, live, { adapters: input.adapters, live: input.live }).value;
    for (const field of finding.fields) {
      const subject = `${name} ${field.path}`;
      const fieldPath = splitFieldPath(record.source.value, field.path);
      if (field.sensitive) {
        notAdopted.push({ subject, why: 'a secret: erpsync never writes one into a manifest' });
      } else if (record.source.interpolatedPaths.some((p) => startsWith(p, fieldPath) || startsWith(fieldPath, p))) {
        notAdopted.push({ subject, why: 'its value comes from a ${VAR}: change the variable instead' });
      } else {
        const exported = readPath(entry, fieldPath);
        edits.push({ file: record.source.file, line: record.position.line, recordPath: parsePointer(record.source.pointer), fieldPath, value: exported ?? field.account, subject });
      }
    }
  }
  return { edits, notAdopted };
}

/** The document of a file that holds the record starting on `line` (1-based). */
function documentOf(documents: readonly Document.Parsed[], counter: LineCounter, edit: FieldEdit): Document.Parsed | undefined {
  return documents.find((doc) => {
    const node = doc.getIn(edit.recordPath, true) as Node | undefined;
    const start = node?.range?.[0];
    return start !== undefined && counter.linePos(start).line === edit.line;
  }) ?? (documents.length === 1 ? documents[0] : undefined);
}

/**
 * The file's text with the edits made. A value replacing a value is spliced into the text at the
 * old one's own range, on one line (write-yaml-value: nothing else moves, whatever the value
 * holds); any other edit (a new key, a removed one) goes through the document API and re-renders
 * the document, comments kept. Refuses (returns the subjects) what it cannot place: a record it
 * does not find, a new or removed key in a multi-document file.
 */
export function rewriteManifest(text: string, edits: readonly FieldEdit[]): { text: string; refused: NotAdopted[] } {
  const counter = new LineCounter();
  const documents = parseAllDocuments(text, { lineCounter: counter });
  if (!Array.isArray(documents)) return { text, refused: edits.map((e) => ({ subject: e.subject, why: 'the file holds no YAML document' })) };
  const placed: { edit: FieldEdit; doc: Document.Parsed; path: PathSegment[]; splice?: ValueSplice }[] = [];
  const refused: NotAdopted[] = [];
  for (const edit of edits) {
    const doc = documentOf(documents, counter, edit);
    const record = doc?.getIn(edit.recordPath, true);
    if (!doc || !(isMap(record) || isSeq(record))) {
      refused.push({ subject: edit.subject, why: 'its record was not found in the file' });
      continue;
    }
    const path = [...edit.recordPath, ...edit.fieldPath];
    const node = doc.getIn(path, true);
    const range = edit.value !== undefined && isNode(node) ? node.range : undefined;
    if (!range && documents.length > 1) refused.push({ subject: edit.subject, why: 'it needs a new or removed key in a multi-document file: edit it by hand' });
    else placed.push({ edit, doc, path, ...(range ? { splice: { doc: documents.findIndex((d) => d === doc), path, start: range[0], end: range[1], value: edit.value } } : {}) });
  }
  const splices = placed.flatMap((p) => (p.splice ? [p.splice] : []));
  const spliced = splices.length === placed.length ? spliceValues(text, splices) : undefined;
  if (spliced !== undefined) return { text: spliced, refused };
  if (documents.length > 1) return { text, refused: [...refused, ...placed.map((p) => ({ subject: p.edit.subject, why: 'its value could not be written in place in a multi-document file: edit it by hand' }))] };
  const first = documents[0];
  if (!first || placed.length === 0) return { text, refused };
  // setIn on a scalar keeps its node (and the comments on it); new keys go at the end of their map.
  for (const { edit, doc, path } of placed) {
    if (edit.value === undefined) doc.deleteIn(path);
    else doc.setIn(path, edit.value);
  }
  return { text: first.toString({ lineWidth: 0 }), refused };
}
