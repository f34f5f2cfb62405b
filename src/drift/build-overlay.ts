// `erpsync import`: a store's overlay against a base, from drift's findings (which are plan's
// comparison). Pure: findings, the base and the account in, the overlay's YAML text out. What the
// store has that the base lacks is added; a record that differs is written whole, as the account
// holds it (an overlay's record replaces the base's whole); a record of the base the store lacks
// becomes a tombstone (`ensure: absent`), so applying base + overlay to this store changes nothing.
// A value the base feeds from `${VAR}` stays that reference where the store holds the variable's
// value — in a list too, the item that holds it found by value whatever the account's order —, and a secret is only ever the base's variable or export's placeholder, never a value.
import { Document, isMap, isSeq, LineCounter, parseAllDocuments } from 'yaml';
import type { Node } from 'yaml';
import { compareIdentities, escapeInterpolation, toManifestEntry } from '../export/manifest-record.js';
import type { KindAdapter, KindDefinition } from '../kinds/kind.js';
import type { DesiredRecord, DesiredState, PathSegment } from '../model/desired.js';
import type { DriftFinding, DriftReport } from '../model/drift.js';
import type { KindKey } from '../model/kinds.js';
import type { KindMatching, LiveRecord, LiveState } from '../model/live.js';
import { isPlainRecord, parsePointer, readPath } from '../model/paths.js';

export interface OverlayInput {
  base: DesiredState;
  live: LiveState;
  report: DriftReport;
  matching: readonly KindMatching[];
  adapters: readonly KindAdapter[];
  /** The base's files as written (their `${VAR}` references), by the name the base records carry. */
  baseTexts: ReadonlyMap<string, string>;
  schemaRef: string;
  /** Comment lines under the schema line, which may say the overlay's size. */
  header: (size: OverlaySize) => readonly string[];
}

export interface OverlaySize {
  added: number;
  changed: number;
  absent: number;
  /** Records in the overlay: added + changed + absent. */
  total: number;
}

export interface Overlay {
  text: string;
  size: OverlaySize;
}

type Entry = { type: 'live'; record: LiveRecord; reason: 'added' | 'changed'; differing: Set<string> } | { type: 'absent'; record: DesiredRecord };

const toStringOptions = { lineWidth: 0, indentSeq: true } as const;

export function buildOverlay(input: OverlayInput): Overlay {
  const entries = collectEntries(input);
  const body: Record<string, unknown> = { version: 1 };
  const size: OverlaySize = { added: 0, changed: 0, absent: 0, total: 0 };
  for (const adapter of input.adapters) {
    const definition = adapter.definition;
    const byIdentity = definition ? entries.get(definition.key) : undefined;
    if (!definition || !byIdentity) continue;
    const values = [...byIdentity.entries()]
      .sort(([a], [b]) => compareIdentities(a, b))
      .map(([, entry]) => {
        size[entry.type === 'absent' ? 'absent' : entry.reason] += 1;
        return entry.type === 'absent' ? tombstoneOf(definition, entry.record, input.baseTexts) : liveValueOf(adapter, entry, input);
      });
    body[definition.key] = definition.shape === 'singleton' ? values[0] : values;
  }
  size.total = size.added + size.changed + size.absent;
  // An overlay with nothing in it still declares a kind the base declares (with no records), so the
  // loader does not take it for a file that lost what it was meant to hold.
  if (size.total === 0) body[emptyDeclaration(input)] = [];
  const doc = new Document(body);
  // Air between kinds and between records, as export writes them, so a long overlay stays readable.
  if (isMap(doc.contents)) {
    for (const pair of doc.contents.items.slice(1)) {
      if (pair.key && typeof pair.key === 'object') (pair.key as Node).spaceBefore = true;
      if (isSeq(pair.value)) for (const item of pair.value.items.slice(1)) (item as Node).spaceBefore = true;
    }
  }
  const lines = input.header(size);
  const header = [`# yaml-language-server: $schema=${input.schemaRef}`, ...(lines.length > 0 ? ['#', ...lines.map((line) => `# ${line}`)] : [])];
  return { text: `${header.join('\n')}\n${doc.toString(toStringOptions)}`, size };
}

