// Which targets of erpsync.config.yaml read which manifest files: what `drift --adopt` asks before it
// writes into a file (a shared base belongs to every store that reads it), and which targets it
// must check again after writing. When the command line names the manifests, every target of the
// run reads those.
import path from 'node:path';
import type { TargetsConfig } from '../api/index.js';
import { describeTargetManifests } from '../target/resolve-target.js';
import { findManifestFiles } from '../manifest/find-files.js';
import { appendTo } from '../model/collections.js';
import type { Diagnostic } from '../model/diagnostics.js';
import { loadDesired } from './read-and-plan.js';
import type { RunIO } from '../model/run-io.js';

/** A target loaded again after files it reads changed: its diagnostics (errors mean the change broke it). */
export interface Revalidation {
  target: string;
  diagnostics: Diagnostic[];
}

export interface FileReaders {
  /** The targets that read this file (absolute path), sorted. */
  readersOf(file: string): string[];
  /** Loads, offline, every target that reads any of these files; the diagnostics of each. */
  revalidate(files: readonly string[]): Promise<Revalidation[]>;
}

export interface RunReading {
  /** The targets this run is for (`default`, `sandbox` or config names). */
  targets: readonly string[];
  /** Manifest paths given on the command line, read by every one of them; empty: each target's own. */
  paths: readonly string[];
}

export async function findFileReaders(config: TargetsConfig | undefined, run: RunReading, io: RunIO): Promise<FileReaders> {
  const readers = new Map<string, string[]>();
  const sources = new Map<string, { manifests: readonly string[]; layers: boolean }>();
  for (const name of Object.keys(config?.targets ?? {}).sort()) {
    const manifests = describeTargetManifests(config, name).manifests;
    if (manifests && !(run.targets.includes(name) && run.paths.length > 0)) sources.set(name, { manifests, layers: true });
  }
  if (run.paths.length > 0) for (const name of run.targets) sources.set(name, { manifests: run.paths.map((p) => path.resolve(io.cwd, p)), layers: false });
  for (const [name, source] of sources) {
    const found = await findManifestFiles(source.manifests, io.cwd);
    for (const file of new Set(found.files)) appendTo(readers, file, name);
  }
  return {
    readersOf: (file) => [...(readers.get(path.resolve(file)) ?? [])].sort(),
    async revalidate(files) {
      const names = [...new Set(files.flatMap((f) => readers.get(path.resolve(f)) ?? []))].sort();
      const results: Revalidation[] = [];
      for (const name of names) {
        const source = sources.get(name);
        if (!source) continue;
        const target = config?.targets[name] ? describeTargetManifests(config, name) : { name };
        const loaded = await loadDesired(source.layers ? [] : source.manifests, io, { ...target, ...(source.layers ? { manifests: [...source.manifests] } : {}) }, true);
        results.push({ target: name, diagnostics: loaded.diagnostics });
      }
      return results;
    },
  };
}
