// Expands the paths a user names into the sorted list of manifest files to read.
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Diagnostic } from '../model/diagnostics.js';

const manifestExtension = /\.ya?ml$/i;
/** erpsync's own config sits beside the manifests but is never one of them. */
export const configFileName = /^erpsync\.config\.ya?ml$/i;
const skippedDirectories = new Set(['node_modules', '.git', '.erpsync']);

export interface FoundFiles {
  /** Absolute paths, in reading order. */
  files: string[];
  /** Files found by a directory scan (not named one by one): read only when they look like manifests. */
  scanned: ReadonlySet<string>;
  diagnostics: Diagnostic[];
}

export function displayPath(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

async function walk(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const found: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) {
      if (!skippedDirectories.has(entry.name) && !entry.name.startsWith('.')) found.push(...(await walk(full)));
    } else if (manifestExtension.test(entry.name) && !configFileName.test(entry.name)) {
      found.push(full);
    }
  }
  return found;
}

export async function findManifestFiles(paths: readonly string[], cwd: string): Promise<FoundFiles> {
  const files: string[] = [];
  const scanned = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  for (const given of paths) {
    const absolute = path.resolve(cwd, given);
    const position = { file: displayPath(absolute, cwd), line: 1, col: 1 };
    let info;
    try {
      info = await stat(absolute);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      diagnostics.push({
        severity: 'error',
        code: 'path-not-found',
        message: code === 'ENOENT' ? 'no such file or directory' : `cannot read this path (${code ?? 'unknown error'})`,
        position,
      });
      continue;
    }
    if (info.isDirectory()) {
      let inside: string[];
      try {
        inside = await walk(absolute);
      } catch (error) {
        diagnostics.push({ severity: 'error', code: 'unreadable', message: `cannot list this directory (${(error as NodeJS.ErrnoException).code ?? 'error'})`, position });
        continue;
      }
      if (inside.length === 0) {
        diagnostics.push({ severity: 'warning', code: 'no-manifests', message: 'the directory holds no .yaml or .yml files', position });
      }
      files.push(...inside);
      for (const file of inside) scanned.add(file);
    } else if (configFileName.test(path.basename(absolute))) {
      diagnostics.push({ severity: 'warning', code: 'config-not-manifest', message: `${path.basename(absolute)} is erpsync's config file, not a manifest; skipped`, position });
    } else {
      files.push(absolute);
    }
  }
  return { files: [...new Set(files)], scanned, diagnostics };
}
