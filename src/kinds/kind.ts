// The contract of a kind, and defineKind. A kind is ONE object, defined in its own file: the
// manifest side (schema, labels, identity, references, secrets, cross-record checks) and the
// runtime side (how its records are read, compared and written) together. A kind nested in
// another (logistics services) is declared by its parent with defineNestedKind. registry.ts lists
// the kinds; nothing outside src/kinds knows a kind's endpoints, fields or quirks.
import type { ApiClient } from '../api/client.js';
import type { DesiredUnit, ManifestRecord, PathSegment } from '../model/desired.js';
import type { KindKey, UnitKind } from '../model/kinds.js';
import type { LiveRecord } from '../model/live.js';
import type { Change, FieldChange } from '../model/plan.js';
import type { Severity } from '../model/diagnostics.js';

export type { KindKey, UnitKind } from '../model/kinds.js';

/** A JSON Schema (draft 2020-12 subset that ajv strict mode accepts). */
export type JsonSchema = { [key: string]: unknown };

/** Readable label → API code. Labels are lower-case kebab-case Portuguese without accents. */
export type LabelTable = Readonly<Record<string, number | string>>;

/**
 * An enumerated field: where it sits inside one record, and its label table.
 * `path` segments are property names; `*` stands for every item of an array.
 */
export interface EnumField {
  path: readonly string[];
  labels: LabelTable;
  /** Codes the API returns on read but never accepts on write (shown by export, refused in manifests). */
  readOnlyCodes?: readonly (number | string)[];
}

/** A field that names another record instead of holding its id. */
export interface ReferenceField {
  /** Property path inside the record, e.g. ['categoriaPai'] or ['herdado']. */
  path: readonly string[];
  /** The kind whose identity the value names (this kind for a parent, or another kind). */
  target: KindKey;
  /** true when the reference points at a parent of the same kind (tree kinds; cycles are checked). */
  parent: boolean;
}

export interface CheckFinding {
  severity: Severity;
  code: string;
  message: string;
  hint?: string;
  record: ManifestRecord;
  /** Path inside the record that the finding points at; the record itself when absent. */
  path?: readonly PathSegment[];
}

/** The manifest side of a kind. */
export interface KindDefinition {
  key: KindKey;
  /** Human name used in output, e.g. "payment methods". */
  title: string;
  /** API resource path, e.g. `/formas-pagamentos`. */
  resource: string;
  /** `list` kinds are arrays of records; a `singleton` is one object (NFS-e settings). */
  shape: 'list' | 'singleton';
  /** JSON Schema of one record (list kinds) or of the object (singleton), tool keys included. */
  recordSchema: JsonSchema;
  enums: readonly EnumField[];
  /** Paths that hold secrets: accepted only through ${VAR}, never printed. */
  secretFields: readonly (readonly string[])[];
  /** The field that names a record (`descricao` or `nome`); absent for singletons. */
  nameField?: string;
  references: readonly ReferenceField[];
  /**
   * A field that scopes the name, e.g. `modulo` for situations (identity = modulo + nome).
   * Tree kinds are scoped by their parent path instead, computed from the parent reference.
   */
  scopeField?: string;
  /** Cross-record checks a schema can't express (dadosCartao only for cards, one default, …). */
  checkRecords?(records: readonly ManifestRecord[]): CheckFinding[];
}

export interface ReadScope {
  /** Desired units of this kind; a kind reads details only for records these could match. */
  desired: readonly DesiredUnit[];
  /** Every record is needed (the kind is pruned, or drift looks for unmanaged records). */
  all: boolean;
  /** Live records of kinds read before this one (parents of services, modules of situations). */
  earlier: ReadonlyMap<UnitKind, readonly LiveRecord[]>;
  /**
   * Every field of every record is needed, detail-only ones included (export, and drift's
   * snippets of unmanaged records), whatever the desired units set.
   */
  everyField?: boolean;
  /** Records whose detail must be read whatever the desired units say (a saved plan's re-check). */
  detailIds?: ReadonlySet<number>;
}

export interface WriteContext {
  client: ApiClient;
  /** Id of a record by kind and identity: read for the plan, or created earlier in this run. */
  resolveId(kind: UnitKind, identity: string): number | undefined;
  /** The live record the change acts on, as read for the plan (PUT merges onto its raw form). */
  live?: LiveRecord;
}

