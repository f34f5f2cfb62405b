// buildPlan: desired state + live state → Plan. Pure and deterministic: no I/O, no clock, no
// randomness; the same inputs always give the same plan, byte for byte. It is an orchestrator of
// named steps — canonical units, matching, changes, removals and what names them, preconditions, waves, budget — and
// every decision they make is written into the Plan, so apply, the reporters and the CLI read
// it instead of deciding again. It must not know any kind's endpoints: kinds describe their quirks.
import { deriveNestedUnits, plannedUnitKinds, selectUnitKinds, toDesiredUnit } from '../kinds/desired-units.js';
import type { KindAdapter } from '../kinds/kind.js';
import type { DesiredState, DesiredUnit } from '../model/desired.js';
import { defaultMaxDeletes, prunesKind } from '../model/desired.js';
import type { Diagnostic } from '../model/diagnostics.js';
import type { UnkeptField } from '../model/unkept-fields.js';
import type { UnitKind } from '../model/kinds.js';
import type { KindMatching, LiveRecord, LiveState } from '../model/live.js';
import type { Change, Plan, PlanBudget, PlanRename, PlanTarget } from '../model/plan.js';
import { countsAgainstBudget } from '../model/plan.js';
import { activeIgnoreRules, describeExpiredRule, isExpired } from '../model/ignore-rules.js';
import { canonicalizeUnits, createResolver, renameAncestors, translateLive } from './canonical-units.js';
import { matchUnits } from './match-units.js';
import { planMatch, planPrune } from './plan-changes.js';
import type { ReferrerRead } from './referrers.js';
import { settleReferrers } from './referrers.js';
import { attachPreconditions } from './preconditions.js';
import { decideVerification, estimateCost, planBatches } from './plan-requests.js';
import { assignWaves, sortChanges } from './waves.js';
import { selectChanges } from './select-changes.js';
import type { Selection, SelectionTarget } from '../model/selection.js';

export interface PlanOptions {
  target: PlanTarget;
  /** Replace (delete + create) records the API cannot change in place. */
  allowReplace: boolean;
  /**
   * Put into the plan what removing a record does to the undeclared records that name it (delete
   * them, or take its name out of their lists; for a replacement, have them name the new record)
   * instead of blocking the removal (plan/referrers).
   */
  allowCascade: boolean;
  /** Overrides the policy's delete budget. */
  maxDeletes?: number;
  /** Requests per second the client runs at, for the cost line. */
  rate: number;
  /**
   * The day (YYYY-MM-DD) policy.ignore rules are checked on: a rule whose `until` is before it has
   * expired and ignores nothing. Given by the caller so planning stays pure; without it no rule expires.
   */
  today?: string;
  /** A targeted run (--only / --exclude): the plan keeps the selected changes and what they depend on, and says it is partial. */
  selection?: Selection;
  /** Fields the service did not keep on earlier runs (model/unkept-fields): not sent again. */
  unkept?: readonly UnkeptField[];
  /**
   * Match records by pinned id and identity only — never by a name cut short or a name elsewhere in
   * the tree: a revert names exactly the records it means, and one it re-creates is no other.
   */
  exactMatch?: boolean;
}

export interface PlanResult {
  plan: Plan;
  diagnostics: Diagnostic[];
  /** Per planned unit kind, in adapter order. */
  matching: KindMatching[];
  /**
   * Kinds whose records may name what the plan removes but were not read in full: the plan blocks
   * those removals; read these (live/read-referrers) and plan again.
   */
  unreadReferrers?: ReferrerRead;
}

/** What the per-kind steps build up, kind after kind in dependency order. */
interface PlanningState {
  changes: Change[];
  diagnostics: Diagnostic[];
  matching: KindMatching[];
  desiredByKind: Map<UnitKind, DesiredUnit[]>;
  renames: Map<UnitKind, Map<string, string>>;
  /** Live records as they are after this plan's renames, per kind. */
  liveAfter: Map<UnitKind, LiveRecord[]>;
  /** Remembered unkept fields this plan does not send again. */
  skipped: UnkeptField[];
}

