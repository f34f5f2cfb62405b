// findDrift: desired state + live state → DriftReport. Pure and deterministic. It asks buildPlan
// (with policy.ignore set aside) what apply would do and how units matched, and sorts the result
// into findings: modified, missing, unmanaged (with a snippet to paste) and pending from git; then
// it applies policy.ignore itself so every rule's effect is counted. It never matches or diffs
// records on its own: that is buildPlan's job.
//
// What a stateless tool can tell: a difference between the manifests and the account does not say
// which side moved. Without a baseline, only the manifests' own intent is known to be pending (a
// rename through previousNames, a removal through ensure: absent); every other difference is
// reported as modified or missing. With a baseline (the manifests at a git revision known to be
// applied), a difference where the account still matches the baseline is pending; one where the
// account left the baseline is modified in the ERP.
import type { Diagnostic } from '../model/diagnostics.js';
import { compareIdentities, toManifestEntry } from '../export/manifest-record.js';
import { isPristineAccountRecord } from '../model/live.js';
import { renderSnippet } from '../export/render-yaml.js';
import { buildPlan } from '../plan/build-plan.js';
import type { PlanResult } from '../plan/build-plan.js';
import type { KindMatching } from '../model/live.js';
import type { KindAdapter } from '../kinds/kind.js';
import type { LiveRecord, LiveState } from '../model/live.js';
import type { DesiredState, IgnoreRule } from '../model/desired.js';
import type { Change, ChangeAction, FieldChange, PlanTarget } from '../model/plan.js';
import { removesRecord } from '../model/plan.js';
import type { UnitKind } from '../model/kinds.js';
import { describeSelection, selectorOf } from '../model/selection.js';
import type { Selection } from '../model/selection.js';
import { findingTypes } from '../model/drift.js';
import type { DriftField, DriftFinding, DriftReport, FindingType, IgnoredCount, ManagedRecord } from '../model/drift.js';
import { activeIgnoreRules, describeExpiredRule, findIgnoreRule, ignoreTargetOf, isExpired } from '../model/ignore-rules.js';

export interface DriftInput {
  desired: DesiredState;
  live: LiveState;
  adapters: readonly KindAdapter[];
  target: PlanTarget;
  /** Report the account's own records (built-in, fixa, native, untouched defaults) as unmanaged too. */
  includeBuiltin: boolean;
  /** The manifests at a git revision known to be applied, to tell pending changes apart. */
  baseline?: { ref: string; desired: DesiredState };
  /** The day (YYYY-MM-DD) policy.ignore rules are checked on (`until`); without it no rule expires. */
  today?: string;
  /** A targeted drift (--only / --exclude): only records the selection names are reported. */
  selection?: Selection;
}

export interface DriftResult {
  report: DriftReport;
  /** Problems of the manifests found while matching (unresolved references …); errors mean no report. */
  diagnostics: Diagnostic[];
  /** How the manifests' records paired with the account's, per kind (what a selection can name). */
  matching: KindMatching[];
  /** Kinds to read before the removals the manifests intend can be judged (PlanResult.unreadReferrers). */
  unreadReferrers?: PlanResult['unreadReferrers'];
}

type Units = KindMatching['units'];

/** What buildPlan saw, indexed for the questions drift asks. */
interface PlanView {
  result: PlanResult;
  units: Map<UnitKind, Units>;
}

function withoutIgnoreRules(desired: DesiredState): DesiredState {
  return { ...desired, policy: { ...desired.policy, ignore: [] } };
}

function viewPlan(desired: DesiredState, input: DriftInput): PlanView {
  // Rate and delete budget only shape the plan's cost line and warnings, which drift does not show.
  const result = buildPlan(withoutIgnoreRules(desired), input.live, input.adapters, { target: input.target, allowReplace: false, allowCascade: false, rate: 1 });
  return { result, units: new Map(result.matching.map((m) => [m.kind, m.units])) };
}

function toDriftField(field: FieldChange): DriftField {
  return field.sensitive
    ? { path: field.path, manifest: undefined, account: undefined, sensitive: true }
    : { path: field.path, manifest: field.after, account: field.before };
}

interface Draft {
  /** Some change of the draft takes the record out of the account. */
  removes: boolean;
  type: FindingType;
  kind: UnitKind;
  key: string;
  liveId?: number;
  fields: FieldChange[];
  actions: ChangeAction[];
  note?: string;
  snippet?: string;
  /** Identity of the record a nested unit is declared in, for ignore rules. */
  parent?: string;
}

