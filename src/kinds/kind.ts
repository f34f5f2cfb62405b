// The contract of a kind, and defineKind. A kind is ONE object, defined in its own file: the
// manifest side (schema, labels, identity, references, secrets, cross-record checks) and the
// runtime side (how its records are read, compared and written) together. A kind nested in
// another (logistics services) is declared by its parent with defineNestedKind. registry.ts lists
// the kinds; nothing outside src/kinds knows a kind's endpoints, fields or quirks.
//
// Read-only records that manifests name (defineReadOnlyKind). The account holds records erpsync
// never writes but configuration refers to — operation natures, sales channels, contact types,
// custom field types, a module's situation actions. Each is a unit kind with no manifest side:
//  - a kind points at one with a ReferenceField whose `target` is the read-only kind (`scope`
//    narrows the name to a field of the referring record, e.g. actions within a module);
//  - it is read only when some desired record holds a name there (kinds/desired-units
//    selectUnitKinds), before every kind (the registry lists read-only kinds first), so a kind's
//    readLive finds it in `scope.earlier` and writes live references as the target's identity
//    (nameReadOnlyReference); when it was not read, live references stay ids;
//  - the planner resolves a name like any reference (unknown or ambiguous: a positioned
//    diagnostic with close matches), and a number stays an id (it becomes the identity when the
//    list was read, so both sides compare alike); it never plans a change of a read-only kind;
//  - at write time WriteContext.resolveId gives the id of a named record (referenceId).
// Adding one: a defineReadOnlyKind in its own file, its key in model/kinds' readOnlyUnitKinds and
// one registry line.
import type { ApiClient } from '../api/client.js';
import type { DesiredUnit, ManifestRecord, PathSegment } from '../model/desired.js';
import type { KindKey, ReadOnlyUnitKind, ReferenceTarget, UnitKind } from '../model/kinds.js';
import type { LiveRecord, RemovedRecord, WholeRead } from '../model/live.js';
import type { Change, FieldChange } from '../model/plan.js';
import type { Severity } from '../model/diagnostics.js';
import type { FieldTypes } from '../model/field-types.js';
import { ErpsyncError } from '../model/errors.js';

export type { KindKey, ReadOnlyUnitKind, ReferenceTarget, UnitKind } from '../model/kinds.js';

/** A JSON Schema (draft 2020-12 subset that ajv strict mode accepts). */
export type JsonSchema = { [key: string]: unknown };

/**
 * The longest text a field takes, and where that number comes from: the service's documentation, or
 * erpsync's own limit where the documentation gives none (docs/manifest.md lists them all).
 */
