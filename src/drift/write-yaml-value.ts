// How drift --adopt writes a value into a manifest: in place of the old value's own text, and
// nowhere else, so no other line of the file changes (a re-rendered document reflows quotes,
// blank lines and long lines elsewhere). The value is written on one line, as YAML that reads
// back as exactly that value in any context (a block or a flow collection): plain where that is
// unambiguous, else double-quoted with escapes — line breaks, `#`, `: `, `&`, `*`, `!`, `%`,
// quotes, control characters, U+FFFE and lone surrogates included; collections in flow style.
// Every splice is proven by parsing the result: a value that does not read back is not written
// this way, and the caller falls back to the document API.
import { isDeepStrictEqual } from 'node:util';
import { parseAllDocuments, stringify } from 'yaml';
import type { PathSegment } from '../model/desired.js';

/** One value to write over the text of the node at `start`–`end` of document `doc`. */
export interface ValueSplice {
  doc: number;
  path: readonly PathSegment[];
  start: number;
  end: number;
  value: unknown;
}

/** Characters a double-quoted YAML scalar writes as escapes: controls, line and paragraph separators, BOM, noncharacters, surrogates. */
function needsEscape(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029 || code === 0xfeff || code === 0xfffe || code === 0xffff || (code >= 0xd800 && code <= 0xdfff);
}

/** A YAML double-quoted scalar on one line that reads back as `text`, whatever it holds. */
export function doubleQuoted(text: string): string {
  let out = '"';
  for (const c of text) {
    const code = c.codePointAt(0) ?? 0;
    if (c === '"' || c === '\\') out += `\\${c}`;
    else if (c === '\n') out += '\\n';
    else if (c === '\t') out += '\\t';
    else if (needsEscape(code)) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += c;
  }
  return `${out}"`;
}

/** A value in YAML flow style on one line: scalars double-quoted when text, collections as `[…]` and `{…}`. */
function flowText(value: unknown): string {
  if (typeof value === 'string') return doubleQuoted(value);
  if (Array.isArray(value)) return `[${value.map(flowText).join(', ')}]`;
  if (value !== null && typeof value === 'object') return `{ ${Object.entries(value).map(([key, item]) => `${doubleQuoted(key)}: ${flowText(item)}`).join(', ')} }`;
  return stringify(value).trim();
}

/** One-line renderings of a value, in order of preference (the plainest first). */
function renderingsOf(value: unknown): string[] {
  const plain = value !== null && typeof value === 'object' ? undefined : stringify(value, { lineWidth: 0 }).replace(/\n$/, '');
  const flow = flowText(value);
  return plain !== undefined && !plain.includes('\n') && plain !== flow ? [plain, flow] : [flow];
}

function splice(text: string, at: ValueSplice, rendering: string): string {
  return `${text.slice(0, at.start)}${rendering}${text.slice(at.end)}`;
}

/** Whether document `doc` of `text` parses cleanly and holds `value` at `path`. */
function readsBack(text: string, doc: number, path: readonly PathSegment[], value: unknown): boolean {
  const document = parseAllDocuments(text)[doc];
  if (!document || document.errors.length > 0) return false;
  return isDeepStrictEqual(readIn(document.toJS({ maxAliasCount: -1 }), path), value);
}

function readIn(value: unknown, path: readonly PathSegment[]): unknown {
  let current = value;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[String(segment)];
  }
  return current;
}

/**
 * `text` with every splice made, each value in the plainest rendering that reads back as itself
 * where it stands; undefined when one has none (the caller then edits another way).
 */
export function spliceValues(text: string, splices: readonly ValueSplice[]): string | undefined {
  const chosen: { at: ValueSplice; rendering: string }[] = [];
  for (const at of splices) {
    const rendering = renderingsOf(at.value).find((candidate) => readsBack(splice(text, at, candidate), at.doc, at.path, at.value));
    if (rendering === undefined) return undefined;
    chosen.push({ at, rendering });
  }
  let result = text;
  for (const { at, rendering } of chosen.sort((a, b) => b.at.start - a.at.start)) result = splice(result, at, rendering);
  return splices.every((at) => readsBack(result, at.doc, at.path, at.value)) ? result : undefined;
}
