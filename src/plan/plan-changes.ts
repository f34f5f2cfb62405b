// The changes of one matched pair, and of the live records a plan removes. The deletion rules
// live here and nowhere else: the account's own records are never pruned (only an explicit
// tombstone can reach them, and built-ins not even then), protected records are never removed,
// and a kind that cannot be deleted is retired or blocked.
import type { KindAdapter } from '../kinds/kind.js';
import type { DesiredUnit, Policy } from '../model/desired.js';
import { comparableRecord, diffRecord } from '../kinds/compare-records.js';
import { findIgnoreRule, ignoreTargetOf } from '../model/ignore-rules.js';
import type { UnkeptField } from '../model/unkept-fields.js';
import { findUnkept } from '../model/unkept-fields.js';
import type { UnitKind } from '../model/kinds.js';
import type { LiveRecord } from '../model/live.js';
import { isAccountOwn } from '../model/live.js';
import type { Change, ChangeAction, ChangeReason, FieldChange } from '../model/plan.js';
import { classifyRemoval } from '../model/plan.js';
import { translateParentField } from './canonical-units.js';
import type { Match } from './match-units.js';

export function newChange(action: ChangeAction, kind: UnitKind, key: string, reason: ChangeReason, fields: FieldChange[], desired?: Record<string, unknown>): Change {
  return {
    id: `${kind}:${key}:${action}`,
    action,
    kind,
    key,
    reason,
    removal: classifyRemoval(action, reason),
    fields,
    ...(desired ? { desired } : {}),
    dependsOn: [],
    requires: [],
    wave: 0,
  };
}

function withSecrets(change: Change, unit: DesiredUnit): Change {
  const secrets = unit.secretVariables ?? {};
  return Object.keys(secrets).length > 0 ? { ...change, secrets: { ...secrets } } : change;
}

function creationFields(fields: Record<string, unknown>, secretPaths: ReadonlySet<string>, prefix = ''): FieldChange[] {
  return Object.entries(fields).flatMap(([key, value]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return creationFields(value as Record<string, unknown>, secretPaths, path);
    return secretPaths.has(path) ? [{ path, before: undefined, after: undefined, sensitive: true }] : [{ path, before: undefined, after: value }];
  });
}

export interface KindPlanContext {
  adapter: KindAdapter;
  policy: Policy;
  allowReplace: boolean;
  /** Every desired unit of the kind (a difference may settle by another unit's change). */
  units: readonly DesiredUnit[];
  /** Renames of this kind's records made by this plan (live identity → new identity). */
  renames: ReadonlyMap<string, string>;
  /** Fields the service did not keep on earlier runs (model/unkept-fields): not sent again; each one skipped is added to `skipped`. */
  unkept?: readonly UnkeptField[];
  skipped?: UnkeptField[];
}

function secretPathsOf(adapter: KindAdapter): Set<string> {
  return new Set((adapter.definition?.secretFields ?? []).map((p) => p.join('.')));
}

/** Whether the service did not keep this very value on earlier runs: then it is not sent again, and the plan says so. */
function skipUnkept(context: KindPlanContext, key: string, difference: FieldChange): boolean {
  const unkept = findUnkept(context.unkept, context.adapter.kind, key, difference);
  if (unkept) context.skipped?.push(unkept);
  return unkept !== undefined;
}

/** Every field a create sends, as the plan shows it (KindAdapter.createFields). */
function sentOnCreate(adapter: KindAdapter, fields: Record<string, unknown>): Record<string, unknown> {
  return adapter.createFields ? adapter.createFields(fields) : comparableRecord(adapter, fields);
}

/** What a matched (or unmatched) desired unit asks for: a create, updates, a removal, or nothing. */
export function planMatch(match: Match, context: KindPlanContext): Change[] {
  const { adapter, policy } = context;
  const unit = match.desired;
  const ignoreTarget = ignoreTargetOf(adapter, unit.identity, unit.parent);
  if (findIgnoreRule(policy.ignore, ignoreTarget)) return [];
  if (unit.tool.ensure === 'absent') return match.live ? planRemoval(adapter, match.live, 'tombstone', unit, policy.retireInsteadOfDelete) : [];
  if (!match.live) return [withSecrets(newChange('create', adapter.kind, unit.identity, 'missing', creationFields(sentOnCreate(adapter, unit.fields), secretPathsOf(adapter)), unit.fields), unit)];
  const live = match.live;
  const parentRefPath = adapter.definition?.references.find((r) => r.parent)?.path;
  const liveFields = parentRefPath ? translateParentField(live.fields, parentRefPath, context.renames) : live.fields;
  const differences = diffRecord(adapter, unit.fields, liveFields, secretPathsOf(adapter)).filter(
    (d) => !findIgnoreRule(policy.ignore, ignoreTarget, d.path) && !adapter.settlesBy?.(d, unit, context.units) && !skipUnkept(context, unit.identity, d),
  );
  if (differences.length === 0) return [];
  if (live.system) {
    return [{ ...newChange('blocked', adapter.kind, unit.identity, 'built-in', differences), liveId: live.id, note: 'a built-in record of the account: erpsync does not change it' }];
  }
  const immutable = differences.filter((d) => adapter.immutableFields?.includes(d.path.split('.')[0] ?? ''));
  if (immutable.length > 0) return planReplacement(unit, live, differences, immutable, context);
  // A record found under a previous name, or pinned by id under another name, is being renamed.
  const renamed = match.via === 'previous-name' || (match.via === 'id' && live.identity !== unit.identity);
  const reason: ChangeReason = renamed ? 'rename' : 'drift';
  const parts = adapter.splitUpdate?.(differences, live) ?? [{ action: 'update' as const, fields: differences }];
  return parts.map((part) => {
    if (part.action === 'blocked') {
      const paths = part.fields.map((f) => f.path).join(', ');
      return { ...newChange('blocked', adapter.kind, unit.identity, 'not-supported', part.fields), liveId: live.id, note: `the API offers no way to change ${paths} of an existing record` };
    }
    return withSecrets({ ...newChange(part.action, adapter.kind, unit.identity, reason, part.fields, unit.fields), liveId: live.id }, unit);
  });
}