export interface LengthLimit {
  maxLength: number;
  source: string;
}

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
  /** Property path inside the record, e.g. ['categoriaPai'] or ['herdado']; `*` for each item of a list of names. */
  path: readonly string[];
  /** The kind whose identity the value names (this kind for a parent, another kind, or a read-only kind). */
  target: ReferenceTarget;
  /**
   * A field of the referring record whose value scopes the name (the target's identity is
   * `scope > name`), e.g. a transition's `modulo` for its actions. References within the kind
   * itself are scoped by its scopeField without saying so.
   */
  scope?: readonly string[];
  /** true when the reference points at a parent of the same kind (tree kinds; cycles are checked). */
  parent: boolean;
  /**
   * What becomes of the referring record when the record it names leaves the account (what
   * --allow-cascade plans, and what the service may do unasked): `referrer-goes` — it cannot exist
   * without it (a transition without its situation) and is deleted; `name-dropped` — the name is one
   * of a list and is taken out (a custom field's grouping categories). Default: `name-dropped` for a
   * list of names (a path ending in `*`), else `referrer-goes`.
   */
  whenTargetRemoved?: 'referrer-goes' | 'name-dropped';
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
   * Records of such a kind that name records of their own kind name them within their scope.
   */
  scopeField?: string;
  /**
   * Length limits of text fields, by dot path inside one record (`*` for each item of a list): the
   * schema carries them as maxLength, and a name longer than its limit is an error offline.
   */
  lengthLimits?: Readonly<Record<string, LengthLimit>>;
  /**
   * Identities (scope and path, as plans show them) of records every account holds of its own from
   * the start, known without reading it — the default chart, the documented built-ins: offline
   * checks hint them for a mistyped reference, as `plan` does from the account.
   */
  accountRecords?: readonly string[];
  /** Cross-record checks a schema can't express (dadosCartao only for cards, one default, …). */
  checkRecords?(records: readonly ManifestRecord[]): CheckFinding[];
  /**
   * The record's name when no single field holds it (a transition is `de → para`); the default
   * is the value of nameField. The identity is still scope + name.
   */
  composeName?(value: Record<string, unknown>): string;
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
  /** Read exactly these records, by id, and nothing else (KindAdapter.readsById; the read-back after apply). */
  byIds?: ReadonlySet<number>;
  /**
   * Read-only kinds: the identities desired records name (kinds/desired-units
   * namedReadOnlyIdentities). A kind may read less when it knows which records matter; with
   * `all` it reads every record.
   */
  named?: ReadonlySet<string>;
  /**
   * Whether a record of another kind, named by a reference, may be in the account, from what this
   * run read (kinds/desired-units mayBeInAccount). A kind may skip a read that could only find
   * records naming records the account lacks. Absent: assume it may.
   */
  mayBeInAccount?(kind: UnitKind, reference: string): boolean;
  /** A nested kind's desired parents (logistics for services), tombstones included. */
  parents?: readonly DesiredUnit[];
  /**
   * Records a plan removes, per kind (ReadRequest.removing): the read includes every record of this
   * kind that may name one of them, with the fields that do (details too). A kind that names none
   * of these kinds ignores it.
   */
  removing?: ReadonlyMap<UnitKind, readonly RemovedRecord[]>;
  /**
   * Runs a read beyond the kind's list that a read-back of records just written never makes
   * (reverse logistics behind their filter, asked for when the list lacks a named record or every
   * record is wanted), so the cost line does not count it again for the read-back. Absent: just runs it.
   */
  lookup?<T>(read: () => Promise<T>): Promise<T>;
}

export interface WriteContext {
  client: ApiClient;
  /** Id of a record by kind and identity: read for the plan, or created earlier in this run. */
  resolveId(kind: UnitKind, identity: string): number | undefined;
  /** The live record the change acts on, as read for the plan (PUT merges onto its raw form). */
  live?: LiveRecord;
  /** The changes the plan put in this change's request (Change.carries), with their live records. */
  carried?: readonly { change: Change; live?: LiveRecord }[];
}