export function buildPlan(declared: DesiredState, live: LiveState, adapters: readonly KindAdapter[], options: PlanOptions): PlanResult {
  // Ignore rules past their `until` day apply no more; the plan says so.
  const expired = declared.policy.ignore.filter((rule) => isExpired(rule, options.today));
  const desired = expired.length === 0 ? declared : { ...declared, policy: { ...declared.policy, ignore: activeIgnoreRules(declared.policy.ignore, options.today) } };
  const plannedKinds = new Set<UnitKind>(plannedUnitKinds(desired, adapters));
  const readKinds = new Set<UnitKind>(selectUnitKinds(desired, adapters));
  const state: PlanningState = { changes: [], diagnostics: [], matching: [], desiredByKind: new Map(), renames: new Map(), liveAfter: new Map(), skipped: [] };
  for (const adapter of adapters) {
    if (adapter.definition && plannedKinds.has(adapter.kind)) state.desiredByKind.set(adapter.kind, (desired.records.get(adapter.definition.key) ?? []).map(toDesiredUnit));
  }
  const liveOf = (kind: UnitKind): readonly LiveRecord[] => live.records.get(kind) ?? [];
  const readOnlyTitles = new Map(adapters.flatMap((a) => (a.readOnly ? [[a.kind, a.readOnly.title] as const] : [])));
  const resolve = createResolver((kind) => state.desiredByKind.get(kind), liveOf, (kind) => readOnlyTitles.get(kind));
  for (const adapter of adapters) {
    // Kinds read only because others refer to them (read-only records, undeclared situations) are
    // not planned, but the changes that name them rely on them (a saved plan re-reads them).
    if (plannedKinds.has(adapter.kind)) planKind(adapter, desired, liveOf, resolve, state, options);
    else if (readKinds.has(adapter.kind)) state.liveAfter.set(adapter.kind, [...liveOf(adapter.kind)]);
  }

  const claimed = new Map(state.matching.flatMap((m) => m.units.flatMap((u) => (u.live ? [[`${m.kind}\u0000${u.live.id}`, u.identity] as const] : []))));
  const referrers = settleReferrers(state.changes, {
    units: adapters,
    liveOf,
    whole: live.whole ?? new Map(),
    declared: (kind, id) => claimed.has(`${kind}\u0000${id}`),
    claimedAs: (kind, id) => claimed.get(`${kind}\u0000${id}`),
    allowCascade: options.allowCascade,
  });
  const unitOf = indexUnits(state.desiredByKind);
  attachPreconditions(state.changes, {
    units: adapters,
    liveOf,
    liveAfterPlan: indexLiveAfterPlan(state.liveAfter),
    unitOf,
    referrers: referrers.preconditions,
  });
  for (const field of state.skipped) state.diagnostics.push(unkeptNote(field));
  assignWaves(state.changes, adapters, state.desiredByKind, live, state.diagnostics);
  const targeted = options.selection ? selectChanges(state.changes, options.selection, selectionTargetOf(adapters, state.desiredByKind, liveOf)) : undefined;
  const budget = decideBudget(targeted?.changes ?? state.changes, desired, options);
  const changes = sortChanges(targeted?.changes ?? state.changes, adapters);
  planBatches(changes, adapters, (kind, identity) => unitOf(kind, identity)?.parent);
  decideVerification(changes, live, adapters);
  const plan: Plan = {
    formatVersion: 2,
    target: options.target,
    manifestDigest: desired.digest,
    kinds: adapters.filter((a) => plannedKinds.has(a.kind)).map((a) => a.kind),
    ...(targeted ? { selection: targeted.selection } : {}),
    changes,
    budget,
    renames: collectRenames(adapters, liveOf, state.liveAfter),
    warnings: [
      ...(budget.exceeded ? [`the plan deletes or retires ${budget.removals} records, more than the budget of ${budget.limit}; apply will refuse (raise policy.maxDeletes or --max-deletes)`] : []),
      ...expired.map(describeExpiredRule),
      ...(live.notes ?? []),
    ],
    cost: estimateCost(changes, live, adapters, options.rate),
  };
  return { plan, diagnostics: state.diagnostics, matching: state.matching, ...(referrers.toRead ? { unreadReferrers: referrers.toRead } : {}) };
}

