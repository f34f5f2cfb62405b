// Manifests shared by the stores of a fleet are read and parsed once per process: a file's parse
// depends only on its name and bytes, so the stores that read the same base share one ParsedFile,
// and each store's variables and overlays are applied to it afterwards (interpolation builds new
// values, never changing the parse). A file that changed between stores has other bytes: parsed
// again. A file is read again unless its stat (device, inode, size, change and modification
// times) is the one it had when read, and it had not been modified within the two seconds before
// (a write within one tick of the clock can keep the times: git's "racy" files).
import { statSync } from 'node:fs';
import type { Diagnostic } from '../model/diagnostics.js';
import { readManifestFile } from './find-files.js';
import type { ParsedFile } from './parse-yaml.js';
import { parseYamlFile } from './parse-yaml.js';

/** Names kept; past this, the oldest name's parses are forgotten (a run reads far fewer distinct files). */
const MAX_FILES = 4_096;

/** Versions of one name kept (stores of a fleet may read files of one name with other bytes). */
const VERSIONS_PER_NAME = 4;

/**
 * By the name shown, the bytes parsed under it and their parse, newest first: the bytes are
 * compared whole, which costs less than hashing them for every store (none when they are the
 * very bytes read before). Nobody writes into bytes read from a manifest.
 */
const parsed = new Map<string, { bytes: Uint8Array; file: ParsedFile }[]>();

export function parseYamlFileOnce(shown: string, bytes: Uint8Array): ParsedFile {
  const versions = parsed.get(shown) ?? [];
  const known = versions.find((version) => version.bytes === bytes || Buffer.from(version.bytes.buffer, version.bytes.byteOffset, version.bytes.byteLength).equals(bytes));
  if (known) return known.file;
  const file = parseYamlFile(shown, bytes);
  if (versions.length === 0 && parsed.size >= MAX_FILES) parsed.delete(parsed.keys().next().value as string);
  parsed.set(shown, [{ bytes, file }, ...versions.slice(0, VERSIONS_PER_NAME - 1)]);
  return file;
}

/** How long after its last modification a file's stat is trusted to tell a change (a clock tick is far shorter). */
const SETTLED_MS = 2_000;

/** By path: the bytes read, the stat they were read under, and whether that stat can be trusted to change with them. */
const reads = new Map<string, { bytes: Uint8Array; stamp: string; settled: boolean }>();

/** readManifestFile, but a file whose stat is unchanged since it was read (and had settled then) is not read again. */
export function readManifestFileOnce(file: string, shown: string, diagnostics: Diagnostic[]): Uint8Array | undefined {
  let stamp: string | undefined;
  let settled = false;
  try {
    const info = statSync(file, { bigint: true });
    if (info.isFile()) {
      stamp = `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
      settled = BigInt(Date.now()) * 1_000_000n - info.mtimeNs > BigInt(SETTLED_MS) * 1_000_000n;
    }
  } catch {
    // The reader says what is wrong with the path.
  }
  const known = reads.get(file);
  if (known && stamp !== undefined && known.stamp === stamp && known.settled) return known.bytes;
  const bytes = readManifestFile(file, shown, diagnostics);
  reads.delete(file);
  if (bytes && stamp !== undefined) {
    if (reads.size >= MAX_FILES) reads.delete(reads.keys().next().value as string);
    reads.set(file, { bytes, stamp, settled });
  }
  return bytes;
}

/** Forgets every read and parse (the bench measures a first parse against later ones; tests parse alone). */
export function forgetParsedFiles(): void {
  parsed.clear();
  reads.clear();
}