/** Drafts from the plan's changes: one per record and type, the plan's changes merged. */
function draftsFromChanges(current: PlanView): Draft[] {
  const drafts = new Map<string, Draft>();
  const add = (change: Change, type: FindingType, note?: string) => {
    const unit = current.units.get(change.kind)?.find((u) => u.identity === change.key || (change.liveId !== undefined && u.live?.id === change.liveId));
    const id = `${type}\u0000${change.kind}\u0000${change.key}`;
    const known = drafts.get(id);
    if (known) {
      known.fields.push(...change.fields);
      known.actions.push(change.action);
      known.removes ||= removesRecord(change);
      if (note && !known.note) known.note = note;
      return;
    }
    drafts.set(id, {
      type,
      kind: change.kind,
      key: change.key,
      ...(change.liveId === undefined ? {} : { liveId: change.liveId }),
      fields: [...change.fields],
      actions: [change.action],
      removes: removesRecord(change),
      ...(note ? { note } : {}),
      ...(unit?.parent === undefined ? {} : { parent: unit.parent }),
    });
  };
  for (const change of current.result.plan.changes) {
    const isTombstone = current.units.get(change.kind)?.some((u) => u.ensure === 'absent' && change.liveId !== undefined && u.live?.id === change.liveId) ?? false;
    if (change.action === 'create') {
      // What the record would be created with is the manifest itself: the finding needs no fields.
      add({ ...change, fields: [] }, 'missing');
    } else if (isTombstone) {
      add(change, 'pending', change.action === 'blocked' ? `the manifests remove it (ensure: absent), but ${change.note ?? 'apply cannot'}` : `the manifests remove it (ensure: absent): apply ${change.action === 'retire' ? 'retires' : 'deletes'} it`);
    } else if (removesRecord(change) || (change.action === 'blocked' && change.fields.length === 0)) {
      // Removals of records no manifest names (policy.prune) are reported with the unmanaged records.
      continue;
    } else if (change.reason === 'rename') {
      add(change, 'pending', 'renamed in the manifests (previousNames): the account still has the old name');
    } else {
      add(change, 'modified', change.action === 'blocked' ? change.note : undefined);
    }
  }
  return [...drafts.values()];
}

/** Live records of declared kinds that no manifest names, each with the snippet that would manage it. */
function unmanagedDrafts(input: DriftInput, current: PlanView): { drafts: Draft[]; accountOwn: number } {
  const drafts: Draft[] = [];
  let accountOwn = 0;
  const unmatchedIds = new Map(current.result.matching.map((m) => [m.kind, new Set(m.unmatched.map((r) => r.id))]));
  const context = { adapters: input.adapters, live: input.live };
  for (const matching of current.result.matching) {
    const adapter = input.adapters.find((a) => a.kind === matching.kind);
    if (!adapter) continue;
    const original = new Map((input.live.records.get(matching.kind) ?? []).map((r) => [r.id, r]));
    for (const unmatched of matching.unmatched) {
      const record = original.get(unmatched.id) ?? unmatched;
      if (isPristineAccountRecord(record) && !input.includeBuiltin) {
        accountOwn += 1;
        continue;
      }
      const container = adapter.nestedIn;
      if (container && record.parent !== undefined && isUnmatchedParent(input, container, record.parent, unmatchedIds)) continue;
      const prune = current.result.plan.changes.find((c) => c.kind === matching.kind && c.liveId === record.id && c.reason === 'prune');
      drafts.push({
        type: 'unmanaged',
        kind: matching.kind,
        key: record.identity,
        liveId: record.id,
        fields: [],
        actions: prune ? [prune.action] : [],
        removes: prune ? removesRecord(prune) : false,
        ...(prune ? { note: pruneNote(prune) } : {}),
        snippet: snippetOf(adapter, record, context),
        ...(record.parent === undefined ? {} : { parent: record.parent }),
      });
    }
  }
  return { drafts, accountOwn };
}

function pruneNote(change: Change): string {
  if (change.action === 'blocked') return `policy.prune owns this kind, but ${change.note ?? 'apply cannot remove it'}`;
  return `policy.prune owns this kind: apply ${change.action === 'retire' ? 'retires' : 'deletes'} it`;
}

/** A unit nested in a record that is itself unmanaged goes into that record's snippet, not a finding of its own. */
function isUnmatchedParent(input: DriftInput, containerKind: UnitKind, parentIdentity: string, unmatchedIds: ReadonlyMap<UnitKind, ReadonlySet<number>>): boolean {
  const parent = (input.live.records.get(containerKind) ?? []).find((r) => r.identity === parentIdentity);
  return parent !== undefined && (unmatchedIds.get(containerKind)?.has(parent.id) ?? false);
}

