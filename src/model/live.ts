// The account as read for one run: live records per unit kind, in the manifest's shape so they
// compare with the desired state. Which records are the account's own is decided when reading
// (by the kind that knows) and carried here, so planning, drift and export ask the same question.
import type { DesiredUnit } from './desired.js';
import type { UnitKind } from './kinds.js';

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
  /**
   * Part of the set every new account starts with (the default chart of categories): never
   * pruned, changed or removed only when a manifest names it. `pristine` while still as the
   * account made it (drift and export leave those out too), `modified` once someone changed it.
   * `holds-default`: the record that holds a default the account cannot be without (the default
   * warehouse) — never pruned, so the account keeps one, but the user's own to drift and export.
   */
  accountDefault?: 'pristine' | 'modified' | 'holds-default';
  /** Identity of the parent record (tree kinds, services), for ordering deletes. */
  parent?: string;
  detailLoaded: boolean;
}

export interface LiveState {
  records: ReadonlyMap<UnitKind, readonly LiveRecord[]>;
  /** Requests spent reading. */
  reads: number;
  /** Requests spent reading each unit kind (the plan predicts the cost of reading a kind again from it). */
  readsByKind?: ReadonlyMap<UnitKind, number>;
  /** Of those, the requests a read-back of written records does not repeat (ReadScope.lookup). */
  lookupsByKind?: ReadonlyMap<UnitKind, number>;
  /**
   * Per unit kind read, which of its records the read holds in full — each record that can name a
   * record erpsync may remove, with the fields that name it: `true` for every such record, or a set
   * of scopes (modules) read whole. Without an entry a kind promises nothing, and a removal that it
   * could name reads it again (ReadRequest.removing).
   */
  whole?: ReadonlyMap<UnitKind, WholeRead>;
  /** What the read met that a report should say (a list the service does not page, read whole). */
  notes?: readonly string[];
  /** Kinds whose list came whole in one answer: reading them again costs the same however many records they gain. */
  unpaged?: ReadonlySet<UnitKind>;
}

/** What a kind's read holds in full (LiveState.whole): every record that can name another, or those of these scopes. */
export type WholeRead = true | ReadonlySet<string>;

/** A live record as a removal names it: enough to find the records that name it. */
export interface RemovedRecord {
  id: number;
  identity: string;
}

/** The account's own records (built-ins, `fixa`, native, the default set): pruning never removes them. */
export function isAccountOwn(record: LiveRecord): boolean {
  return record.system !== undefined || record.accountDefault !== undefined;
}

/** The account's own records as it made them: drift does not call them unmanaged, export leaves them out. */
export function isPristineAccountRecord(record: LiveRecord): boolean {
  return record.system !== undefined || record.accountDefault === 'pristine';
}

/** What to read of the account: which unit kinds, for which desired units, and how completely. */
export interface ReadRequest {
  kinds: readonly UnitKind[];
  /** Desired units per kind: a kind reads details only for records these could match. */
  desired: ReadonlyMap<UnitKind, readonly DesiredUnit[]>;
  /** Kinds whose every record is needed (pruned kinds; drift and export read all). */
  complete: (kind: UnitKind) => boolean;
  /** Read detail-only fields of every record too (export; drift's snippets of unmanaged records). */
  everyField?: boolean;
  /** Records whose detail must be read whatever the desired units say, per kind (a saved plan's re-check). */
  detailIds?: ReadonlyMap<UnitKind, ReadonlySet<number>>;
  /** Records to read by id alone, per kind that reads so (KindAdapter.readsById): the read-back after apply. */
  byIds?: ReadonlyMap<UnitKind, ReadonlySet<number>>;
  /** Records of kinds already read in this run that nothing here writes (read-only kinds): used as they are. */
  known?: ReadonlyMap<UnitKind, readonly LiveRecord[]>;
  /**
   * Records a plan removes, per unit kind: every kind read here also reads each of its records that
   * may name one of them, with the fields that do (a transition naming a situation, a custom field
   * grouping by a product category), so the plan knows all it would orphan.
   */
  removing?: ReadonlyMap<UnitKind, readonly RemovedRecord[]>;
}

/** Reads the account for a request; the CLI wires the real reader (live/fetch-live) into workflows. */
export type AccountReader = (request: ReadRequest) => Promise<LiveState>;

/** How one unit kind's desired units paired with its live records (drift reports from it). */
export interface KindMatching {
  kind: UnitKind;
  /** Every desired unit by its canonical identity, with the live record it matched. */
  units: { identity: string; parent?: string; ensure: 'present' | 'absent'; live?: LiveRecord }[];
  /** Live records that no desired unit claimed. */
  unmatched: LiveRecord[];
}