function emptyDeclaration(input: OverlayInput): KindKey {
  const declared = input.adapters.flatMap((a) => (a.definition && a.definition.shape === 'list' && input.base.declaredKinds.has(a.definition.key) ? [a.definition.key] : []));
  return declared[0] ?? (input.adapters.find((a) => a.definition?.shape === 'list')?.definition?.key as KindKey);
}

/** The records of the overlay, per manifest kind and identity: the account's record, or a tombstone. */
function collectEntries(input: OverlayInput): Map<KindKey, Map<string, Entry>> {
  const entries = new Map<KindKey, Map<string, Entry>>();
  const put = (kind: KindKey, identity: string, entry: Entry) => {
    let byIdentity = entries.get(kind);
    if (!byIdentity) entries.set(kind, (byIdentity = new Map()));
    const known = byIdentity.get(identity);
    // The account's record wins over a tombstone of the same identity; differences add up.
    if (known?.type === 'live' && entry.type === 'live') for (const path of entry.differing) known.differing.add(path);
    if (!known || (known.type === 'absent' && entry.type === 'live')) byIdentity.set(identity, entry);
  };
  for (const finding of input.report.findings) {
    const adapter = input.adapters.find((a) => a.kind === finding.kind);
    if (!adapter) continue;
    const top = adapter.definition ? adapter : input.adapters.find((a) => a.definition?.key === adapter.nestedIn);
    const definition = top?.definition;
    if (!top || !definition) continue;
    const live = finding.liveId === undefined ? undefined : (input.live.records.get(finding.kind) ?? []).find((r) => r.id === finding.liveId);
    const differing = new Set(finding.fields.map((f) => f.path));
    if (top !== adapter) {
      // A service differs, is added or is missing: its logistics is written whole, as the account has it.
      const parent = live?.parent ?? input.matching.find((m) => m.kind === finding.kind)?.units.find((u) => u.identity === finding.key)?.parent;
      const liveParent = parent === undefined ? undefined : (input.live.records.get(top.kind) ?? []).find((r) => r.identity === parent);
      if (liveParent) put(definition.key, liveParent.identity, { type: 'live', record: liveParent, reason: baseRecordOf(input.base, definition.key, liveParent.identity) ? 'changed' : 'added', differing: new Set() });
      continue;
    }
    const base = baseRecordOf(input.base, definition.key, finding.key);
    if (base && (!live || live.identity !== finding.key)) put(definition.key, finding.key, { type: 'absent', record: base });
    if (live) put(definition.key, live.identity, { type: 'live', record: live, reason: reasonOf(finding, input.base, definition.key, live), differing });
  }
  return entries;
}

function reasonOf(finding: DriftFinding, base: DesiredState, kind: KindKey, live: LiveRecord): 'added' | 'changed' {
  if (finding.type === 'unmanaged') return 'added';
  return baseRecordOf(base, kind, live.identity) ? 'changed' : 'added';
}

function baseRecordOf(base: DesiredState, kind: KindKey, identity: string): DesiredRecord | undefined {
  return base.records.get(kind)?.find((r) => r.identity === identity);
}

/** The account's record in the manifest language, with the base's `${VAR}` references kept where the values agree. */
function liveValueOf(adapter: KindAdapter, entry: Extract<Entry, { type: 'live' }>, input: OverlayInput): Record<string, unknown> {
  let value = toManifestEntry(adapter, entry.record, { adapters: input.adapters, live: input.live }).value;
  const definition = adapter.definition;
  const base = definition ? baseRecordOf(input.base, definition.key, entry.record.identity) : undefined;
  if (!base || !definition) return value;
  // A secret field's path may run through lists (`*`); an interpolated path names the items.
  const secrets = new Set(definition.secretFields.map((p) => p.join('.')));
  for (const path of base.source.interpolatedPaths) {
    const secret = secrets.has(path.map((segment) => (typeof segment === 'number' ? '*' : segment)).join('.'));
    // Export writes a secret as its variable already: it only takes the base's own reference, at the same place.
    const at = secret ? path : locateInWritten(base.source.value, value, path);
    if (at === undefined || readPath(value, at) === undefined) continue;
    if (!secret && entry.differing.has(at.join('.'))) continue;
    const raw = rawValueOf(base, path, input.baseTexts);
    if (raw !== undefined) value = replaceLeaf(value, at, raw) as Record<string, unknown>;
  }
  return value;
}

