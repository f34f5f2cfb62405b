// Manifests shared by the stores of a fleet are parsed once per process: a file's parse depends
// only on its name and bytes, so the stores that read the same base share one ParsedFile, and each
// store's variables and overlays are applied to it afterwards (interpolation builds new values,
// never changing the parse). A file that changed between stores has other bytes: parsed again.
import { createHash } from 'node:crypto';
import type { ParsedFile } from './parse-yaml.js';
import { parseYamlFile } from './parse-yaml.js';

/** Files kept; past this, the oldest parse is forgotten (a run reads far fewer distinct files). */
const MAX_FILES = 4_096;

const parsed = new Map<string, ParsedFile>();

export function parseYamlFileOnce(shown: string, bytes: Uint8Array): ParsedFile {
  const key = `${shown}\u0000${createHash('sha256').update(bytes).digest('base64')}`;
  const known = parsed.get(key);
  if (known) return known;
  const fresh = parseYamlFile(shown, bytes);
  if (parsed.size >= MAX_FILES) parsed.delete(parsed.keys().next().value as string);
  parsed.set(key, fresh);
  return fresh;
}

/** Forgets every parse (the bench measures a first parse against later ones; tests parse alone). */
export function forgetParsedFiles(): void {
  parsed.clear();
}
