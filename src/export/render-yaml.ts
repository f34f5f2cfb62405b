// YAML text of exported records: one manifest file per kind (schema line, a header, `version: 1`,
// the kind's records with a blank line between them and their notes as comments), and the
// snippet drift shows for one unmanaged record. Pure: strings out, nothing written.
import { Document, isMap, isSeq } from 'yaml';
import type { Node } from 'yaml';
import type { ManifestEntry } from './manifest-record.js';
import type { KindKey } from '../model/kinds.js';

const toStringOptions = { lineWidth: 0, indentSeq: true } as const;

function commentLines(lines: readonly string[]): string {
  return lines.map((line) => ` ${line}`).join('\n');
}

/** Notes above each record, and air between records so a long list stays readable. */
function decorateItems(items: readonly unknown[], entries: readonly ManifestEntry[]): void {
  items.forEach((item, index) => {
    const node = item as Node;
    const notes = entries[index]?.notes ?? [];
    if (index > 0) node.spaceBefore = true;
    if (notes.length > 0) node.commentBefore = commentLines(notes);
  });
}

export interface KindFileInput {
  kind: KindKey;
  shape: 'list' | 'singleton';
  entries: readonly ManifestEntry[];
  /** What follows `$schema=` on the first line. */
  schemaRef: string;
  /** Comment lines under the schema line (without `#`). */
  header: readonly string[];
}

/** A complete manifest file for one kind. */
export function renderKindFile(input: KindFileInput): string {
  const body =
    input.shape === 'singleton' ? (input.entries[0]?.value ?? {}) : input.entries.map((entry) => entry.value);
  const doc = new Document({ version: 1, [input.kind]: body });
  const root = doc.contents;
  if (isMap(root)) {
    const pair = root.items[1];
    if (pair && pair.key && typeof pair.key === 'object') (pair.key as Node).spaceBefore = true;
    if (pair && isSeq(pair.value)) decorateItems(pair.value.items, input.entries);
    if (pair && isMap(pair.value) && input.shape === 'singleton' && (input.entries[0]?.notes.length ?? 0) > 0) {
      pair.value.commentBefore = commentLines(input.entries[0]?.notes ?? []);
    }
  }
  const header = [`# yaml-language-server: $schema=${input.schemaRef}`, ...(input.header.length > 0 ? ['#', ...input.header.map((line) => `# ${line}`)] : [])];
  return `${header.join('\n')}\n${doc.toString(toStringOptions)}`;
}

/** A ready-to-paste YAML fragment: the record under its kind key, or a list item under `intro`. */
export function renderSnippet(entry: ManifestEntry, where: { kind: KindKey } | { intro: string }): string {
  const body = 'kind' in where ? { [where.kind]: [entry.value] } : [entry.value];
  const doc = new Document(body);
  if (entry.notes.length > 0) doc.commentBefore = commentLines(entry.notes);
  const text = doc.toString(toStringOptions);
  return 'intro' in where ? `# ${where.intro}\n${text}` : text;
}
