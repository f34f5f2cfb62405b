// The export stage: live account → one manifest file per kind, in the manifest language, so a
// store configured by hand can be put under erpsync. Pure and deterministic (records in identity
// order, keys in schema order, no clock): exporting the same account twice gives the same bytes.
// The account's own records (built-in, fixa, native, untouched defaults) are left out: every
// account has them. It must not read the account, write files or print; the CLI does that.
import { compareIdentities, orderBySchema, secretVariableOf, toManifestEntry } from './manifest-record.js';
import type { ManifestEntry } from './manifest-record.js';
import { describeForNote, keepAcceptedValues } from './accepted-values.js';
import { normalizeName } from '../model/names.js';
import { printable } from '../model/printable.js';
import { isPristineAccountRecord } from '../model/live.js';
import { renderKindFile } from './render-yaml.js';
import { readPath } from '../model/paths.js';
import type { KindAdapter } from '../kinds/kind.js';
import type { KindKey } from '../model/kinds.js';
import type { LiveState } from '../model/live.js';
import { appendTo } from '../model/collections.js';

export interface ExportOptions {
  /** Manifest kinds to export, any order. */
  kinds: readonly KindKey[];
  /** What follows `$schema=` on each file's first line. */
  schemaRef: string;
  /** Where the records come from, for the header (a target name). */
  source: string;
}

export interface ExportedKind {
  kind: KindKey;
  /** File name, e.g. `formas-pagamentos.yaml`. */
  file: string;
  text: string;
  records: number;
  /** Records of the account's own left out. */
  leftOut: number;
  /** Environment variables the file's secret placeholders need. */
  variables: string[];
  warnings: string[];
}

/** `formasPagamentos` → `formas-pagamentos.yaml`, like the published schema files. */
export function exportFileName(kind: KindKey): string {
  return `${kind.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}.yaml`;
}

export function buildExport(live: LiveState, adapters: readonly KindAdapter[], options: ExportOptions): ExportedKind[] {
  const context = { adapters, live };
  return adapters.flatMap((adapter): ExportedKind[] => {
    const definition = adapter.definition;
    if (!definition || !options.kinds.includes(definition.key)) return [];
    const records = live.records.get(adapter.kind) ?? [];
    const own = records.filter((record) => isPristineAccountRecord(record));
    const warnings: string[] = [];
    // Grouped as the loader compares identities, so the exported set declares each one once.
    const byIdentity = new Map<string, typeof records[number][]>();
    for (const record of records) {
      if (isPristineAccountRecord(record)) continue;
      const identity = normalizeName(record.identity);
      appendTo(byIdentity, identity, record);
    }
    // Of records sharing a name, the first is exported pinned by its id: the name alone would be ambiguous.
    const pinned = new Set<number>();
    const chosen = [...byIdentity.entries()]
      .sort(([a], [b]) => compareIdentities(a, b))
      .map(([identity, same]) => {
        const sorted = [...same].sort((a, b) => a.id - b.id);
        const first = sorted[0] as typeof records[number];
        if (sorted.length > 1) {
          pinned.add(first.id);
          warnings.push(`${definition.key}: ${sorted.length} records are named ${describeForNote(identity)} (ids ${sorted.map((r) => r.id).join(', ')}); exported the first only, pinned by its id`);
        }
        return first;
      });
    /** Records the manifest language cannot hold: said in the file's header and as warnings. */
    const refused: string[] = [];
    const entries = chosen.flatMap((record): ManifestEntry[] => {
      const entry = toManifestEntry(adapter, record, context);
      const value = pinned.has(record.id) ? (orderBySchema({ ...entry.value, id: record.id }, definition.recordSchema) as typeof entry.value) : entry.value;
      const kept = keepAcceptedValues(definition, value);
      if (kept.accepted) return [{ value: kept.value, notes: [...entry.notes, ...kept.notes].map((note) => printable(note)) }];
      refused.push(`record ${record.id} (${describeForNote(record.identity)}), because ${kept.reason}`);
      return [];
    });
    warnings.push(...refused.map((line) => `${definition.key}: left out ${line}`));
    const variables = definition.secretFields
      .filter((path) => entries.some((entry) => readPath(entry.value, path) !== undefined))
      .map((path) => secretVariableOf(adapter, path));
    const header = [
      `${capitalize(definition.title)} exported from ${options.source} by \`erpsync export\`.`,
      ...(own.length > 0 ? [`Left out: ${own.length} record(s) every account has (built-in or still as the account made them).`] : []),
      ...refused.map((line) => `Left out: ${line}.`),
      ...(variables.length > 0 ? [`Secrets are read from the environment: set ${variables.join(', ')} where erpsync runs.`] : []),
    ];
    const text = renderKindFile({ kind: definition.key, shape: definition.shape, entries, schemaRef: options.schemaRef, header });
    return [{ kind: definition.key, file: exportFileName(definition.key), text, records: entries.length, leftOut: own.length, variables, warnings }];
  });
}


function capitalize(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}