/** A name the service keeps only cut short (matchCut) is no change to send again: the unit wants what is stored. */
function keepCutName(m: ReturnType<typeof matchUnits>[number], adapter: KindAdapter): ReturnType<typeof matchUnits>[number] {
  const field = adapter.definition?.nameField;
  if (m.via !== 'cut' || !m.live || field === undefined) return m;
  return { ...m, desired: { ...m.desired, fields: { ...m.desired.fields, [field]: m.live.fields[field] ?? m.live.name } } };
}

/** One unit kind: canonical units, matching, the changes of every pair, and pruning. */
function planKind(adapter: KindAdapter, desired: DesiredState, liveOf: (kind: UnitKind) => readonly LiveRecord[], resolve: ReturnType<typeof createResolver>, state: PlanningState, options: PlanOptions): void {
  const kind = adapter.kind;
  const declared = adapter.definition ? (state.desiredByKind.get(kind) ?? []) : deriveNestedUnits(adapter, adapter.nestedIn ? (state.desiredByKind.get(adapter.nestedIn) ?? []) : []);
  const units = canonicalizeUnits(declared, adapter, resolve, state.renames, state.diagnostics);
  state.desiredByKind.set(kind, units);

  const liveRecords = liveOf(kind).map((record) => translateLive(record, adapter, state.renames));
  const tree = adapter.definition?.references.some((r) => r.parent) ?? false;
  const matches = matchUnits(units, liveRecords, state.diagnostics, kind, tree, options.exactMatch === true);
  const kindRenames = new Map<string, string>();
  for (const m of matches) if (m.live && m.live.identity !== m.desired.identity) kindRenames.set(m.live.identity, m.desired.identity);
  state.renames.set(kind, kindRenames);
  state.liveAfter.set(kind, liveRecords.map((r) => withIdentity(r, kindRenames.get(r.identity) ?? (tree ? renameAncestors(r.identity, kindRenames) : r.identity))));

  const claimed = new Set(matches.flatMap((m) => (m.live ? [m.live.id] : [])));
  state.matching.push({
    kind,
    units: matches.map((m) => ({
      identity: m.desired.identity,
      ...(m.desired.parent === undefined ? {} : { parent: m.desired.parent }),
      ensure: m.desired.tool.ensure,
      ...(m.live ? { live: m.live } : {}),
    })),
    unmatched: liveRecords.filter((r) => !claimed.has(r.id)),
  });
  const context = { adapter, policy: desired.policy, allowReplace: options.allowReplace, units, renames: kindRenames, ...(options.unkept ? { unkept: options.unkept, skipped: state.skipped } : {}) };
  for (const m of matches) state.changes.push(...planMatch(keepCutName(m, adapter), context));
  const owner = adapter.definition?.key ?? adapter.nestedIn;
  if (owner !== undefined && prunesKind(desired, owner)) {
    const containers = adapter.nestedIn ? new Set((state.desiredByKind.get(adapter.nestedIn) ?? []).filter((p) => p.tool.ensure === 'present').map((p) => p.identity)) : undefined;
    state.changes.push(...planPrune(liveRecords, claimed, containers, context));
  }
}