/** The runtime side of a unit kind: a manifest kind, or one nested in it. */
export interface KindAdapter {
  kind: UnitKind;
  /** The manifest side; absent for units nested in another kind (logistics services). */
  definition?: KindDefinition;
  /** The unit kind this one is nested in and derived from. */
  nestedIn?: KindKey;
  /** The list field of a `nestedIn` record that declares these units (`servicos` of a logistics). */
  nestedField?: string;
  /** Derives nested desired units from a desired record of `nestedIn` (services of a logistics). */
  deriveDesired?(parent: DesiredUnit): DesiredUnit[];
  /** Reads live records with the fewest requests: list pages, details only where needed. */
  readLive(client: ApiClient, scope: ReadScope): Promise<LiveRecord[]>;
  /** Values compared as equal although written differently (colour case, number types). */
  canonicalize?(fields: Record<string, unknown>): Record<string, unknown>;
  /**
   * Turns field differences of a matched pair into changes: most kinds send one update, payment
   * methods move `situacao` and `padrao` to their own PATCH calls. `live` is the record changed
   * (what the API allows may depend on it: a native carrier's services only switch on or off).
   */
  splitUpdate?(fields: FieldChange[], live?: LiveRecord): { action: Change['action']; fields: FieldChange[] }[];
  /**
   * Whether a difference settles by itself once the other desired units are applied (a default
   * that moves to another record clears on its old holder): such a difference is not planned.
   */
  settlesBy?(difference: FieldChange, unit: DesiredUnit, units: readonly DesiredUnit[]): boolean;
  /** Top-level fields the API cannot change on an existing record (replace needs --allow-replace). */
  immutableFields?: readonly string[];
  /** How a record leaves the account when deleting is impossible or the policy says retire. */
  retire?: 'status' | 'none';
  /** Already inactive: nothing to retire. */
  isRetired?(record: LiveRecord): boolean;
  /** The field changes a retirement makes, for the plan's output (e.g. situacao 1 → 0). */
  retirementFields?(record: LiveRecord): FieldChange[];
  /** Whether the API can delete records of this kind. */
  canDelete: boolean;
  /**
   * The fields export writes for a live record (manifest shape: codes, references as identities):
   * without server fields, counters the account advances by itself, and values the API gives a
   * field that a create leaves out, so an exported manifest holds only what was configured.
   * Absent: the fields as read.
   */
  exportFields?(record: LiveRecord): Record<string, unknown>;
  /** The environment variable export names for each secret field (dot path) it writes as `${VAR}`. */
  secretVariables?: Readonly<Record<string, string>>;
  /** Executes one change; returns the id of a created record. */
  execute(change: Change, context: WriteContext): Promise<{ id?: number }>;
}

/** A manifest kind: both sides in one object, with the units nested in its records. */
export interface Kind extends KindDefinition, KindAdapter {
  kind: KindKey;
  definition: KindDefinition;
  nested: readonly KindAdapter[];
}

type RuntimeSpec = Omit<KindAdapter, 'kind' | 'definition' | 'nestedIn' | 'nestedField'>;

export interface KindSpec extends KindDefinition, RuntimeSpec {
  /** Units declared inside this kind's records, each with the list field that holds them. */
  nested?: readonly NestedKindSpec[];
}

export interface NestedKindSpec extends Omit<RuntimeSpec, 'deriveDesired'> {
  kind: UnitKind;
  /** The list field of the parent record that declares these units. */
  field: string;
  deriveDesired(parent: DesiredUnit): DesiredUnit[];
}

/** One kind, both sides together. The result is its own definition and its own adapter. */
export function defineKind(spec: KindSpec): Kind {
  const { nested = [], ...rest } = spec;
  const kind = { ...rest, kind: spec.key } as Kind;
  const units = nested.map(({ field, ...unit }): KindAdapter => ({ ...unit, nestedIn: spec.key, nestedField: field }));
  return Object.assign(kind, { definition: kind, nested: units });
}

/** A unit kind nested in another kind's records; the parent's defineKind lists it under `nested`. */
export function defineNestedKind(spec: NestedKindSpec): NestedKindSpec {
  return spec;
}
