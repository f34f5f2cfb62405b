// Turns one file's bytes into plain values plus a locator from value paths back to line:col.
// Broken bytes and broken YAML become diagnostics here; nothing is thrown for bad input. A
// document whose only fault is one the value survives (a key given twice, a tag erpsync does not
// read) is still returned with its problems, so the checks after it run on what parsed.
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments } from 'yaml';
import type { Node } from 'yaml';
import { toPointer } from '../model/paths.js';
import type { Diagnostic, SourcePosition } from '../model/diagnostics.js';
import type { Locator, PathSegment } from '../model/desired.js';

/** Aliases a file may expand before we call it a resource-exhaustion attack (a "billion laughs"). */
const maxAliasCount = 200;

export interface ParsedDocument {
  value: unknown;
  /** Whether the document had any content at all (a comment-only file has none). */
  empty: boolean;
  locate: Locator;
  /** The raw source text of a scalar at a path (for column math inside interpolated strings). */
  sourceOf: (path: readonly PathSegment[]) => { text: string; offset: number; quoted: boolean } | undefined;
  /** Errors inside the document that left its value usable; each with the path it spoils, where known. */
  problems: Diagnostic[];
}

/**
 * The tags of plain JSON values. Any other tag — an application tag (`!secret`), or YAML 1.1's
 * `!!binary`, `!!timestamp`, `!!set` — would either be dropped silently (the value read as its
 * text) or make a value no manifest field takes, so it is an error where it is written.
 */
const plainTags = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((name) => `tag:yaml.org,2002:${name}`));

/** Errors after which the document's value is still what the text says (the later key wins). */
const recoverableErrors = new Set(['DUPLICATE_KEY']);

export interface ParsedFile {
  documents: ParsedDocument[];
  diagnostics: Diagnostic[];
}

/** Offset of the first byte that does not belong to a valid UTF-8 sequence, or -1. */
function findInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] ?? 0;
    let extra: number;
    if (b < 0x80) extra = 0;
    else if (b >= 0xc2 && b <= 0xdf) extra = 1;
    else if (b >= 0xe0 && b <= 0xef) extra = 2;
    else if (b >= 0xf0 && b <= 0xf4) extra = 3;
    else return i;
    for (let k = 1; k <= extra; k += 1) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
    }
    i += extra + 1;
  }
  return -1;
}

function positionOfByte(bytes: Uint8Array, offset: number, file: string): SourcePosition {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i += 1) {
    if (bytes[i] === 0x0a) {
      line += 1;
      lineStart = i + 1;
    }
  }
  return { file, line, col: offset - lineStart + 1 };
}

function childNode(node: unknown, segment: PathSegment): { key?: Node; value?: Node } | undefined {
  if (isMap(node)) {
    for (const item of node.items) {
      if (!isPair(item)) continue;
      const key = isScalar(item.key) ? item.key.value : item.key;
      if (String(key) === String(segment)) {
        return { key: item.key as Node, value: (item.value ?? undefined) as Node | undefined };
      }
    }
    return undefined;
  }
  if (isSeq(node) && typeof segment === 'number') {
    const value = node.items[segment];
    return value === undefined ? undefined : { value: value as Node };
  }
  return undefined;
}