/** The runtime side of a unit kind: a manifest kind, or one nested in it. */
export interface KindAdapter {
  kind: UnitKind;
  /** The manifest side; absent for units nested in another kind (logistics services). */
  definition?: KindDefinition;
  /** The unit kind this one is nested in and derived from. */
  nestedIn?: KindKey;
  /** Set on read-only kinds (defineReadOnlyKind): named by manifests, never planned or written. */
  readOnly?: { title: string; resource: string; accountRecords?: readonly string[]; paged?: boolean };
  /** References of a nested unit (a manifest kind's are in its definition). */
  references?: readonly ReferenceField[];
  /** The list field of a `nestedIn` record that declares these units (`servicos` of a logistics). */
  nestedField?: string;
  /** Derives nested desired units from a desired record of `nestedIn` (services of a logistics). */
  deriveDesired?(parent: DesiredUnit): DesiredUnit[];
  /** Reads live records with the fewest requests: list pages, details only where needed. */
  readLive(client: ApiClient, scope: ReadScope): Promise<LiveRecord[]>;
  /**
   * What a read with this scope holds in full (LiveState.whole): `true` when it has every record
   * that can name a record erpsync may remove, with the fields that name it; the scopes (modules)
   * it read whole; undefined for no promise. Default: `true` when it read every record
   * (`scope.all`) and each one's detail.
   */
  wholeRead?(scope: ReadScope, records: readonly LiveRecord[]): WholeRead | undefined;
  /**
   * The form a record is compared in (kinds/compare-records): keyed collections, sets sorted,
   * fields only a create takes left out. Values are compared by their fieldTypes, not here.
   */
  canonicalize?(fields: Record<string, unknown>): Record<string, unknown>;
  /** Each typed field's type (dot paths, `*` for any segment): how its values compare by meaning (model/field-types). */
  fieldTypes?: FieldTypes;
  /**
   * The fields a create sends, as its plan shows them, where that is more than the canonical form:
   * a value the API takes when a record is made but never reads back (a payment method's
   * `padrao: fiado`) is left out of every comparison, yet sent, so shown. Absent: the canonical form.
   */
  createFields?(fields: Record<string, unknown>): Record<string, unknown>;
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
  /**
   * What deleting and re-creating the record loses beyond the record itself (the values other
   * records hold in a custom field): said in the notes of a replacement and of its refusal.
   */
  replacementLoss?(record: LiveRecord): string;
  /** How a record leaves the account when deleting is impossible or the policy says retire. */
  retire?: 'status' | 'none';
  /** Already inactive: nothing to retire. */
  isRetired?(record: LiveRecord): boolean;
  /** The field changes a retirement makes, for the plan's output (e.g. situacao 1 → 0). */
  retirementFields?(record: LiveRecord): FieldChange[];
  /** Whether the API can delete records of this kind. */
  canDelete: boolean;
  /**
   * Why the API refuses to delete or retire this record as it is (the default payment method),
   * so a plan shows the removal blocked instead of failing at apply. Absent: it never refuses.
   */
  removalBlockedBy?(record: LiveRecord): string | undefined;
  /**
   * The fields export writes for a live record (manifest shape: codes, references as identities):
   * without server fields, counters the account advances by itself, and values the API gives a
   * field that a create leaves out, so an exported manifest holds only what was configured.
   * Absent: the fields as read.
   */
  exportFields?(record: LiveRecord): Record<string, unknown>;
  /** The environment variable export names for each secret field (dot path) it writes as `${VAR}`. */
  secretVariables?: Readonly<Record<string, string>>;
  /**
   * Whether reading this change's record back after apply needs its detail: the list lacks a field
   * the change writes. Absent: the kind's read carries every field it writes (list items, a singleton).
   */
  readBackDetail?(change: Change): boolean;
  /**
   * The kind reads records by id alone when a read's scope names them (ReadScope.byIds): one GET
   * of each record's detail, no list. The read-back after apply uses it where that is cheaper.
   */
  readsById?: boolean;
  /** Requests executing the change sends when nothing fails (default 1): a create that then sets a default sends two. */
  writeRequests?(change: Change): number;
  /** Writes of this kind the API takes several in one request; the planner groups them (plan/plan-requests). */
  batching?: WriteBatching;
  /** Executes one change (with the changes it carries); returns the id of a created record. */
  execute(change: Change, context: WriteContext): Promise<WriteResult>;
  /**
   * The requests a create sends once its record exists (a payment method's default, by PATCH):
   * execute sends them after its POST, and apply sends them on the record it finds after a POST
   * whose answer was lost — adopting the record is not the end of the change.
   */
  completeCreate?(change: Change, id: number, context: WriteContext): Promise<void>;
}

export interface WriteBatching {
  /** Creates ride in the create of their `nestedIn` record when the same plan creates it. */
  createsInParent?: boolean;
  /** Creates under one parent go in one request, up to this many. */
  createsPerRequest?: number;
  /** Deletes go in one bulk request, up to this many. */
  deletesPerRequest?: number;
}

export interface WriteResult {
  id?: number;
  /** Ids the answer gave the carried changes' records, by change id (when it tells them). */
  carriedIds?: Readonly<Record<string, number>>;
  /** Carried changes the service refused while the request as a whole went through, with why. */
  carriedFailures?: Readonly<Record<string, string>>;
  /**
   * Why the service refused this change's own record while the request went through (a bulk
   * delete that kept the lead's record): this change fails, its carried changes keep theirs.
   */
  refused?: string;
}

