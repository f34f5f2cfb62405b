// Which targets a change of the repository touches (`--changed-since REF`), decided from paths
// alone: pure, given the files that changed (absolute paths, gone ones included), what each target
// reads, and erpsync.config.yaml as it was and as it is. A target is touched when a file it reads
// changed (a shared base touches every target that reads it), when its own entry of the config
// changed (or is new), and every target is when anything of the config outside `targets:` changed
// (a setting every target shares). Git, and reading the files, is workflows/changed-since's.
import { canonicalJson } from '../model/fingerprint.js';
import { isPlainRecord } from '../model/paths.js';
import { isScannedFrom } from '../manifest/find-files.js';

/** What a target reads: its manifest paths (files, or folders scanned for manifests) and its env file, absolute. */
export interface TargetReads {
  target: string;
  manifests: readonly string[];
  envFile?: string | undefined;
}

/** How the config changed: its shared settings, and the targets whose own entry differs (or is new). */
export interface ConfigChange {
  shared: boolean;
  entries: ReadonlySet<string>;
}

/** A touched target and why: the files it reads that changed, or the config. */
export interface TouchedTarget {
  target: string;
  because: string[];
}

/** The config documents (as parsed, `null` when there was none) compared by meaning: key order and layout do not count. */
export function compareConfigs(before: unknown, after: unknown): ConfigChange {
  const targetsOf = (doc: unknown) => (isPlainRecord(doc) && isPlainRecord(doc.targets) ? doc.targets : {});
  const sharedOf = (doc: unknown) => (isPlainRecord(doc) ? canonicalJson({ ...doc, targets: null }) : 'none');
  const old = targetsOf(before);
  const entries = Object.entries(targetsOf(after))
    .filter(([name, entry]) => !Object.hasOwn(old, name) || canonicalJson(old[name]) !== canonicalJson(entry))
    .map(([name]) => name);
  return { shared: sharedOf(before) !== sharedOf(after), entries: new Set(entries) };
}

function readsFile(reads: TargetReads, file: string): boolean {
  return file === reads.envFile || reads.manifests.some((read) => read === file || isScannedFrom(read, file));
}

/**
 * The targets (in the order given) a change touches, each with why. `show` turns an absolute path
 * into the one a person reads (relative to the working folder).
 */
export function touchedTargets(changed: readonly string[], reads: readonly TargetReads[], config: ConfigChange, configShown: string, show: (file: string) => string): TouchedTarget[] {
  return reads.flatMap((target) => {
    const because = [
      ...(config.shared ? [`the shared settings of ${configShown}`] : []),
      ...(config.entries.has(target.target) ? [`its entry in ${configShown}`] : []),
      ...changed.filter((file) => readsFile(target, file)).map(show),
    ];
    return because.length === 0 ? [] : [{ target: target.target, because }];
  });
}
