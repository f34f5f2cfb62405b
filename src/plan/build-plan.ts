// buildPlan: desired state + live state → Plan. Pure and deterministic: no I/O, no clock, no
// randomness; the same inputs always give the same plan, byte for byte. It decides matching
// (pinned id, identity, previous names, a unique name for re-parenting), field diffs, actions,
// dependencies and waves. It must not know any kind's endpoints: adapters describe their quirks.
import { createHash } from 'node:crypto';
import type { Diagnostic } from '../model/diagnostics.js';
import type { DesiredUnit, KindAdapter, LiveRecord } from '../kinds/adapter.js';
import type { DesiredState, IgnoreRule } from '../manifest/model.js';
import { normalizeName, pathSeparator } from '../model/names.js';
import type { LiveState } from '../live/model.js';
import { diffFields } from './diff-fields.js';
import { isPruned, selectUnitKinds, toDesiredUnit } from './select.js';
import type { Change, ChangeReason, FieldChange, Plan, PlanTarget, UnitKind } from './model.js';
import { readPath, writePath } from '../model/paths.js';

export interface PlanOptions {
  target: PlanTarget;
  /** Replace (delete + create) records the API cannot change in place. */
  allowReplace: boolean;
  /** Overrides the policy's delete budget. */
  maxDeletes?: number;
  /** Requests per second the client runs at, for the cost line. */
  rate: number;
}

/** How one unit kind's desired units paired with its live records (drift reports from it). */
export interface KindMatching {
  kind: UnitKind;
  /** Every desired unit by its canonical identity, with the live record it matched. */
  units: { identity: string; parent?: string; ensure: 'present' | 'absent'; live?: LiveRecord }[];
  /** Live records that no desired unit claimed. */
  unmatched: LiveRecord[];
}

export interface PlanResult {
  plan: Plan;
  diagnostics: Diagnostic[];
  /** Per planned unit kind, in adapter order. */
  matching: KindMatching[];
}

const removalActions: ReadonlySet<Change['action']> = new Set(['delete', 'retire']);