/**
 * Where the base's value at `path` stands in the record as written from the account, when the
 * account holds the same value there: each list index of the base mapped to the written item that
 * holds that value at the rest of the path and most resembles the base's item (the same service,
 * the same option), since the account may list them in another order. Undefined when none does.
 */
function locateInWritten(base: unknown, written: unknown, path: readonly PathSegment[]): PathSegment[] | undefined {
  const [head, ...rest] = path;
  if (head === undefined) return base !== undefined && written !== undefined && typeof base !== 'object' && String(base) === String(written) ? [] : undefined;
  if (typeof head === 'number') {
    if (!Array.isArray(base) || !Array.isArray(written)) return undefined;
    const item: unknown = base[head];
    let best: { at: PathSegment[]; score: number } | undefined;
    written.forEach((candidate: unknown, index) => {
      const tail = locateInWritten(item, candidate, rest);
      if (tail === undefined) return;
      const score = resemblance(item, candidate) + (index === head ? 0.5 : 0);
      if (!best || score > best.score) best = { at: [index, ...tail], score };
    });
    return best?.at;
  }
  if (!isPlainRecord(base) || !isPlainRecord(written)) return undefined;
  const tail = locateInWritten(base[head], written[head], rest);
  return tail === undefined ? undefined : [head, ...tail];
}

/** `value` with its leaf at `path` replaced, list items by index. */
function replaceLeaf(value: unknown, path: readonly PathSegment[], leaf: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return leaf;
  if (Array.isArray(value) && typeof head === 'number') return value.map((item: unknown, index) => (index === head ? replaceLeaf(item, rest, leaf) : item));
  return isPlainRecord(value) ? { ...value, [head]: replaceLeaf(value[head], rest, leaf) } : value;
}

/** How many fields two list items share, by value. */
function resemblance(a: unknown, b: unknown): number {
  if (!isPlainRecord(a) || !isPlainRecord(b)) return 0;
  return Object.keys(a).filter((key) => JSON.stringify(a[key]) === JSON.stringify(b[key])).length;
}

/** The keys that make a record's identity: its name, scope, parent, and what its composed name reads. */
export function identityKeys(definition: KindDefinition, value: Record<string, unknown>): string[] {
  const keys = new Set<string>();
  if (definition.nameField) keys.add(definition.nameField);
  if (definition.scopeField) keys.add(definition.scopeField);
  const parent = definition.references.find((r) => r.parent && r.target === definition.key)?.path[0];
  if (parent !== undefined) keys.add(parent);
  const compose = definition.composeName;
  if (compose) {
    const name = compose(value);
    for (const key of Object.keys(value)) {
      const { [key]: _left, ...rest } = value;
      if (compose(rest) !== name) keys.add(key);
    }
  }
  return Object.keys(value).filter((key) => keys.has(key));
}

/** `ensure: absent` for a base record the store lacks, named as the base names it. */
function tombstoneOf(definition: KindDefinition, record: DesiredRecord, texts: ReadonlyMap<string, string>): Record<string, unknown> {
  const value = record.source.value;
  const tombstone: Record<string, unknown> = {};
  for (const key of identityKeys(definition, value)) tombstone[key] = rawValueOf(record, [key], texts) ?? escapeInterpolation(value[key]);
  tombstone.ensure = 'absent';
  return tombstone;
}

/** The text of a `${VAR}` scalar at `path` of a base record, as its file writes it. */
function rawValueOf(record: DesiredRecord, path: readonly PathSegment[], texts: ReadonlyMap<string, string>): string | undefined {
  if (!record.source.interpolatedPaths.some((p) => p.length === path.length && p.every((s, i) => String(s) === String(path[i])))) return undefined;
  const text = texts.get(record.source.file);
  if (text === undefined) return undefined;
  const counter = new LineCounter();
  const documents = parseAllDocuments(text, { lineCounter: counter });
  if (!Array.isArray(documents)) return undefined;
  const recordPath = parsePointer(record.source.pointer);
  for (const doc of documents) {
    const node = doc.getIn(recordPath, true) as Node | undefined;
    const start = node?.range?.[0];
    if (start === undefined || (documents.length > 1 && counter.linePos(start).line !== record.position.line)) continue;
    if (!(isMap(node) || isSeq(node))) continue;
    const raw = doc.getIn([...recordPath, ...path]);
    if (typeof raw === 'string' && raw.includes('${')) return raw;
  }
  return undefined;
}
