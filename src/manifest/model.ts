// The desired state as the manifests declare it: what buildPlan compares with the live account.
import type { Diagnostic, SourcePosition } from '../model/diagnostics.js';
import type { KindKey, ManifestRecord } from '../kinds/kind.js';

export type PathSegment = string | number;

/** Finds the source position of a path inside one YAML document (the value, or its key). */
export type Locator = (path: readonly PathSegment[], at?: 'key' | 'value') => SourcePosition;

export interface ToolKeys {
  /** Pins the record to a live record id. */
  id?: number;
  ensure: 'present' | 'absent';
  protect: boolean;
  previousNames: readonly string[];
}

export interface DesiredRecord {
  kind: KindKey;
  /** Identity inside the kind: parent path + name (` > ` separated), or scope + name. */
  identity: string;
  /** The record's own name (`descricao` / `nome`); empty for singletons. */
  name: string;
  /** API fields only, enum labels replaced by codes, references still as names. */
  fields: Record<string, unknown>;
  tool: ToolKeys;
  /** Secret field (dot path) → the environment variable it comes from; saved plans keep only the name. */
  secretVariables: Readonly<Record<string, string>>;
  /** Where the record is declared. */
  position: SourcePosition;
  source: ManifestRecord;
  /** Locates a path relative to this record (for diagnostics raised after loading, e.g. at plan time). */
  locate: (path: readonly PathSegment[], at?: 'key' | 'value') => SourcePosition;
}

export interface IgnoreRule {
  kind: KindKey;
  key?: string;
  field?: string;
  reason: string;
}

export interface Policy {
  prune: readonly KindKey[];
  maxDeletes: number;
  retireInsteadOfDelete: readonly KindKey[];
  ignore: readonly IgnoreRule[];
}

export interface DesiredState {
  files: readonly string[];
  /** sha256 over the files' names and bytes, for saved plans. */
  digest: string;
  /** Kinds some manifest mentions (an omitted kind is left untouched). */
  declaredKinds: ReadonlySet<KindKey>;
  records: ReadonlyMap<KindKey, readonly DesiredRecord[]>;
  policy: Policy;
}

export interface LoadResult {
  /** Present when no diagnostic is an error. */
  desired?: DesiredState;
  diagnostics: Diagnostic[];
  files: readonly string[];
}

export const defaultPolicy: Policy = { prune: [], maxDeletes: 10, retireInsteadOfDelete: [], ignore: [] };
