// Manifests shared by the stores of a fleet are parsed once per process: a file's parse depends
// only on its name and bytes, so the stores that read the same base share one ParsedFile, and each
// store's variables and overlays are applied to it afterwards (interpolation builds new values,
// never changing the parse). A file that changed between stores has other bytes: parsed again.
import type { ParsedFile } from './parse-yaml.js';
import { parseYamlFile } from './parse-yaml.js';

/** Names kept; past this, the oldest name's parses are forgotten (a run reads far fewer distinct files). */
const MAX_FILES = 4_096;

/** Versions of one name kept (stores of a fleet may read files of one name with other bytes). */
const VERSIONS_PER_NAME = 4;

/**
 * By the name shown, the bytes parsed under it and their parse, newest first: the bytes are
 * compared whole (a copy of them is kept), which costs less than hashing them for every store.
 */
const parsed = new Map<string, { bytes: Buffer; file: ParsedFile }[]>();

export function parseYamlFileOnce(shown: string, bytes: Uint8Array): ParsedFile {
  const versions = parsed.get(shown) ?? [];
  const known = versions.find((version) => version.bytes.equals(bytes));
  if (known) return known.file;
  const file = parseYamlFile(shown, bytes);
  if (versions.length === 0 && parsed.size >= MAX_FILES) parsed.delete(parsed.keys().next().value as string);
  parsed.set(shown, [{ bytes: Buffer.from(bytes), file }, ...versions.slice(0, VERSIONS_PER_NAME - 1)]);
  return file;
}

/** Forgets every parse (the bench measures a first parse against later ones; tests parse alone). */
export function forgetParsedFiles(): void {
  parsed.clear();
}