/** A manifest kind: both sides in one object, with the units nested in its records. */
export interface Kind extends KindDefinition, Omit<KindAdapter, 'references'> {
  kind: KindKey;
  definition: KindDefinition;
  nested: readonly KindAdapter[];
}

type RuntimeSpec = Omit<KindAdapter, 'kind' | 'definition' | 'nestedIn' | 'nestedField' | 'readOnly' | 'references'>;

export interface KindSpec extends KindDefinition, RuntimeSpec {
  /** Units declared inside this kind's records, each with the list field that holds them. */
  nested?: readonly NestedKindSpec[];
}

export interface NestedKindSpec extends Omit<RuntimeSpec, 'deriveDesired'> {
  kind: UnitKind;
  /** The list field of the parent record that declares these units. */
  field: string;
  /** Records the units name (paths relative to one unit), resolved like a manifest kind's references. */
  references?: readonly ReferenceField[];
  deriveDesired(parent: DesiredUnit): DesiredUnit[];
}

/** One kind, both sides together. The result is its own definition and its own adapter. */
export function defineKind(spec: KindSpec): Kind {
  const { nested = [], ...rest } = spec;
  const kind = { ...rest, kind: spec.key } as Kind;
  const units = nested.map(({ field, ...unit }): KindAdapter => ({ ...unit, nestedIn: spec.key, nestedField: field }));
  return Object.assign(kind, { definition: kind, nested: units });
}

export interface ReadOnlyKindSpec {
  kind: ReadOnlyUnitKind;
  /** Human name used in diagnostics, e.g. "operation natures". */
  title: string;
  /** API resource path, for diagnostics and docs. */
  resource: string;
  /** Records every account holds, known without reading it (KindDefinition.accountRecords). */
  accountRecords?: readonly string[];
  /** False for a list the API serves whole, without `pagina`/`limite` (doctor does not probe its paging). */
  paged?: boolean;
  /** Reads its records (the lists are short, so mostly all of them; ReadScope.named says which matter); identities by name, scoped where the kind is. */
  readLive(client: ApiClient, scope: ReadScope): Promise<LiveRecord[]>;
}

/** A read-only record kind that manifests name (see the top of this file). */
export function defineReadOnlyKind(spec: ReadOnlyKindSpec): KindAdapter {
  return {
    kind: spec.kind,
    readOnly: { title: spec.title, resource: spec.resource, ...(spec.accountRecords ? { accountRecords: spec.accountRecords } : {}), ...(spec.paged === false ? { paged: false } : {}) },
    readLive: spec.readLive,
    retire: 'none',
    canDelete: false,
    async execute(change) {
      // buildPlan never plans a change of a read-only kind; a plan file that holds one was edited.
      throw new ErpsyncError('INTERNAL', `${change.id}: ${spec.title} are read-only; erpsync never writes them`);
    },
  };
}

/** The references of a unit kind: its definition's, or a nested unit's own. */
export function referencesOf(unit: KindAdapter): readonly ReferenceField[] {
  return unit.definition?.references ?? unit.references ?? [];
}

/**
 * Where the name a reference holds is scoped: the field the reference names as its scope, or, for
 * a reference within the kind itself, the kind's own scope field (a situation's base is in its
 * module). The one rule for the loader's offline check and the planner's resolution.
 */
export function referenceScopePath(ref: ReferenceField, definition: KindDefinition | undefined): readonly string[] | undefined {
  if (ref.scope) return ref.scope;
  return definition?.scopeField && ref.target === definition.key ? [definition.scopeField] : undefined;
}

/** A unit kind nested in another kind's records; the parent's defineKind lists it under `nested`. */
export function defineNestedKind(spec: NestedKindSpec): NestedKindSpec {
  return spec;
}