function snippetOf(adapter: KindAdapter, record: LiveRecord, context: { adapters: readonly KindAdapter[]; live: LiveState }): string {
  const entry = toManifestEntry(adapter, record, context);
  if (adapter.definition) return renderSnippet(entry, { kind: adapter.definition.key });
  const container = context.adapters.find((a) => a.kind === adapter.nestedIn);
  const containerKey = container?.definition?.key ?? adapter.nestedIn ?? adapter.kind;
  return renderSnippet(entry, { intro: `add under ${adapter.nestedField ?? 'the list'} of ${containerKey} "${record.parent ?? ''}":` });
}

/** Re-sorts drafts with a baseline: what the account still has as the baseline declared is pending, not modified. */
function classifyAgainstBaseline(drafts: Draft[], baseline: PlanView, ref: string): Draft[] {
  const baseUnit = (kind: UnitKind, key: string, liveId: number | undefined) =>
    baseline.units.get(kind)?.find((u) => u.identity === key || (liveId !== undefined && u.live?.id === liveId));
  const baseDiffers = (kind: UnitKind, key: string, path: string) =>
    baseline.result.plan.changes.some((c) => c.kind === kind && c.key === key && c.fields.some((f) => f.path === path));
  return drafts.flatMap((draft): Draft[] => {
    const unit = baseUnit(draft.kind, draft.key, draft.liveId);
    switch (draft.type) {
      case 'missing':
        return unit?.ensure === 'present'
          ? [{ ...draft, note: `declared at ${ref} already, and gone from the account: deleted in the ERP` }]
          : [{ ...draft, type: 'pending', note: `added to the manifests since ${ref}, not applied yet` }];
      case 'modified': {
        if (!unit || unit.ensure === 'absent') return [{ ...draft, type: 'pending', note: `managed by the manifests since ${ref}, not applied yet` }];
        const pending = draft.fields.filter((f) => !baseDiffers(draft.kind, draft.key, f.path));
        const modified = draft.fields.filter((f) => baseDiffers(draft.kind, draft.key, f.path));
        return [
          ...(modified.length > 0 ? [{ ...draft, fields: modified }] : []),
          ...(pending.length > 0 ? [{ ...draft, type: 'pending' as const, fields: pending, note: `changed in the manifests since ${ref}, not applied yet` }] : []),
        ];
      }
      case 'pending':
        // A removal that the baseline already declared was applied: the record came back in the ERP.
        return unit?.ensure === 'absent' && draft.fields.length === 0 && draft.removes
          ? [{ ...draft, type: 'modified', note: `removed by the manifests at ${ref} already: re-created in the ERP since` }]
          : [draft];
      case 'unmanaged':
        if (unit?.ensure !== 'present') return [draft];
        return draft.actions.length > 0
          ? [{ ...draft, type: 'pending', note: `dropped from the manifests since ${ref}: ${draft.note ?? 'apply removes it'}` }]
          : [{ ...draft, note: `declared at ${ref}; no manifest names it now (apply leaves it alone)` }];
    }
  });
}

/** Applies policy.ignore: whole findings, or the fields of one; every rule counts what it kept out. */
function applyIgnoreRules(drafts: Draft[], rules: readonly IgnoreRule[], adapters: readonly KindAdapter[]): { kept: Draft[]; counts: Map<IgnoreRule, number> } {
  const counts = new Map<IgnoreRule, number>(rules.map((r) => [r, 0]));
  const bump = (rule: IgnoreRule) => counts.set(rule, (counts.get(rule) ?? 0) + 1);
  const kept: Draft[] = [];
  for (const draft of drafts) {
    const adapter = adapters.find((a) => a.kind === draft.kind);
    if (!adapter) continue;
    const target = ignoreTargetOf(adapter, draft.key, draft.parent);
    const whole = findIgnoreRule(rules, target);
    if (whole) {
      bump(whole);
      continue;
    }
    if (draft.fields.length === 0) {
      kept.push(draft);
      continue;
    }
    const fields = draft.fields.filter((field) => {
      const rule = findIgnoreRule(rules, target, field.path);
      if (rule) bump(rule);
      return rule === undefined;
    });
    if (fields.length > 0) kept.push({ ...draft, fields });
  }
  return { kept, counts };
}

/** Whether --only/--exclude take in a record (every record without them). */
function selectedRecords(input: DriftInput): (kind: UnitKind, key: string, parent: string | undefined) => boolean {
  if (!input.selection) return () => true;
  const selector = selectorOf(input.selection);
  return (kind, key, parent) => {
    const container = input.adapters.find((a) => a.kind === kind)?.nestedIn;
    return selector({ kind, key, ...(container !== undefined && parent !== undefined ? { container: { kind: container, key: parent } } : {}) });
  };
}

