// The export stage: live account → one manifest file per kind, in the manifest language, so a
// store configured by hand can be put under erpsync. Pure and deterministic (records in identity
// order, keys in schema order, no clock): exporting the same account twice gives the same bytes.
// The account's own records (built-in, fixa, native, untouched defaults) are left out: every
// account has them. It must not read the account, write files or print; the CLI does that.
import { compareIdentities, secretVariableOf, toManifestEntry } from './manifest-record.js';
import { isPristineAccountRecord } from '../model/live.js';
import { renderKindFile } from './render-yaml.js';
import { readPath } from '../model/paths.js';
import type { KindAdapter } from '../kinds/kind.js';
import type { KindKey } from '../model/kinds.js';
import type { LiveState } from '../model/live.js';

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
    const byIdentity = new Map<string, typeof records[number][]>();
    for (const record of records) {
      if (isPristineAccountRecord(record)) continue;
      byIdentity.set(record.identity, [...(byIdentity.get(record.identity) ?? []), record]);
    }
    const chosen = [...byIdentity.entries()]
      .sort(([a], [b]) => compareIdentities(a, b))
      .map(([identity, same]) => {
        const sorted = [...same].sort((a, b) => a.id - b.id);
        if (sorted.length > 1) {
          warnings.push(`${definition.key}: ${sorted.length} records are named \`${identity}\` (ids ${sorted.map((r) => r.id).join(', ')}); exported the first only`);
        }
        return sorted[0] as typeof records[number];
      });
    const entries = chosen.map((record) => toManifestEntry(adapter, record, context));
    const variables = definition.secretFields
      .filter((path) => entries.some((entry) => readPath(entry.value, path) !== undefined))
      .map((path) => secretVariableOf(adapter, path));
    const header = [
      `${capitalize(definition.title)} exported from ${options.source} by \`erpsync export\`.`,
      ...(own.length > 0 ? [`Left out: ${own.length} record(s) every account has (built-in or still as the account made them).`] : []),
      ...(variables.length > 0 ? [`Secrets are read from the environment: set ${variables.join(', ')} where erpsync runs.`] : []),
    ];
    const text = renderKindFile({ kind: definition.key, shape: definition.shape, entries, schemaRef: options.schemaRef, header });
    return [{ kind: definition.key, file: exportFileName(definition.key), text, records: entries.length, leftOut: own.length, variables, warnings }];
  });
}


function capitalize(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}