export function fingerprintOf(record: LiveRecord): string {
  return createHash('sha256').update(canonicalJson(record.raw)).digest('hex').slice(0, 32);
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function lastSegment(identity: string): string {
  const parts = identity.split(pathSeparator);
  return parts[parts.length - 1] ?? identity;
}

function withLastSegment(identity: string, name: string): string {
  const parts = identity.split(pathSeparator);
  parts[parts.length - 1] = name;
  return parts.join(pathSeparator);
}

function readString(fields: Record<string, unknown>, path: readonly string[]): string | undefined {
  const value = readPath(fields, path);
  return typeof value === 'string' && value.trim() !== '' ? normalizeName(value) : undefined;
}


/** What an ignore rule is checked against: a unit by kind and key, and where it is declared when nested. */
export interface IgnoreTarget {
  kind: UnitKind;
  key: string;
  /** For units listed inside another record (services): rules on that record's list field cover them. */
  container?: { kind: UnitKind; key: string; field: string };
}

/** The ignore target of a unit of `adapter`'s kind; `parent` is the identity of the record it is nested in. */
export function ignoreTargetOf(adapter: KindAdapter, key: string, parent: string | undefined): IgnoreTarget {
  const container = adapter.nestedIn && adapter.nestedField && parent !== undefined ? { kind: adapter.nestedIn, key: parent, field: adapter.nestedField } : undefined;
  return { kind: adapter.kind, key, ...(container ? { container } : {}) };
}

/** Whether a rule's field (dot path, `*` for any part) names `path` or a field above it; no path asks about the whole record. */
function ruleCovers(field: string | undefined, path: string | undefined): boolean {
  if (path === undefined || field === undefined) return path === undefined && field === undefined;
  const pattern = field
    .split('.')
    .map((segment) => (segment === '*' ? '.+?' : segment.replace(/[$()*+.?[\\\]^{|}]/g, '\\$&')))
    .join('\\.');
  return new RegExp(`^${pattern}(\\..+)?$`).test(path);
}

/**
 * The policy.ignore rule that covers a record (no `path`) or one of its fields. A nested unit is
 * also covered by a rule on its container: the whole record, its list field (`servicos`), or a
 * field of every item (`servicos.*.freteItem`); a position (`servicos.0`) names no unit.
 */
export function findIgnoreRule(rules: readonly IgnoreRule[], target: IgnoreTarget, path?: string): IgnoreRule | undefined {
  return rules.find((rule) => {
    if (rule.kind === target.kind && (rule.key === undefined || rule.key === target.key)) return ruleCovers(rule.field, path);
    const container = target.container;
    if (!container || rule.kind !== container.kind || (rule.key !== undefined && rule.key !== container.key)) return false;
    if (rule.field === undefined) return path === undefined;
    const [head, item, ...inner] = rule.field.split('.');
    if (head !== container.field || (item !== undefined && item !== '*')) return false;
    return ruleCovers(inner.length > 0 ? inner.join('.') : undefined, path);
  });
}

interface Match {
  desired: DesiredUnit;
  live?: LiveRecord;
  via: 'id' | 'identity' | 'previous-name' | 'name';
}

export function buildPlan(desired: DesiredState, live: LiveState, adapters: readonly KindAdapter[], options: PlanOptions): PlanResult {
  const diagnostics: Diagnostic[] = [];
  const changes: Change[] = [];
  const fingerprints: Record<string, string> = {};
  const absent: string[] = [];
  const warnings: string[] = [];
  const matching: KindMatching[] = [];
  const policy = desired.policy;
  /** live identity → desired identity, per kind, for records renamed or moved by this plan. */
  const renamed = new Map<UnitKind, Map<string, string>>();

  const plannedKinds = new Set<UnitKind>(selectUnitKinds(desired, adapters));
  const desiredByKind = new Map<UnitKind, DesiredUnit[]>();
  for (const adapter of adapters) {
    if (adapter.definition && plannedKinds.has(adapter.kind)) {
      desiredByKind.set(adapter.kind, (desired.records.get(adapter.definition.key) ?? []).map(toDesiredUnit));
    }
  }

  const liveOf = (kind: UnitKind): readonly LiveRecord[] => live.records.get(kind) ?? [];

  /** Identities of a kind, declared or live, and by last name; rebuilt only when the kind's desired units change. */
  const identityIndexes = new Map<UnitKind, { units: readonly DesiredUnit[] | undefined; identities: Set<string>; byName: Map<string, string[]> }>();
  const identityIndex = (kind: UnitKind) => {
    const units = desiredByKind.get(kind);
    const cached = identityIndexes.get(kind);
    if (cached && cached.units === units) return cached;
    const identities = new Set<string>([...(units ?? []).filter((u) => u.tool.ensure === 'present').map((u) => u.identity), ...liveOf(kind).map((r) => r.identity)]);
    const byName = new Map<string, string[]>();
    for (const id of identities) byName.set(lastSegment(id), [...(byName.get(lastSegment(id)) ?? []), id]);
    const index = { units, identities, byName };
    identityIndexes.set(kind, index);
    return index;
  };

  /** Resolves a name or path to the identity of a record of `kind`, declared or live. */
  const resolve = (kind: UnitKind, value: string, scope: string | undefined): { identity?: string; candidates: string[] } => {
    const wanted = scope ? `${scope}${pathSeparator}${value}` : value;
    const index = identityIndex(kind);
    if (index.identities.has(wanted)) return { identity: wanted, candidates: [wanted] };
    if (value.includes(pathSeparator.trim())) return { candidates: [] };
    const byName = (index.byName.get(value) ?? []).filter((id) => !scope || id.startsWith(`${scope}${pathSeparator}`));
    return byName.length === 1 ? { identity: byName[0], candidates: byName } : { candidates: byName };
  };

  for (const adapter of adapters) {
    if (!plannedKinds.has(adapter.kind)) continue;
    const kind = adapter.kind;
    const definition = adapter.definition;
    let units: DesiredUnit[];
    if (definition) {
      units = canonicalizeUnits(desiredByKind.get(kind) ?? [], adapter, resolve, renamed, diagnostics);
    } else {
      const parents = desiredByKind.get(adapter.nestedIn as UnitKind) ?? [];
      units = parents.filter((p) => p.tool.ensure === 'present').flatMap((p) => adapter.deriveDesired?.(p) ?? []);
    }
    desiredByKind.set(kind, units);

    const liveRecords = liveOf(kind).map((record) => translateLive(record, adapter, renamed));
    const tree = adapter.definition?.references.some((r) => r.parent) ?? false;
    const matches = matchUnits(units, liveRecords, diagnostics, kind, tree);
    const kindRenames = new Map<string, string>();
    for (const m of matches) if (m.live && m.live.identity !== m.desired.identity) kindRenames.set(m.live.identity, m.desired.identity);
    renamed.set(kind, kindRenames);

    const claimed = new Set(matches.flatMap((m) => (m.live ? [m.live.id] : [])));
    matching.push({
      kind,
      units: matches.map((m) => ({
        identity: m.desired.identity,
        ...(m.desired.parent === undefined ? {} : { parent: m.desired.parent }),
        ensure: m.desired.tool.ensure,
        ...(m.live ? { live: m.live } : {}),
      })),
      unmatched: liveRecords.filter((r) => !claimed.has(r.id)),
    });
    const parentRefPath = definition?.references.find((r) => r.parent)?.path;
    const secretPaths = new Set((definition?.secretFields ?? []).map((p) => p.join('.')));
    const canon = adapter.canonicalize ?? ((f: Record<string, unknown>) => f);

    for (const m of matches) {
      const unit = m.desired;
      const ignoreTarget = ignoreTargetOf(adapter, unit.identity, unit.parent);
      if (findIgnoreRule(policy.ignore, ignoreTarget)) continue;
      if (unit.tool.ensure === 'absent') {
        if (m.live) changes.push(...planRemoval(adapter, m.live, 'tombstone', unit, policy.retireInsteadOfDelete));
        continue;
      }
      if (!m.live) {
        absent.push(`${kind}:${unit.identity}`);
        changes.push(withSecrets(newChange('create', kind, unit.identity, 'missing', creationFields(canon(unit.fields), secretPaths), unit.fields), unit));
        continue;
      }
      const liveFields = parentRefPath ? translateParentField(m.live.fields, parentRefPath, kindRenames) : m.live.fields;
      const differences = diffFields(canon(unit.fields), canon(liveFields), secretPaths).filter(
        (d) => !findIgnoreRule(policy.ignore, ignoreTarget, d.path) && !adapter.settlesBy?.(d, unit, units),
      );
      if (differences.length === 0) continue;
      const reason: ChangeReason = m.via === 'previous-name' ? 'rename' : 'drift';
      if (m.live.system) {
        changes.push({ ...newChange('blocked', kind, unit.identity, 'built-in', differences), liveId: m.live.id, note: 'a built-in record of the account: erpsync does not change it' });
        continue;
      }
      const immutable = differences.filter((d) => adapter.immutableFields?.includes(d.path.split('.')[0] ?? ''));
      if (immutable.length > 0) {
        if (options.allowReplace) {
          changes.push({ ...newChange('delete', kind, m.live.identity, 'replace', []), liveId: m.live.id, note: `replaced: ${immutable.map((d) => d.path).join(', ')} cannot change in place` });
          changes.push(withSecrets(newChange('create', kind, unit.identity, 'replace', creationFields(canon(unit.fields), secretPaths), unit.fields), unit));
        } else {
          changes.push({
            ...newChange('blocked', kind, unit.identity, 'not-supported', differences),
            liveId: m.live.id,
            note: `the API cannot change ${immutable.map((d) => d.path).join(', ')} of an existing record; run with --allow-replace to delete and re-create it`,
          });
        }
        continue;
      }
      const parts = adapter.splitUpdate?.(differences) ?? [{ action: 'update' as const, fields: differences }];
      for (const part of parts) {
        if (part.action === 'blocked') {
          const paths = part.fields.map((f) => f.path).join(', ');
          changes.push({ ...newChange('blocked', kind, unit.identity, 'not-supported', part.fields), liveId: m.live.id, note: `the API offers no way to change ${paths} of an existing record` });
          continue;
        }
        changes.push(withSecrets({ ...newChange(part.action, kind, unit.identity, reason, part.fields, unit.fields), liveId: m.live.id }, unit));
      }
    }

    if (isPruned(adapter, desired)) {
      for (const record of liveRecords) {
        // The account's own records belong to no manifest: pruning passes over them silently.
        if (claimed.has(record.id) || record.system || findIgnoreRule(policy.ignore, ignoreTargetOf(adapter, record.identity, record.parent))) continue;
        if (adapter.nestedIn && !parentIsPlanned(record, desiredByKind.get(adapter.nestedIn) ?? [])) continue;
        changes.push(...planRemoval(adapter, record, 'prune', undefined, policy.retireInsteadOfDelete));
      }
    }
  }

  blockRemovalsWithStayingChildren(changes, live);
  for (const change of changes) {
    if (change.liveId !== undefined) {
      const record = liveOf(change.kind).find((r) => r.id === change.liveId);
      if (record) fingerprints[`${change.kind}:${record.id}`] = fingerprintOf(record);
    }
  }

  assignWaves(changes, adapters, desiredByKind, live, diagnostics);
  const removals = changes.filter((c) => removalActions.has(c.action) && c.reason !== 'replace').length;
  const budget = options.maxDeletes ?? policy.maxDeletes;
  if (removals > budget) {
    warnings.push(`the plan deletes or retires ${removals} records, more than the budget of ${budget}; apply will refuse (raise policy.maxDeletes or --max-deletes)`);
  }
  const writes = changes.filter((c) => c.action !== 'blocked').length;
  const plan: Plan = {
    formatVersion: 1,
    target: options.target,
    manifestDigest: desired.digest,
    kinds: adapters.filter((a) => plannedKinds.has(a.kind)).map((a) => a.kind),
    changes: sortChanges(changes, adapters),
    fingerprints: Object.fromEntries(Object.entries(fingerprints).sort(([a], [b]) => (a < b ? -1 : 1))),
    absent: [...new Set(absent)].sort(),
    warnings,
    cost: { reads: live.reads, writes, seconds: Math.ceil((writes / options.rate) * 10) / 10, rate: options.rate },
  };
  return { plan, diagnostics, matching };
}

function newChange(
  action: Change['action'],
  kind: UnitKind,
  key: string,
  reason: ChangeReason,
  fields: FieldChange[],
  desired?: Record<string, unknown>,
): Change {
  return { id: `${kind}:${key}:${action}`, action, kind, key, reason, fields, ...(desired ? { desired } : {}), dependsOn: [], wave: 0 };
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

function parentIsPlanned(record: LiveRecord, parents: readonly DesiredUnit[]): boolean {
  return parents.some((p) => p.identity === record.parent && p.tool.ensure === 'present');
}

function planRemoval(
  adapter: KindAdapter,
  record: LiveRecord,
  reason: ChangeReason,
  unit: DesiredUnit | undefined,
  retireKinds: readonly string[],
): Change[] {
  const base = { liveId: record.id };
  if (unit?.tool.protect) return [{ ...newChange('blocked', adapter.kind, record.identity, 'protected', []), ...base, note: 'protect: true' }];
  if (record.system) {
    return [{ ...newChange('blocked', adapter.kind, record.identity, 'built-in', []), ...base, note: `a ${record.system} record of the account: erpsync never removes it` }];
  }
  const retireByPolicy = adapter.definition ? retireKinds.includes(adapter.definition.key) : false;
  if (retireByPolicy || !adapter.canDelete) {
    if (adapter.isRetired?.(record)) return [];
    if (adapter.retire === 'status') return [{ ...newChange('retire', adapter.kind, record.identity, reason, adapter.retirementFields?.(record) ?? []), ...base }];
    return [{ ...newChange('blocked', adapter.kind, record.identity, 'not-supported', []), ...base, note: 'this kind can be neither deleted nor retired' }];
  }
  return [{ ...newChange('delete', adapter.kind, record.identity, reason, []), ...base }];
}

/** Deleting a record that still has children fails in the API: block it and say why. */
function blockRemovalsWithStayingChildren(changes: Change[], live: LiveState): void {
  const leaving = new Set(changes.filter((c) => c.action === 'delete' || (c.action === 'update' && c.fields.length > 0)).map((c) => `${c.kind}:${c.liveId}`));
  for (const [index, change] of changes.entries()) {
    if (change.action !== 'delete') continue;
    const staying = (live.records.get(change.kind) ?? []).filter((r) => r.parent === change.key && !leaving.has(`${change.kind}:${r.id}`));
    if (staying.length === 0) continue;
    changes[index] = {
      ...change,
      id: `${change.kind}:${change.key}:blocked`,
      action: 'blocked',
      note: `${staying.length} record(s) inside it stay (${staying.map((r) => r.name).join(', ')}); delete or move them too`,
    };
  }
}

/** Canonical identities (parent path resolved against declared and live records) and references as identities. */
function canonicalizeUnits(
  units: readonly DesiredUnit[],
  adapter: KindAdapter,
  resolve: (kind: UnitKind, value: string, scope: string | undefined) => { identity?: string; candidates: string[] },
  renamed: ReadonlyMap<UnitKind, ReadonlyMap<string, string>>,
  diagnostics: Diagnostic[],
): DesiredUnit[] {
  const definition = adapter.definition;
  if (!definition) return [...units];
  const parentRef = definition.references.find((r) => r.parent);
  const otherRefs = definition.references.filter((r) => !r.parent);
  const byName = new Map<string, DesiredUnit[]>();
  const byIdentity = new Map<string, DesiredUnit[]>();
  for (const u of units) {
    byName.set(u.name, [...(byName.get(u.name) ?? []), u]);
    byIdentity.set(u.identity, [...(byIdentity.get(u.identity) ?? []), u]);
  }
  const done = new Map<DesiredUnit, DesiredUnit>();
  const liveIdentities = (value: string) => resolve(adapter.kind, value, undefined);

  const canonical = (unit: DesiredUnit): DesiredUnit => {
    const known = done.get(unit);
    if (known) return known;
    let fields = unit.fields;
    let identity = unit.identity;
    let parent: string | undefined;
    const parentValue = parentRef ? readString(unit.fields, parentRef.path) : undefined;
    if (parentRef && parentValue !== undefined) {
      const declared = parentValue.includes(pathSeparator.trim()) ? [] : (byName.get(parentValue) ?? []);
      const pathDeclared = byIdentity.get(parentValue)?.find((u) => u !== unit);
      const declaredParent = pathDeclared ?? (declared.length === 1 ? declared[0] : undefined);
      if (declaredParent) {
        parent = canonical(declaredParent).identity;
      } else {
        const found = liveIdentities(parentValue);
        parent = found.identity;
        if (!parent) reportUnresolved(unit, parentRef.path, parentValue, found.candidates, diagnostics);
      }
      if (parent) {
        identity = `${parent}${pathSeparator}${unit.name}`;
        fields = writePath(fields, parentRef.path, parent);
      }
    }
    for (const ref of otherRefs) {
      const value = readString(unit.fields, ref.path);
      if (value === undefined) continue;
      const scope = definition.scopeField ? readString(unit.fields, [definition.scopeField]) : undefined;
      const found = resolve(ref.target, value, scope);
      const target = found.identity ? (renamed.get(ref.target)?.get(found.identity) ?? found.identity) : undefined;
      if (target) fields = writePath(fields, ref.path, target);
      else reportUnresolved(unit, ref.path, value, found.candidates, diagnostics);
    }
    const result: DesiredUnit = { ...unit, identity, fields, ...(parent ? { parent } : {}) };
    done.set(unit, result);
    return result;
  };
  return units.map(canonical);
}

function reportUnresolved(unit: DesiredUnit, path: readonly string[], value: string, candidates: readonly string[], diagnostics: Diagnostic[]): void {
  diagnostics.push({
    severity: 'error',
    code: candidates.length > 1 ? 'ambiguous-reference' : 'unresolved-reference',
    message:
      candidates.length > 1
        ? `\`${value}\` matches ${candidates.length} records: ${candidates.join('; ')}`
        : `\`${value}\` is declared in no manifest and does not exist in the account`,
    ...(candidates.length > 1 ? { hint: 'name it by its path, e.g. `Pai > Filho`' } : {}),
    position: unit.locate(path),
  });
}

/** Rewrites a live record's identity and references through the renames planned for its kind and targets. */
function translateLive(record: LiveRecord, adapter: KindAdapter, renamed: ReadonlyMap<UnitKind, ReadonlyMap<string, string>>): LiveRecord {
  let fields = record.fields;
  for (const ref of adapter.definition?.references ?? []) {
    if (ref.parent) continue;
    const value = readString(record.fields, ref.path);
    const target = value ? renamed.get(ref.target)?.get(value) : undefined;
    if (target) fields = writePath(fields, ref.path, target);
  }
  const parentRenames = adapter.nestedIn ? renamed.get(adapter.nestedIn) : undefined;
  if (parentRenames && record.parent && parentRenames.has(record.parent)) {
    const parent = parentRenames.get(record.parent) as string;
    return { ...record, fields, parent, identity: `${parent}${pathSeparator}${record.name}` };
  }
  return fields === record.fields ? record : { ...record, fields };
}

/**
 * Matches desired units to live records: a pinned id first, then renames (previous names, swaps
 * included), then the identity, then — for tree kinds — a unique name elsewhere in the tree (the
 * record was moved to another parent). Live records sharing one identity are an error.
 */
function matchUnits(units: readonly DesiredUnit[], liveRecords: readonly LiveRecord[], diagnostics: Diagnostic[], kind: UnitKind, tree: boolean): Match[] {
  const matches = new Map<DesiredUnit, Match>();
  const claimed = new Set<number>();
  const byIdentity = new Map<string, LiveRecord[]>();
  const desiredIdentities = new Set(units.map((u) => u.identity));
  /** live identity → identities of the desired units it now belongs to, after renames of ancestors. */
  const treeRenames = new Map<string, string>();

  const liveWithIdentity = (identity: string) => (byIdentity.get(identity) ?? []).filter((r) => !claimed.has(r.id));
  const claim = (unit: DesiredUnit, record: LiveRecord | undefined, via: Match['via']) => {
    matches.set(unit, { desired: unit, ...(record ? { live: record } : {}), via });
    if (record) {
      claimed.add(record.id);
      if (record.identity !== unit.identity) treeRenames.set(record.identity, unit.identity);
    }
  };
  const reindex = () => {
    byIdentity.clear();
    for (const record of liveRecords) {
      const identity = renameAncestors(record.identity, treeRenames);
      byIdentity.set(identity, [...(byIdentity.get(identity) ?? []), record]);
    }
  };
  reindex();

  for (const unit of units) {
    if (unit.tool.id === undefined) continue;
    const record = liveRecords.find((r) => r.id === unit.tool.id);
    if (!record) {
      diagnostics.push({ severity: 'error', code: 'pinned-id-not-found', message: `no ${kind} record with id ${unit.tool.id} exists in the account`, position: unit.locate(['id']) });
      claim(unit, undefined, 'id');
    } else {
      claim(unit, record, 'id');
    }
  }
  const open = () => units.filter((u) => !matches.has(u));

  // Renames: a previous name is taken unless a declared record keeps that name and is not itself moving away.
  // Shallowest first: a child's previous name is looked up under its parent's new name, since the
  // parent may be renamed in the same plan (swaps stay among siblings, so one depth at a time suffices).
  const depths = new Map(units.map((u) => [u, u.identity.split(pathSeparator).length]));
  const depthOf = (unit: DesiredUnit) => depths.get(unit) ?? 0;
  for (const depth of [...new Set(open().map(depthOf))].sort((a, b) => a - b)) {
    const proposals = new Map<DesiredUnit, LiveRecord>();
    for (const unit of open().filter((u) => depthOf(u) === depth)) {
      for (const previous of unit.tool.previousNames) {
        const candidates = liveWithIdentity(withLastSegment(unit.identity, previous));
        if (candidates.length === 1 && candidates[0]) {
          proposals.set(unit, candidates[0]);
          break;
        }
      }
    }
    for (const [unit, record] of proposals) {
      const current = renameAncestors(record.identity, treeRenames);
      const keeper = units.find((u) => u.identity === current && u !== unit);
      if (keeper && !proposals.has(keeper)) continue;
      claim(unit, record, 'previous-name');
    }
    reindex();
  }

  // Identity, shallowest first so a renamed parent carries its children's identities along.
  const byDepth = [...open()].sort((a, b) => depthOf(a) - depthOf(b));
  let indexedDepth = 0;
  for (const unit of byDepth) {
    // A claim only moves the records below the claimed one, so one re-index per depth suffices
    // (re-indexing per unit made planning quadratic: seconds for a few thousand records).
    if (depthOf(unit) !== indexedDepth) {
      reindex();
      indexedDepth = depthOf(unit);
    }
    const candidates = liveWithIdentity(unit.identity);
    if (candidates.length > 1) {
      diagnostics.push({
        severity: 'error',
        code: 'duplicate-live-records',
        message: `the account holds ${candidates.length} ${kind} records named \`${unit.identity}\` (ids ${candidates.map((c) => c.id).join(', ')})`,
        hint: 'pin the one to manage with `id:`, and remove or rename the others',
        position: unit.locate([]),
      });
      claim(unit, undefined, 'identity');
      continue;
    }
    if (candidates[0]) claim(unit, candidates[0], 'identity');
  }

  // Moved to another parent: the same name, found exactly once among unclaimed live records.
  for (const unit of open()) {
    if (!tree || unit.tool.ensure === 'absent') {
      claim(unit, undefined, 'identity');
      continue;
    }
    const sameName = liveRecords.filter((r) => !claimed.has(r.id) && r.name === unit.name && !desiredIdentities.has(r.identity));
    claim(unit, sameName.length === 1 ? sameName[0] : undefined, 'name');
  }
  return units.map((u) => matches.get(u) as Match);
}

/** A live record's parent reference, rewritten when this plan renames that parent or one of its ancestors. */
function translateParentField(fields: Record<string, unknown>, path: readonly string[], renames: ReadonlyMap<string, string>): Record<string, unknown> {
  const value = readString(fields, path);
  if (value === undefined) return fields;
  const renamed = renames.get(value) ?? renameAncestors(value, renames);
  return renamed === value ? fields : writePath(fields, path, renamed);
}

function renameAncestors(identity: string, renames: ReadonlyMap<string, string>): string {
  const parts = identity.split(pathSeparator);
  for (let length = parts.length - 1; length >= 1; length -= 1) {
    const prefix = parts.slice(0, length).join(pathSeparator);
    const renamedPrefix = renames.get(prefix);
    if (renamedPrefix) return [renamedPrefix, ...parts.slice(length)].join(pathSeparator);
  }
  return identity;
}

/** Dependencies and waves: referenced and parent records first; removals last, children first. */
function assignWaves(
  changes: Change[],
  adapters: readonly KindAdapter[],
  desiredByKind: ReadonlyMap<UnitKind, readonly DesiredUnit[]>,
  live: LiveState,
  diagnostics: Diagnostic[],
): void {
  const creates = new Map<string, Change>();
  for (const c of changes) if (c.action === 'create') creates.set(`${c.kind}:${c.key}`, c);
  const adapterOf = new Map(adapters.map((a) => [a.kind, a]));
  const changeIds = new Set(changes.map((c) => c.id));
  // Lookups by key and id, not scans: plans of ten thousand records must stay well under a second.
  const unitsByKey = new Map<string, DesiredUnit>();
  for (const [kind, units] of desiredByKind) {
    for (const u of units) if (!unitsByKey.has(`${kind}:${u.identity}`)) unitsByKey.set(`${kind}:${u.identity}`, u);
  }

  for (const change of changes) {
    if (removalActions.has(change.action) || change.action === 'blocked') continue;
    const adapter = adapterOf.get(change.kind);
    const unit = unitsByKey.get(`${change.kind}:${change.key}`);
    const deps = new Set<string>();
    if (unit?.parent) {
      const parentKind = adapter?.nestedIn ?? change.kind;
      const parentCreate = creates.get(`${parentKind}:${unit.parent}`);
      if (parentCreate) deps.add(parentCreate.id);
    }
    for (const ref of adapter?.definition?.references ?? []) {
      if (ref.parent) continue;
      const target = readString(change.desired ?? {}, ref.path);
      const create = target ? creates.get(`${ref.target}:${target}`) : undefined;
      if (create) deps.add(create.id);
    }
    if (change.reason === 'replace' && change.action === 'create') deps.add(`${change.kind}:${change.key}:delete`);
    change.dependsOn = [...deps].filter((d) => changeIds.has(d)).sort();
  }

  // A removal waits for the removals of the records inside it.
  const parentOf = new Map<string, string | undefined>();
  for (const [kind, records] of live.records) for (const r of records) parentOf.set(`${kind}:${r.id}`, r.parent);
  const removalsByParent = new Map<string, Change[]>();
  for (const c of changes) {
    if (!removalActions.has(c.action)) continue;
    const parent = parentOf.get(`${c.kind}:${c.liveId}`);
    if (parent !== undefined) removalsByParent.set(parent, [...(removalsByParent.get(parent) ?? []), c]);
  }
  for (const change of changes) {
    if (!removalActions.has(change.action) || change.reason === 'replace') continue;
    const children = (removalsByParent.get(change.key) ?? []).filter((c) => c !== change);
    change.dependsOn = children.map((c) => c.id).sort();
  }

  const byId = new Map(changes.map((c) => [c.id, c]));
  const visiting = new Set<string>();
  const waveOf = (change: Change): number => {
    if (change.wave > 0) return change.wave;
    if (visiting.has(change.id)) {
      diagnostics.push({ severity: 'error', code: 'dependency-cycle', message: `changes depend on each other in a loop around ${change.id}` });
      return 1;
    }
    visiting.add(change.id);
    const depWaves = change.dependsOn.map((id) => byId.get(id)).filter((c): c is Change => c !== undefined).map(waveOf);
    visiting.delete(change.id);
    change.wave = Math.max(0, ...depWaves) + 1;
    return change.wave;
  };
  const ordinary = changes.filter((c) => !(removalActions.has(c.action) && c.reason !== 'replace'));
  for (const c of ordinary) waveOf(c);
  const lastOrdinary = Math.max(0, ...ordinary.map((c) => c.wave));
  const removals = changes.filter((c) => removalActions.has(c.action) && c.reason !== 'replace');
  for (const c of removals) waveOf(c);
  for (const c of removals) c.wave += lastOrdinary;
}

function sortChanges(changes: Change[], adapters: readonly KindAdapter[]): Change[] {
  const kindOrder = new Map(adapters.map((a, i) => [a.kind, i]));
  const actionOrder: Record<Change['action'], number> = { delete: 0, retire: 1, create: 2, update: 3, 'set-status': 4, 'set-default': 5, blocked: 6 };
  return [...changes].sort(
    (a, b) =>
      a.wave - b.wave ||
      (kindOrder.get(a.kind) ?? 0) - (kindOrder.get(b.kind) ?? 0) ||
      (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) ||
      actionOrder[a.action] - actionOrder[b.action],
  );
}