/** The note a field the service does not keep gets, in place of its change. */
function unkeptNote(field: UnkeptField): Diagnostic {
  return {
    severity: 'note',
    code: 'field-not-kept',
    message: `${field.kind} "${field.key}" ${field.path}: the service does not keep this field (${JSON.stringify(field.sent)} was not kept on ${field.runs} runs); erpsync does not send it again`,
    hint: 'change the value in the manifest to send it again, or delete .erpsync/read-back.json to forget what erpsync saw',
  };
}

/** What --only/--exclude patterns see of a change: its kind and key, and the record a nested unit sits in. */
function selectionTargetOf(adapters: readonly KindAdapter[], desiredByKind: ReadonlyMap<UnitKind, readonly DesiredUnit[]>, liveOf: (kind: UnitKind) => readonly LiveRecord[]): (change: Change) => SelectionTarget {
  const unitOf = indexUnits(desiredByKind);
  const containerKind = new Map(adapters.flatMap((a) => (a.nestedIn ? [[a.kind, a.nestedIn] as const] : [])));
  // Lookups by id, not scans: a targeted plan of ten thousand services must stay fast.
  const liveParent = new Map<string, string | undefined>();
  for (const kind of containerKind.keys()) for (const r of liveOf(kind)) liveParent.set(`${kind}\u0000${r.id}`, r.parent);
  return (change) => {
    const kind = containerKind.get(change.kind);
    const parent = kind === undefined ? undefined : (unitOf(change.kind, change.key)?.parent ?? liveParent.get(`${change.kind}\u0000${change.liveId}`));
    return { kind: change.kind, key: change.key, ...(kind !== undefined && parent !== undefined ? { container: { kind, key: parent } } : {}) };
  };
}

function withIdentity(record: LiveRecord, identity: string): LiveRecord {
  return identity === record.identity ? record : { ...record, identity };
}

function indexLiveAfterPlan(liveAfter: ReadonlyMap<UnitKind, readonly LiveRecord[]>): (kind: UnitKind, identity: string) => LiveRecord | undefined {
  const index = new Map<string, LiveRecord>();
  for (const [kind, records] of liveAfter) for (const r of records) index.set(`${kind}\u0000${r.identity}`, r);
  return (kind, identity) => index.get(`${kind}\u0000${identity}`);
}

function indexUnits(desiredByKind: ReadonlyMap<UnitKind, readonly DesiredUnit[]>): (kind: UnitKind, identity: string) => DesiredUnit | undefined {
  const index = new Map<string, DesiredUnit>();
  for (const [kind, units] of desiredByKind) for (const u of units) if (!index.has(`${kind}\u0000${u.identity}`)) index.set(`${kind}\u0000${u.identity}`, u);
  return (kind, identity) => index.get(`${kind}\u0000${identity}`);
}

/** The delete budget of this plan: the flag, else the policy, else the default. */
function decideBudget(changes: readonly Change[], desired: DesiredState, options: PlanOptions): PlanBudget {
  const removals = changes.filter(countsAgainstBudget).length;
  const [limit, source]: [number, PlanBudget['source']] =
    options.maxDeletes !== undefined ? [options.maxDeletes, 'flag'] : desired.policy.maxDeletes !== undefined ? [desired.policy.maxDeletes, 'policy'] : [defaultMaxDeletes, 'default'];
  return { limit, source, removals, exceeded: removals > limit };
}

/** Every live record this plan gives a new identity: apply finds them under it. */
function collectRenames(adapters: readonly KindAdapter[], liveOf: (kind: UnitKind) => readonly LiveRecord[], liveAfter: ReadonlyMap<UnitKind, readonly LiveRecord[]>): PlanRename[] {
  const renames: PlanRename[] = [];
  for (const adapter of adapters) {
    const after = new Map((liveAfter.get(adapter.kind) ?? []).map((r) => [r.id, r.identity]));
    for (const record of liveOf(adapter.kind)) {
      const to = after.get(record.id);
      if (to !== undefined && to !== record.identity) renames.push({ kind: adapter.kind, liveId: record.id, from: record.identity, to });
    }
  }
  return renames;
}

