// The runtime half of a kind: how its records are read from the account, compared, and written.
// Each kind's file implements this next to its KindDefinition; nothing outside kinds/ knows a
// kind's endpoints, its list-versus-detail fields or its write quirks.
import type { ApiClient } from '../api/client.js';
import type { Change, FieldChange, UnitKind } from '../plan/model.js';
import type { KindDefinition } from './kind.js';

/** A record of the account, in the manifest's shape so it compares with the desired state. */
export interface LiveRecord {
  kind: UnitKind;
  id: number;
  /** Path of names, same rules as the manifest's identities. */
  identity: string;
  name: string;
  /** API field names, enum codes, references as the identity of their target. */
  fields: Record<string, unknown>;
  /** As the API returned it (list item, merged with the detail when read): the base of PUT merges. */
  raw: Record<string, unknown>;
  /** Records of the account itself that erpsync never deletes or changes. */
  system?: 'built-in' | 'fixa' | 'native';
  /** Identity of the parent record (tree kinds, services), for ordering deletes. */
  parent?: string;
  detailLoaded: boolean;
}

/** A desired record of one unit kind: a manifest record, or one derived from it (a service). */
export interface DesiredUnit {
  kind: UnitKind;
  identity: string;
  name: string;
  fields: Record<string, unknown>;
  tool: { id?: number; ensure: 'present' | 'absent'; protect: boolean; previousNames: readonly string[] };
  /** Secret field (dot path) → the environment variable it comes from. */
  secretVariables?: Readonly<Record<string, string>>;
  /** Identity of the parent unit, when the unit lives inside another (tree parent or logistics). */
  parent?: string;
  /** Where it is declared, for diagnostics at plan time. */
  locate: (path: readonly (string | number)[]) => { file: string; line: number; col: number };
}

export interface ReadScope {
  /** Desired units of this kind; a kind reads details only for records these set detail-only fields of. */
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
}

export interface WriteContext {
  client: ApiClient;
  /** Id of a record by kind and identity: read for the plan, or created earlier in this run. */
  resolveId(kind: UnitKind, identity: string): number | undefined;
  /** The live record the change acts on, as read for the plan (PUT merges onto its raw form). */
  live?: LiveRecord;
}

export interface KindAdapter {
  kind: UnitKind;
  /** The manifest side; absent for units nested in another kind (logistics services). */
  definition?: KindDefinition;
  /** The unit kind this one is nested in and derived from. */
  nestedIn?: UnitKind;
  /** The list field of a `nestedIn` record that declares these units (`servicos` of a logistics). */
  nestedField?: string;
  /** Derives nested desired units from a desired record of `nestedIn` (services of a logistics). */
  deriveDesired?(parent: DesiredUnit): DesiredUnit[];
  /** Kinds whose live records must be read first. */
  readAfter?: readonly UnitKind[];
  /** Reads live records with the fewest requests: list pages, details only where needed. */
  readLive(client: ApiClient, scope: ReadScope): Promise<LiveRecord[]>;
  /** Values compared as equal although written differently (colour case, number types). */
  canonicalize?(fields: Record<string, unknown>): Record<string, unknown>;
  /**
   * Turns field differences of a matched pair into changes: most kinds send one update, payment
   * methods move `situacao` and `padrao` to their own PATCH calls.
   */
  splitUpdate?(fields: FieldChange[]): { action: Change['action']; fields: FieldChange[] }[];
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
   * Records every new account starts with and that are still as the account made them (the
   * default chart of categories). Like `system` records, drift does not call them unmanaged and
   * export leaves them out; unlike them, erpsync may change them when a manifest says so.
   */
  isAccountDefault?(record: LiveRecord): boolean;
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
