// Where a parsed file depends on a store's variables. A fleet's base often holds thousands of
// records and, among them, the few that name the store (`nome: Loja ${LOJA}`): only those vary
// between stores. A file is split, per document and list kind, at the first record holding a
// variable: the records before it are the same for every store (gathered once per parse, shared),
// the records from it on are each store's own (interpolated, validated and gathered per load).
// Cutting at the first such record, not picking out each one, keeps every kind's records in the
// order of the file. A variable anywhere else (version, policy, a singleton) makes the whole file
// each store's own. This module only reads parses; it never changes one.
import type { PathSegment } from '../model/desired.js';
import { isPlainRecord } from '../model/paths.js';
import type { ParsedDocument, ParsedFile } from './parse-yaml.js';

/** Per list kind of a document, the index of its first record gathered per store. */
export type Tails = ReadonlyMap<string, number>;

export interface SplitFile {
  /** The file as every store sees it: each document without its tails. Stable per parse and kinds, so it keys what is kept of it. */
  shared: ParsedFile;
  /** Per document, its tails (none for a document whose records hold no variable). */
  tails: readonly (Tails | undefined)[];
}

const splits = new WeakMap<ParsedFile, WeakMap<ReadonlySet<string>, SplitFile | null>>();

/** Whether a value holds `${` anywhere (a variable, or the `$${` escape): only then does a store's scope change it. */
function holdsVariables(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('${');
  if (Array.isArray(value)) return value.some(holdsVariables);
  return isPlainRecord(value) && Object.values(value).some(holdsVariables);
}

/** The file split at its records with variables; undefined when a variable sits outside the records of list kinds. */
export function splitAtVariables(parsed: ParsedFile, listKinds: ReadonlySet<string>): SplitFile | undefined {
  let byKinds = splits.get(parsed);
  if (!byKinds) splits.set(parsed, (byKinds = new WeakMap()));
  let split = byKinds.get(listKinds);
  if (split === undefined) byKinds.set(listKinds, (split = computeSplit(parsed, listKinds) ?? null));
  return split ?? undefined;
}

function computeSplit(parsed: ParsedFile, listKinds: ReadonlySet<string>): SplitFile | undefined {
  if (!parsed.documents.some((doc) => holdsVariables(doc.value))) return { shared: parsed, tails: [] };
  // A kind cut in one document is each store's own in every later one: its records keep their order.
  const cut = new Set<string>();
  const tails: (Tails | undefined)[] = [];
  for (const doc of parsed.documents) {
    if (!isPlainRecord(doc.value)) {
      if (holdsVariables(doc.value)) return undefined;
      tails.push(undefined);
      continue;
    }
    const ofDocument = new Map<string, number>();
    for (const [key, content] of Object.entries(doc.value)) {
      const listed = listKinds.has(key) && Array.isArray(content);
      if (!listed) {
        if (holdsVariables(content)) return undefined;
        continue;
      }
      const first = cut.has(key) ? 0 : content.findIndex(holdsVariables);
      if (first < 0 || content.length === 0) continue;
      ofDocument.set(key, first);
      cut.add(key);
    }
    tails.push(ofDocument.size > 0 ? ofDocument : undefined);
  }
  const documents = parsed.documents.map((doc, i) => {
    const ofDocument = tails[i];
    if (!ofDocument) return doc;
    const value = { ...(doc.value as Record<string, unknown>) };
    for (const [key, start] of ofDocument) value[key] = (value[key] as unknown[]).slice(0, start);
    return { ...doc, value };
  });
  return { shared: { ...parsed, documents }, tails };
}

/** A document cut to its tails, each at index 0 of its kind's list, and how its paths map back to the document's. */
export interface TailView {
  doc: ParsedDocument;
  toDocument(path: readonly PathSegment[]): PathSegment[];
}

export function viewTails(doc: ParsedDocument, tails: Tails): TailView {
  const whole = doc.value as Record<string, unknown>;
  const value: Record<string, unknown> = 'version' in whole ? { version: whole.version } : {};
  for (const [key, start] of tails) value[key] = (whole[key] as unknown[]).slice(start);
  const toDocument = (path: readonly PathSegment[]): PathSegment[] => {
    const [key, index, ...rest] = path;
    const start = typeof key === 'string' && typeof index === 'number' ? tails.get(key) : undefined;
    return start === undefined ? [...path] : [key as string, (index as number) + start, ...rest];
  };
  return {
    doc: { ...doc, value, locate: (path, where) => doc.locate(toDocument(path), where), sourceOf: (path) => doc.sourceOf(toDocument(path)) },
    toDocument,
  };
}
