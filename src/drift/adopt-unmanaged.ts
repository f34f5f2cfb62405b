// drift --adopt of unmanaged records: a record the account has in a kind the manifests manage, named
// by no manifest, is written into a manifest file — at the end of its kind's list, or under a new
// kind key at the end of the file — in the manifest language export writes (labels, references by
// name, secrets as `${VAR}`). Two pure steps, like adopt-drift's: planUnmanagedAdoption decides the
// record and its file, insertRecords splices one file's text where the yaml document API places each record, so the
// comments, key order, flow style and other records stay byte for byte as they were.
import { Document, isMap, isScalar, isSeq, parseAllDocuments, parseDocument } from 'yaml';
import type { Node } from 'yaml';
import { toManifestEntry } from '../export/manifest-record.js';
import type { KindAdapter } from '../kinds/kind.js';
import type { KindKey } from '../model/kinds.js';
import type { AdoptionInput, NotAdopted } from './adopt-drift.js';

/** One record to add to a file. */
export interface RecordInsert {
  file: string;
  kind: KindKey;
  shape: 'list' | 'singleton';
  value: Record<string, unknown>;
  subject: string;
}

/**
 * The unmanaged records of the report, each with the file `chooseFile` names for its kind (a file
 * this target alone reads, preferably one that declares the kind already). A service of a declared
 * logistics is not placed: it belongs inside that record.
 */
export function planUnmanagedAdoption(input: AdoptionInput, chooseFile: (kind: KindKey) => string | undefined): { inserts: RecordInsert[]; notAdopted: NotAdopted[] } {
  const inserts: RecordInsert[] = [];
  const notAdopted: NotAdopted[] = [];
  for (const finding of input.report.findings.filter((f) => f.type === 'unmanaged')) {
    const adapter: KindAdapter | undefined = input.adapters.find((a) => a.kind === finding.kind);
    const live = (input.live.records.get(finding.kind) ?? []).find((r) => r.id === finding.liveId);
    const subject = `${finding.kind} "${finding.key}" (unmanaged)`;
    const definition = adapter?.definition;
    if (!adapter || !live || !definition) {
      notAdopted.push({ subject, why: adapter?.nestedIn ? `a unit of a ${adapter.nestedIn} record the manifests declare: add it under that record by hand (drift shows the snippet)` : 'its record was not read' });
      continue;
    }
    const file = chooseFile(definition.key);
    if (file === undefined) {
      notAdopted.push({ subject, why: 'no manifest file to write it into' });
      continue;
    }
    const value = toManifestEntry(adapter, live, { adapters: input.adapters, live: input.live }).value;
    inserts.push({ file, kind: definition.key, shape: definition.shape, value, subject });
  }
  return { inserts, notAdopted };
}

/** The file's text with the records added; refuses what it cannot place (a multi-document file, a kind key of another shape). */
export function insertRecords(text: string, inserts: readonly RecordInsert[]): { text: string; refused: NotAdopted[] } {
  const documents = parseAllDocuments(text);
  if (!Array.isArray(documents) || documents.length !== 1 || !documents[0] || !isMap(documents[0].contents)) {
    return { text, refused: inserts.map((i) => ({ subject: i.subject, why: 'the file is not a single YAML document of kind keys: add it by hand (drift shows the snippet)' })) };
  }
  let result = text;
  const refused: NotAdopted[] = [];
  for (const insert of inserts) {
    const next = insertRecord(result, insert);
    if (typeof next === 'string') result = next;
    else refused.push(next);
  }
  return { text: result, refused };
}

const toStringOptions = { lineWidth: 0, indentSeq: true } as const;

/**
 * One record spliced into the file's text: the document API finds where (the kind's list, its key,
 * the file's end) and renders the record alone, so every other byte — comments, order, flow style
 * and its spacing — stays as written. Read back before it is kept.
 */
function insertRecord(text: string, insert: RecordInsert): string | NotAdopted {
  const doc = parseDocument(text);
  const root = doc.contents;
  const pair = isMap(root) ? root.items.find((p) => isScalar(p.key) && p.key.value === insert.kind) : undefined;
  const value = pair?.value;
  const body = insert.shape === 'singleton' ? insert.value : [insert.value];
  const render = (node: unknown) => new Document(node).toString(toStringOptions);
  let spliced: string | undefined;
  if (!pair) {
    // A new kind key stands apart from the one before it, as export writes kinds.
    const ending = text.endsWith('\n\n') || text === '' ? '' : text.endsWith('\n') ? '\n' : '\n\n';
    spliced = `${text}${ending}${render({ [insert.kind]: body })}`;
  } else if (isScalar(pair.key) && pair.key.range && isEmptyValue(value, insert.shape)) {
    // `kind:` or `kind: []`: the records go on the lines under the key, whatever follows it (a comment) kept.
    const colon = text.indexOf(':', pair.key.range[1]) + 1;
    const cut = isSeq(value) && value.range ? value.range[1] : colon;
    const lineEnd = text.indexOf('\n', cut);
    const at = lineEnd < 0 ? text.length : lineEnd;
    const items = indentLines(render(body), columnOf(text, pair.key.range[0]) + 2).replace(/\n$/, '');
    spliced = `${text.slice(0, colon)}${text.slice(cut, at)}\n${items}${text.slice(at)}`;
  } else if (isSeq(value) && value.flow && insert.shape === 'list' && value.items.length > 0) {
    // A list written in flow style takes the record in flow style, right after its last item.
    const end = (value.items.at(-1) as Node).range?.[1];
    if (end !== undefined) spliced = `${text.slice(0, end)}, ${new Document(insert.value).toString({ ...toStringOptions, collectionStyle: 'flow' }).trim()}${text.slice(end)}`;
  } else if (isSeq(value) && !value.flow && insert.shape === 'list' && value.range && value.items.length > 0) {
    const last = value.items.at(-1) as Node;
    const end = last.range?.[1] ?? value.range[1];
    const at = text[end - 1] === '\n' ? end : text.indexOf('\n', end) < 0 ? text.length : text.indexOf('\n', end) + 1;
    // Air before the new record when the file puts air between its records.
    const air = value.items.slice(1).some((item) => (item as Node).spaceBefore === true) ? '\n' : '';
    const item = indentLines(render([insert.value]), columnOf(text, value.range[0]));
    spliced = `${text.slice(0, at)}${at > 0 && text[at - 1] !== '\n' ? '\n' : ''}${air}${item}${text.slice(at)}`;
  }
  if (spliced !== undefined && holdsRecord(spliced, insert)) return spliced;
  return { subject: insert.subject, why: `the file declares ${insert.kind} in a shape it cannot be added to: add it by hand` };
}

function isEmptyValue(value: unknown, shape: RecordInsert['shape']): boolean {
  return value === null || value === undefined || (isScalar(value) && value.value === null) || (isSeq(value) && shape === 'list' && value.items.length === 0 && value.flow === true);
}

/** The column of offset `at` in `text`. */
function columnOf(text: string, at: number): number {
  return at - (text.lastIndexOf('\n', at - 1) + 1);
}

function indentLines(text: string, by: number): string {
  const pad = ' '.repeat(by);
  return text.replace(/^(?=.)/gm, pad);
}

/** Whether the edited text parses cleanly and holds the record under its kind. */
function holdsRecord(text: string, insert: RecordInsert): boolean {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) return false;
  const held: unknown = doc.toJS()?.[insert.kind];
  const wanted = JSON.stringify(insert.value);
  return insert.shape === 'singleton' ? JSON.stringify(held) === wanted : Array.isArray(held) && held.some((item) => JSON.stringify(item) === wanted);
}