export function parseYamlFile(file: string, bytes: Uint8Array): ParsedFile {
  const badByte = findInvalidUtf8(bytes);
  if (badByte >= 0) {
    return {
      documents: [],
      diagnostics: [
        {
          severity: 'error',
          code: 'not-utf8',
          message: `the file is not valid UTF-8 (byte 0x${(bytes[badByte] ?? 0).toString(16).padStart(2, '0')})`,
          hint: 'save the file as UTF-8',
          position: positionOfByte(bytes, badByte, file),
        },
      ],
    };
  }
  let text = new TextDecoder('utf-8').decode(bytes);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);

  const lineCounter = new LineCounter();
  const positionAt = (offset: number): SourcePosition => {
    const { line, col } = lineCounter.linePos(offset);
    return { file, line, col };
  };
  const diagnostics: Diagnostic[] = [];
  const documents: ParsedDocument[] = [];
  // logLevel 'error': the library would print its warnings (a collection used as a key…) straight
  // to the process's stderr; every problem here is a diagnostic instead.
  const parsed = parseAllDocuments(text, { lineCounter, uniqueKeys: true, prettyErrors: false, strict: true, logLevel: 'error' });
  const docs = Array.isArray(parsed) ? parsed : [parsed];

  for (const doc of docs) {
    const problems: Diagnostic[] = [];
    for (const error of doc.errors) {
      problems.push({
        severity: 'error',
        code: error.code === 'DUPLICATE_KEY' ? 'duplicate-key' : error.code === 'TAB_AS_INDENT' ? 'tab-indent' : 'yaml-syntax',
        message: describeYamlError(error.code, error.message),
        position: positionAt(error.pos[0]),
        ...(error.code === 'TAB_AS_INDENT' ? { hint: 'indent with spaces; YAML does not allow tabs for indentation' } : {}),
      });
    }
    if (!doc.errors.every((error) => recoverableErrors.has(error.code))) {
      diagnostics.push(...problems);
      continue;
    }

    const root = doc.contents;
    const { locate, sourceOf } = locatorsOf(root, text, positionAt);
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount });
    } catch {
      diagnostics.push({
        severity: 'error',
        code: 'alias-limit',
        message: `too many alias expansions (more than ${maxAliasCount}); the document looks like an alias bomb`,
        hint: 'repeat the values, or use fewer nested aliases',
        position: positionAt(root?.range?.[0] ?? 0),
      });
      continue;
    }
    findForeignTags(root, [], positionAt, problems);
    documents.push({ value, empty: root === null || value === null || value === undefined, locate, sourceOf, problems });
  }
  return { documents, diagnostics };
}

/** Every node whose tag is not a plain JSON one (see plainTags), as an error at the node. */
function findForeignTags(node: unknown, path: PathSegment[], positionAt: (offset: number) => SourcePosition, problems: Diagnostic[]): void {
  if (isAlias(node) || !node || typeof node !== 'object') return;
  const { tag, range } = node as Node;
  if (tag !== undefined && !plainTags.has(tag)) {
    problems.push({
      severity: 'error',
      code: 'unknown-tag',
      message: `the YAML tag \`${tag.replace(/^tag:yaml\.org,2002:/, '!!')}\` has no meaning in a manifest`,
      hint: 'remove the tag: manifests hold plain text, numbers, true/false, lists and mappings',
      position: positionAt(range?.[0] ?? 0),
      path: toPointer(path),
    });
  }
  if (isMap(node)) {
    for (const item of node.items) {
      if (!isPair(item)) continue;
      const key = isScalar(item.key) ? item.key.value : item.key;
      findForeignTags(item.key, path, positionAt, problems);
      findForeignTags(item.value, [...path, String(key)], positionAt, problems);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, index) => findForeignTags(item, [...path, index], positionAt, problems));
  }
}

/** Where a value path starts in the text (its key's position with `at: 'key'`), and a scalar's raw source. */
function locatorsOf(root: unknown, text: string, positionAt: (offset: number) => SourcePosition): Pick<ParsedDocument, 'locate' | 'sourceOf'> {
  const locate: Locator = (path, at = 'value') => {
    let node: unknown = root;
    let best: Node | undefined = (root ?? undefined) as Node | undefined;
    for (const [index, segment] of path.entries()) {
      const child = childNode(node, segment);
      if (!child) break;
      const last = index === path.length - 1;
      const target = last && at === 'key' ? child.key ?? child.value : child.value ?? child.key;
      if (target?.range) best = target;
      node = child.value;
    }
    return positionAt(best?.range?.[0] ?? 0);
  };
  const sourceOf: ParsedDocument['sourceOf'] = (path) => {
    let node: unknown = root;
    for (const segment of path) node = childNode(node, segment)?.value;
    if (!isScalar(node) || !node.range) return undefined;
    const quoted = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE';
    return { text: text.slice(node.range[0], node.range[1]), offset: node.range[0], quoted };
  };
  return { locate, sourceOf };
}

function describeYamlError(code: string, message: string): string {
  if (code === 'DUPLICATE_KEY') return 'the same key appears twice in one mapping';
  if (code === 'TAB_AS_INDENT') return 'a tab character is used for indentation';
  // yaml's messages end with " at line X, column Y" — we print our own position.
  return message.replace(/ at line \d+, column \d+:?[\s\S]*$/, '').trim();
}
