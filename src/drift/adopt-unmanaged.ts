// drift --adopt of unmanaged records: a record the account has in a kind the manifests manage, named
// by no manifest, is written into a manifest file — at the end of its kind's list, or under a new
// kind key at the end of the file — in the manifest language export writes (labels, references by
// name, secrets as `${VAR}`). Two pure steps, like adopt-drift's: planUnmanagedAdoption decides the
// record and its file, insertRecords edits one file's text through the yaml document API, so the
// comments, key order and other records stay as they were.
import { isMap, isScalar, isSeq, parseAllDocuments } from 'yaml';
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
  const doc = documents[0];
  const root = documents[0].contents;
  const refused: NotAdopted[] = [];
  for (const insert of inserts) {
    const current = root.get(insert.kind, true);
    const empty = current === undefined || (isScalar(current) && current.value === null) || (isSeq(current) && insert.shape === 'list' && current.items.length === 0 && current.flow === true);
    if (empty) {
      const had = current !== undefined;
      doc.set(insert.kind, doc.createNode(insert.shape === 'singleton' ? insert.value : [insert.value]));
      const pair = had ? undefined : root.items.at(-1);
      if (pair) {
        // A new kind key stands apart from the one before it, as export writes kinds.
        const key = doc.createNode(insert.kind);
        key.spaceBefore = true;
        (pair as { key: unknown }).key = key;
      }
    } else if (isSeq(current) && insert.shape === 'list') {
      const node = doc.createNode(insert.value) as Node;
      // Air before the new record when the file puts air between its records.
      node.spaceBefore = current.items.slice(1).some((item) => (item as Node).spaceBefore === true);
      current.items.push(node);
    } else refused.push({ subject: insert.subject, why: `the file declares ${insert.kind} in a shape it cannot be added to: add it by hand` });
  }
  return { text: doc.toString({ lineWidth: 0 }), refused };
}
