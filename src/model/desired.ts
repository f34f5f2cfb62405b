// The desired state as the manifests declare it: what buildPlan compares with the live account.
// A manifest record becomes a DesiredRecord when loaded, and a DesiredUnit (the shape reading and
// planning share, nested units included) through kinds/desired-units; nobody derives units twice.
import type { SourcePosition } from './diagnostics.js';
import type { KindKey, UnitKind } from './kinds.js';

export type PathSegment = string | number;

/** Finds the source position of a path inside one YAML document (the value, or its key). */
export type Locator = (path: readonly PathSegment[], at?: 'key' | 'value') => SourcePosition;

/** A record as it sits in the manifests after ${VAR} interpolation and label normalization. */
export interface ManifestRecord {
  kind: KindKey;
  /** The record's value (tool keys included). */
  value: Record<string, unknown>;
  /** JSON pointer of the record inside its file, e.g. `/formasPagamentos/3`. */
  pointer: string;
  file: string;
  /** Paths (segment arrays relative to the record) whose value came from a ${VAR}. */
  interpolatedPaths: readonly (readonly PathSegment[])[];
}

export interface ToolKeys {
  /** Pins the record to a live record id. */
  id?: number;
  ensure: 'present' | 'absent';
  protect: boolean;
  previousNames: readonly string[];
}

export interface DesiredRecord {
  kind: KindKey;
  /** Identity inside the kind: scope + parent path + name (` > ` separated); see model/names. */
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

/** A desired record of one unit kind: a manifest record, or one derived from it (a service). */
export interface DesiredUnit {
  kind: UnitKind;
  identity: string;
  name: string;
  fields: Record<string, unknown>;
  tool: ToolKeys;
  /** Secret field (dot path) → the environment variable it comes from. */
  secretVariables?: Readonly<Record<string, string>>;
  /** Identity of the parent unit, when the unit lives inside another (tree parent or logistics). */
  parent?: string;
  /** Where it is declared, for diagnostics at plan time. */
  locate: (path: readonly PathSegment[]) => SourcePosition;
}

export interface IgnoreRule {
  kind: KindKey;
  key?: string;
  field?: string;
  reason: string;
  /** Last day (YYYY-MM-DD) the rule applies; from the next day on it is expired and ignores nothing. */
  until?: string;
}

export interface Policy {
  prune: readonly KindKey[];
  /** The delete budget; absent when the manifests set none (the default applies). */
  maxDeletes?: number;
  retireInsteadOfDelete: readonly KindKey[];
  ignore: readonly IgnoreRule[];
}

export interface DesiredState {
  files: readonly string[];
  /** sha256 over the files' names and bytes, for saved plans. */
  digest: string;
  /** Kinds some manifest declares (an omitted kind is left untouched; `kind: []` declares none). */
  declaredKinds: ReadonlySet<KindKey>;
  records: ReadonlyMap<KindKey, readonly DesiredRecord[]>;
  policy: Policy;
}

export const defaultPolicy: Policy = { prune: [], retireInsteadOfDelete: [], ignore: [] };

/** The delete budget when neither the manifests nor the command line set one. */
export const defaultMaxDeletes = 10;

/**
 * Whether the plan removes records of `kind` that no manifest names: the policy prunes it AND the
 * manifests declare it (the loader refuses a pruned kind declared nowhere; this holds either way).
 */
export function prunesKind(desired: Pick<DesiredState, 'policy' | 'declaredKinds'>, kind: KindKey): boolean {
  return desired.policy.prune.includes(kind) && desired.declaredKinds.has(kind);
}