function managedRecords(current: PlanView, findings: readonly DriftFinding[], rules: readonly IgnoreRule[], adapters: readonly KindAdapter[]): (ManagedRecord & { parent?: string })[] {
  const drifted = new Set(findings.filter((f) => f.type !== 'unmanaged').map((f) => `${f.kind}\u0000${f.key}`));
  return current.result.matching.flatMap((matching) => {
    const adapter = adapters.find((a) => a.kind === matching.kind);
    return matching.units.map((unit): ManagedRecord & { parent?: string } => {
      const rule = adapter ? findIgnoreRule(rules, ignoreTargetOf(adapter, unit.identity, unit.parent)) : undefined;
      const status = rule ? 'ignored' : drifted.has(`${matching.kind}\u0000${unit.identity}`) ? 'drifted' : 'in-sync';
      return {
        kind: matching.kind,
        key: unit.identity,
        ...(unit.live ? { liveId: unit.live.id } : {}),
        ensure: unit.ensure,
        status,
        ...(rule ? { ignoredBecause: rule.reason } : {}),
        ...(unit.parent === undefined ? {} : { parent: unit.parent }),
      };
    });
  });
}

export function findDrift(input: DriftInput): DriftResult {
  const current = viewPlan(input.desired, input);
  const diagnostics = [...current.result.diagnostics];
  // A list the service does not page was read whole: said here as in a plan.
  const warnings: string[] = [...(input.live.notes ?? [])];
  let drafts = draftsFromChanges(current);
  const unmanaged = unmanagedDrafts(input, current);
  drafts.push(...unmanaged.drafts);
  if (input.baseline) {
    const baseline = viewPlan(input.baseline.desired, input);
    for (const d of baseline.result.diagnostics.filter((x) => x.severity === 'error')) {
      warnings.push(`the manifests at ${input.baseline.ref} do not plan cleanly (${d.code}: ${d.message}); pending changes of those records may show as modified`);
    }
    drafts = classifyAgainstBaseline(drafts, baseline, input.baseline.ref);
  }
  const rules = activeIgnoreRules(input.desired.policy.ignore, input.today);
  for (const rule of input.desired.policy.ignore) if (isExpired(rule, input.today)) warnings.push(describeExpiredRule(rule));
  const selected = selectedRecords(input);
  const { kept, counts } = applyIgnoreRules(drafts.filter((d) => selected(d.kind, d.key, d.parent)), rules, input.adapters);
  if (input.selection) warnings.push(`a targeted drift (${describeSelection(input.selection)}): records outside the selection are not reported`);

  const kindOrder = new Map(input.adapters.map((a, i) => [a.kind, i]));
  const findings: DriftFinding[] = kept
    .map(
      (draft): DriftFinding => ({
        type: draft.type,
        kind: draft.kind,
        key: draft.key,
        ...(draft.liveId === undefined ? {} : { liveId: draft.liveId }),
        fields: draft.fields.map(toDriftField),
        actions: draft.actions,
        ...(draft.note ? { note: draft.note } : {}),
        ...(draft.snippet ? { snippet: draft.snippet } : {}),
      }),
    )
    .sort(
      (a, b) =>
        (kindOrder.get(a.kind) ?? 0) - (kindOrder.get(b.kind) ?? 0) ||
        compareIdentities(a.key, b.key) ||
        findingTypes.indexOf(a.type) - findingTypes.indexOf(b.type),
    );
  const managed = managedRecords(current, findings, rules, input.adapters).filter((m) => selected(m.kind, m.key, m.parent)).map(({ parent: _, ...m }) => m);
  const ignored: IgnoredCount[] = rules.map((rule) => ({ rule, count: counts.get(rule) ?? 0 }));
  const count = (type: FindingType) => findings.filter((f) => f.type === type).length;
  const report: DriftReport = {
    formatVersion: 1,
    target: input.target,
    manifestDigest: input.desired.digest,
    pendingBasis: input.baseline ? 'baseline' : 'manifest-intent',
    ...(input.baseline ? { baseline: { ref: input.baseline.ref, digest: input.baseline.desired.digest } } : {}),
    kinds: current.result.plan.kinds,
    includeBuiltin: input.includeBuiltin,
    summary: {
      managed: managed.length,
      inSync: managed.filter((m) => m.status === 'in-sync').length,
      modified: count('modified'),
      missing: count('missing'),
      unmanaged: count('unmanaged'),
      pending: count('pending'),
      ignored: ignored.reduce((n, i) => n + i.count, 0),
      accountOwn: unmanaged.accountOwn,
    },
    findings,
    managed,
    ignored,
    reads: input.live.reads,
    warnings,
  };
  const unread = current.result.unreadReferrers;
  return { report, diagnostics, matching: current.result.matching, ...(unread ? { unreadReferrers: unread } : {}) };
}