/** Fields the API cannot change in place: delete + create with --allow-replace, blocked otherwise. */
function planReplacement(unit: DesiredUnit, live: LiveRecord, differences: FieldChange[], immutable: FieldChange[], context: KindPlanContext): Change[] {
  const { adapter } = context;
  const paths = immutable.map((d) => d.path).join(', ');
  const loss = adapter.replacementLoss?.(live);
  const losing = loss === undefined ? '' : ` (${loss})`;
  if (!context.allowReplace) {
    return [
      {
        ...newChange('blocked', adapter.kind, unit.identity, 'not-supported', differences),
        liveId: live.id,
        note: `the API cannot change ${paths} of an existing record; run with --allow-replace to delete and re-create it${losing}`,
      },
    ];
  }
  return [
    { ...newChange('delete', adapter.kind, live.identity, 'replace', []), liveId: live.id, note: `replaced: ${paths} cannot change in place${loss === undefined ? '' : `; ${loss}`}` },
    withSecrets(newChange('create', adapter.kind, unit.identity, 'replace', creationFields(sentOnCreate(adapter, unit.fields), secretPathsOf(adapter)), unit.fields), unit),
  ];
}

/**
 * Removals of live records no desired unit claimed, for a pruned kind. The account's own records
 * (built-ins, `fixa`, native, the default chart) belong to no manifest: pruning passes over them.
 * Nested units are pruned only inside containers the manifests declare.
 */
export function planPrune(liveRecords: readonly LiveRecord[], claimed: ReadonlySet<number>, declaredContainers: ReadonlySet<string> | undefined, context: KindPlanContext): Change[] {
  const { adapter, policy } = context;
  return liveRecords.flatMap((record) => {
    if (claimed.has(record.id) || isAccountOwn(record)) return [];
    if (findIgnoreRule(policy.ignore, ignoreTargetOf(adapter, record.identity, record.parent))) return [];
    if (declaredContainers && (record.parent === undefined || !declaredContainers.has(record.parent))) return [];
    return planRemoval(adapter, record, 'prune', undefined, policy.retireInsteadOfDelete);
  });
}

function planRemoval(adapter: KindAdapter, record: LiveRecord, reason: ChangeReason, unit: DesiredUnit | undefined, retireKinds: readonly string[]): Change[] {
  const base = { liveId: record.id };
  if (unit?.tool.protect) return [{ ...newChange('blocked', adapter.kind, record.identity, 'protected', []), ...base, note: 'protect: true' }];
  if (record.system) {
    return [{ ...newChange('blocked', adapter.kind, record.identity, 'built-in', []), ...base, note: `a ${record.system} record of the account: erpsync never removes it` }];
  }
  const refused = adapter.removalBlockedBy?.(record);
  if (refused !== undefined) return [{ ...newChange('blocked', adapter.kind, record.identity, 'not-supported', []), ...base, note: refused }];
  const retireByPolicy = adapter.definition ? retireKinds.includes(adapter.definition.key) : false;
  if (retireByPolicy || !adapter.canDelete) {
    if (adapter.isRetired?.(record)) return [];
    if (adapter.retire === 'status') {
      const retiredNote = adapter.canDelete ? undefined : 'the API cannot delete these records: it is retired instead';
      return [{ ...newChange('retire', adapter.kind, record.identity, reason, adapter.retirementFields?.(record) ?? []), ...base, ...(retiredNote ? { note: retiredNote } : {}) }];
    }
    const note = adapter.canDelete
      ? `policy.retireInsteadOfDelete lists ${adapter.definition?.key ?? adapter.kind}, but the API has no way to retire its records; take the kind out of that list to delete them`
      : 'this kind can be neither deleted nor retired';
    return [{ ...newChange('blocked', adapter.kind, record.identity, 'not-supported', []), ...base, note }];
  }
  return [{ ...newChange('delete', adapter.kind, record.identity, reason, []), ...base }];
}

/** Deleting a record that still has children fails in the API: block it and say why. */
export function blockRemovalsWithStayingChildren(changes: Change[], liveOf: (kind: UnitKind) => readonly LiveRecord[]): void {
  const leaving = new Set(changes.filter((c) => c.action === 'delete' || (c.action === 'update' && c.fields.length > 0)).map((c) => `${c.kind}:${c.liveId}`));
  for (const [index, change] of changes.entries()) {
    if (change.action !== 'delete') continue;
    const staying = liveOf(change.kind).filter((r) => r.parent === change.key && !leaving.has(`${change.kind}:${r.id}`));
    if (staying.length === 0) continue;
    changes[index] = {
      ...newChange('blocked', change.kind, change.key, change.reason, change.fields),
      ...(change.liveId === undefined ? {} : { liveId: change.liveId }),
      note: `${staying.length} record(s) inside it stay (${staying.map((r) => r.name).join(', ')}); delete or move them too`,
    };
  }
}
