// Which git commit a run's manifests are at, and whether they have uncommitted changes: what a saved
// plan records as its origin and what the journal records of every apply. One reader serves a whole
// run, so a fleet of 1,000 stores asks git twice per checkout (its commit, its changed files), not
// twice per store. It reads; it never writes to the repository.
import { execFile } from 'node:child_process';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { GitRevision } from '../model/plan.js';

const run = promisify(execFile);

/** The revision of these paths (files or folders, relative to the working folder); null outside a git work tree. */
export type RevisionReader = (paths: readonly string[]) => Promise<GitRevision | null>;

interface Checkout {
  root: string;
  revision: string;
  /** Files that differ from the commit (modified, added, deleted, untracked), absolute. */
  changed: readonly string[];
}

/** A reader for one run: each checkout is read once, when a path in it is first asked about. */
export function revisionReader(cwd: string): RevisionReader {
  const checkouts = new Map<string, Promise<Checkout | null>>();
  return async (paths) => {
    // As git names them: through any link on the way (a temporary folder often is one).
    const absolute = (paths.length === 0 ? ['.'] : paths).map((p) => realPath(resolve(cwd, p)));
    const first = absolute[0] ?? cwd;
    const dir = existsSync(first) && statSync(first).isDirectory() ? first : dirname(first);
    let checkout = checkouts.get(dir);
    if (!checkout) checkouts.set(dir, (checkout = readCheckout(dir)));
    const found = await checkout;
    if (!found) return null;
    return { revision: found.revision, dirty: found.changed.some((file) => absolute.some((path) => isWithin(file, path))) };
  };
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function isWithin(file: string, path: string): boolean {
  const rel = relative(path, file);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

async function readCheckout(dir: string): Promise<Checkout | null> {
  try {
    const { stdout } = await run('git', ['-C', dir, 'rev-parse', '--show-toplevel', 'HEAD'], { timeout: 10_000 });
    const [root, revision] = stdout.trim().split('\n');
    if (!root || !revision) return null;
    const { stdout: status } = await run('git', ['-C', root, 'status', '--porcelain', '-z', '--untracked-files=all'], { timeout: 10_000, maxBuffer: 64 * 1024 * 1024 });
    return { root, revision, changed: changedFiles(status).map((file) => resolve(root, file)) };
  } catch {
    // Not a work tree, no commit yet, or no git at all: the run has no revision to name.
    return null;
  }
}

/** `git status --porcelain -z`: `XY path\0`, a rename or copy followed by its old path (changed too). */
function changedFiles(status: string): string[] {
  const entries = status.split('\0');
  const files: string[] = [];
  for (let i = 0; i < entries.length; i += 1) {
    const entry = entries[i] ?? '';
    if (entry.length < 4) continue;
    files.push(entry.slice(3));
    if (entry[0] === 'R' || entry[0] === 'C') files.push(entries[(i += 1)] ?? '');
  }
  return files;
}
