// Removals look across kinds (DESIGN §4). Before a record leaves the account — deleted, retired or
// replaced — every live record of any kind that names it is found, declared in a manifest or not,
// and each one is settled in one of three ways:
//   ordered    the plan deletes it, or updates it to stop naming the record; the removal waits for that;
//   cascaded   --allow-cascade: the plan deletes it, or takes the name out of its list
//              (ReferenceField.whenTargetRemoved), before the removal — what the service would
//              otherwise do unasked, or leave dangling, shown as changes of their own (reason `cascade`);
//              for a replacement, it is changed to name the new record instead (repointed), after
//              the create and before the old record's delete;
//   blocking   the removal is blocked, and its note names the records and the ways out.
// Records inside a removed one (its children) are plan-changes' affair; both rules run to a fixed
// point here, since a child kept by a referrer keeps its parent. A kind whose read does not hold
// every record that could name a removed one (LiveState.whole) blocks the removal and is returned
// to be read: the workflow reads it — only then, so reads stay minimal — and plans again.
// Pure. What is decided here travels in the plan: the changes, their order and the referrers
// precondition a saved plan re-checks.
import type { KindAdapter } from '../kinds/kind.js';
import type { ReferrerSlot } from '../kinds/referrers.js';
import { effectOnReferrer, holdsReferrers, indexReferrers, namesRecord, referrerSlotsOf, withNameReplaced, withoutName } from '../kinds/referrers.js';
import type { UnitKind } from '../model/kinds.js';
import type { LiveRecord, RemovedRecord, WholeRead } from '../model/live.js';
import { isAccountOwn } from '../model/live.js';
import { readPath, readPathValues } from '../model/paths.js';
import type { Change, ReferrersPrecondition } from '../model/plan.js';
import { removesRecord } from '../model/plan.js';
import { blockRemovalsWithStayingChildren, newChange } from './plan-changes.js';

export interface ReferrerContext {
  units: readonly KindAdapter[];
  liveOf: (kind: UnitKind) => readonly LiveRecord[];
  whole: ReadonlyMap<UnitKind, WholeRead>;
  /** Whether a desired unit claimed the live record: it is declared, and the manifests say what becomes of it. */
  declared: (kind: UnitKind, id: number) => boolean;
  /** The identity the desired unit that claimed a live record gives it: where a replacement re-creates it. */
  claimedAs: (kind: UnitKind, id: number) => string | undefined;
  allowCascade: boolean;
}

/** Kinds to read before the plan can settle its removals, and the removals each read is for. */
export interface ReferrerRead {
  kinds: UnitKind[];
  removing: Map<UnitKind, RemovedRecord[]>;
}

export interface ReferrerSettlement {
  /** The referrers precondition of every removal that goes ahead, by change id. */
  preconditions: Map<string, ReferrersPrecondition>;
  /** Present when some removal was blocked because its referrers were not read. */
  toRead?: ReferrerRead;
}

interface Found {
  slot: ReferrerSlot;
  record: LiveRecord;
}
interface Cascade extends Found {
  target: LiveRecord;
}
/** A referrer of a replaced record, changed to name the new one (`to`, the replacement's create). */
interface Repoint extends Cascade {
  to: Change;
}
interface Clear {
  type: 'clear';
  target: LiveRecord | undefined;
  found: Found[];
  /** Changes of the plan that settle a referrer (its delete, an update away): the removal waits for them. */
  after: string[];
  cascades: Cascade[];
  repoints: Repoint[];
  /** The verdicts of referrers the cascade deletes, by record. */
  nested: Map<string, Clear>;
}
/** Records whose referrers of these kinds were not read. */
interface Unread {
  type: 'unread';
  kinds: UnitKind[];
  targets: LiveRecord[];
}
type Verdict = Clear | { type: 'blocked'; note: string } | Unread;
type Judge = (change: Change, byRecord: ReadonlyMap<string, Change[]>, visiting?: Set<string>) => Verdict;

const keyOf = (kind: UnitKind, id: number | undefined) => `${kind}\u0000${String(id)}`;

/** Settles the referrers of every removal in `changes` (blocks, cascades, order); see the top of the file. */
export function settleReferrers(changes: Change[], context: ReferrerContext): ReferrerSettlement {
  // The creates that re-make replaced records, by kind and new identity: what their referrers come to name.
  const replacements = new Map(changes.filter((c) => c.action === 'create' && c.reason === 'replace').map((c) => [keyOf(c.kind, undefined) + c.key, c]));
  const judge = createJudge(context, replacements);
  const toRead: ReferrerRead = { kinds: [], removing: new Map() };
  let verdicts = new Map<string, Clear>();
  for (let blocked = true; blocked; ) {
    blockRemovalsWithStayingChildren(changes, context.liveOf);
    blocked = false;
    verdicts = new Map();
    const byRecord = indexChanges(changes);
    for (const [index, change] of changes.entries()) {
      if (!removesRecord(change)) continue;
      const verdict = judge(change, byRecord);
      if (verdict.type === 'clear') {
        verdicts.set(change.id, verdict);
        continue;
      }
      if (verdict.type === 'unread') noteUnread(toRead, verdict);
      changes[index] = blockedRemoval(change, verdict.type === 'unread' ? unreadNote(verdict.kinds) : verdict.note);
      blocked = true;
    }
  }
  blockHalfReplacements(changes, context, replacements);
  const preconditions = new Map<string, ReferrersPrecondition>();
  const state: SettleState = { context, cascades: new Map(), preconditions };
  for (const change of changes) {
    const verdict = verdicts.get(change.id);
    if (verdict) settle(change, verdict, state);
  }
  changes.push(...[...state.cascades.values()].map((c) => c.change));
  return { preconditions, ...(toRead.kinds.length > 0 ? { toRead } : {}) };
}

/**
 * A replacement whose delete is blocked is blocked whole: its create would leave the old record
 * beside the new one, which no later plan removes (the manifests no longer name it).
 */
function blockHalfReplacements(changes: Change[], context: ReferrerContext, replacements: ReadonlyMap<string, Change>): void {
  for (const blocked of changes) {
    if (blocked.action !== 'blocked' || blocked.reason !== 'replace' || blocked.liveId === undefined) continue;
    const identity = context.claimedAs(blocked.kind, blocked.liveId);
    const create = identity === undefined ? undefined : replacements.get(keyOf(blocked.kind, undefined) + identity);
    const index = create ? changes.indexOf(create) : -1;
    if (!create || index === -1) continue;
    changes[index] = { ...newChange('blocked', create.kind, create.key, create.reason, create.fields), note: `replaces ${describeRecord({ kind: blocked.kind, identity: blocked.key })}, whose removal is blocked: nothing is created either` };
  }
}

/** Judges one removal: its referrers and what settles each, or why it cannot go ahead. */
function createJudge(context: ReferrerContext, replacements: ReadonlyMap<string, Change>) {
  const liveById = new Map<string, LiveRecord>();
  for (const unit of context.units) for (const record of context.liveOf(unit.kind)) liveById.set(keyOf(unit.kind, record.id), record);
  const indexes = new Map<string, ReturnType<typeof indexReferrers>>();
  const referrersAt = (slot: ReferrerSlot, target: LiveRecord) => {
    const id = `${slot.kind}\u0000${slot.reference.path.join('.')}`;
    const index = indexes.get(id) ?? indexReferrers(context.liveOf(slot.kind), slot.reference.path);
    indexes.set(id, index);
    return index(target);
  };
  const judge: Judge = (change, byRecord, visiting = new Set()) => {
    const target = liveById.get(keyOf(change.kind, change.liveId));
    const verdict: Clear = { type: 'clear', target, found: [], after: [], cascades: [], repoints: [], nested: new Map() };
    if (!target) return verdict;
    const slots = referrerSlotsOf(context.units, change.kind);
    const unread = slots.filter((slot) => !holdsReferrers(context.whole.get(slot.kind), slot, target)).map((slot) => slot.kind);
    if (unread.length > 0) return { type: 'unread', kinds: [...new Set(unread)], targets: [target] };
    verdict.found = slots.flatMap((slot) => referrersAt(slot, target).map((record) => ({ slot, record })));
    if (verdict.found.length === 0) return verdict;
    const declared: Found[] = [];
    const undeclared: Found[] = [];
    for (const referrer of verdict.found) {
      const settledBy = changeSettling(referrer, target, byRecord);
      if (settledBy) verdict.after.push(settledBy.id);
      else (context.declared(referrer.slot.kind, referrer.record.id) ? declared : undeclared).push(referrer);
    }
    // Manifests name a replaced record by its new identity (the planner reads them through the
    // replacement as through a rename): a declared referrer is repointed like an undeclared one.
    if (change.removal === 'replacement' && declared.length + undeclared.length > 0) return repointReferrers(change, target, [...declared, ...undeclared], verdict, context, replacements);
    if (declared.length > 0) return { type: 'blocked', note: declaredNote(declared) };
    if (undeclared.length === 0) return verdict;
    if (!context.allowCascade) return { type: 'blocked', note: undeclaredNote(undeclared) };
    visiting.add(keyOf(change.kind, change.liveId));
    for (const referrer of undeclared) {
      const refusal = cascadeRefusal(referrer, context, byRecord, judge, visiting, verdict);
      if (refusal) return refusal;
      verdict.cascades.push({ ...referrer, target });
    }
    return verdict;
  };
  return judge;
}

/**
 * The referrers of a replaced record the plan does not settle: with --allow-cascade each is changed to
 * name the new record (after its create, before the old one's delete); without, or where that
 * cannot be done, the replacement is blocked with the way out.
 */
function repointReferrers(
  change: Change,
  target: LiveRecord,
  undeclared: readonly Found[],
  verdict: Clear,
  context: ReferrerContext,
  replacements: ReadonlyMap<string, Change>,
): Verdict {
  if (!context.allowCascade) return { type: 'blocked', note: replacementNote(undeclared) };
  const identity = change.liveId === undefined ? undefined : context.claimedAs(change.kind, change.liveId);
  const to = identity === undefined ? undefined : replacements.get(keyOf(change.kind, undefined) + identity);
  if (!to || to.key === target.identity) return { type: 'blocked', note: sameNameNote(undeclared) };
  for (const referrer of undeclared) {
    const refusal = repointRefusal(referrer, context);
    if (refusal) return { type: 'blocked', note: refusal };
    verdict.repoints.push({ ...referrer, target, to });
  }
  return verdict;
}

/** Why a referrer cannot be changed to name a replacement's new record; undefined when it can. */
function repointRefusal({ record, slot }: Found, context: ReferrerContext): string | undefined {
  const name = describeRecord(record);
  if (isAccountOwn(record)) return `${name} names it, and is the account's own record: erpsync never changes it`;
  const field = slot.reference.path[0];
  const unit = context.units.find((u) => u.kind === record.kind);
  if (field !== undefined && unit?.immutableFields?.includes(field)) {
    return `a replacement re-creates it under a new id, and ${name} names it in ${field}, which the API cannot change in place: remove that record (ensure: absent) in an apply of its own first, and declare one for the new record`;
  }
  return undefined;
}

/** A change of the plan that stops the referrer naming the target before the removal: its delete, or an update away. */
function changeSettling(referrer: Found, target: LiveRecord, byRecord: ReadonlyMap<string, Change[]>): Change | undefined {
  const own = byRecord.get(keyOf(referrer.record.kind, referrer.record.id)) ?? [];
  const path = referrer.slot.reference.path;
  const listPath = path.at(-1) === '*' ? path.slice(0, -1) : path;
  // A field the manifest leaves out keeps its live value (PUT merges onto the live record): only one it sets can let go.
  const movesAway = (c: Change) => readPath(c.desired ?? {}, listPath) !== undefined && !readPathValues(c.desired ?? {}, path).some((v) => namesRecord(v, target));
  return own.find((c) => c.action === 'delete') ?? own.find((c) => c.action === 'update' && movesAway(c));
}

/** Why an undeclared referrer cannot go with the removal (or what must be read first); undefined when it can. */
function cascadeRefusal(referrer: Found, context: ReferrerContext, byRecord: ReadonlyMap<string, Change[]>, judge: Judge, visiting: Set<string>, verdict: Clear): Verdict | undefined {
  const { record, slot } = referrer;
  const name = describeRecord(record);
  const refuse = (note: string): Verdict => ({ type: 'blocked', note });
  if (isAccountOwn(record)) return refuse(`${name} names it, and is the account's own record: erpsync never removes or changes it`);
  if (effectOnReferrer(slot.reference) === 'name-dropped') return undefined;
  const unit = context.units.find((u) => u.kind === record.kind);
  if (!unit?.canDelete) return refuse(`${name} names it, and the API cannot delete ${record.kind}: change it first`);
  if (context.liveOf(record.kind).some((r) => r.parent === record.identity)) return refuse(`${name} names it and has records inside it: remove them first`);
  const key = keyOf(record.kind, record.id);
  if (visiting.has(key)) return undefined;
  // The referrer's delete is a removal too: what names it must settle as well.
  const nested = judge({ ...cascadeChange(record, 'delete'), liveId: record.id }, byRecord, visiting);
  if (nested.type === 'blocked') return refuse(`${name} names it and cannot go with it: ${nested.note}`);
  if (nested.type === 'unread') return nested;
  verdict.nested.set(key, nested);
  return undefined;
}

interface SettleState {
  context: ReferrerContext;
  /** Cascade changes by the record they change (one per record, however many removals it names), with the removed records it names. */
  cascades: Map<string, { change: Change; names: LiveRecord[] }>;
  preconditions: Map<string, ReferrersPrecondition>;
}

/** Records a removal's settlement in the plan: its cascades, what it waits for, its precondition. */
function settle(change: Change, verdict: Clear, state: SettleState): void {
  const after = [...verdict.after];
  for (const cascade of verdict.cascades) {
    const made = addCascade(cascade, state);
    after.push(made.id);
    const nested = verdict.nested.get(keyOf(cascade.record.kind, cascade.record.id));
    if (nested && made.action === 'delete') settle(made, nested, state);
  }
  for (const repoint of verdict.repoints) after.push(addRepoint(repoint, state).id);
  change.dependsOn = [...new Set([...change.dependsOn, ...after])].sort();
  const target = verdict.target;
  const slots = target ? referrerSlotsOf(state.context.units, target.kind) : [];
  // A kind nothing can name has no referrers to fingerprint.
  if (!target || slots.length === 0) return;
  state.preconditions.set(change.id, {
    type: 'referrers',
    kind: target.kind,
    id: target.id,
    identity: target.identity,
    namedBy: slots.map((slot) => ({ kind: slot.kind, path: [...slot.reference.path] })),
    referrers: [...new Map(verdict.found.map((f) => [keyOf(f.record.kind, f.record.id), { kind: f.record.kind, id: f.record.id }])).values()],
  });
}

/** The cascade change of one referrer: its delete, or an update taking the removed names out of its list. */
function addCascade(cascade: Cascade, state: SettleState): Change {
  const { record, slot, target } = cascade;
  const key = keyOf(record.kind, record.id);
  const known = state.cascades.get(key);
  const names = [...(known?.names ?? []), target];
  const named = names.map(describeRecord).join(', ');
  if (effectOnReferrer(slot.reference) === 'referrer-goes') {
    if (known?.change.action === 'delete') return known.change;
    const change = { ...cascadeChange(record, 'delete'), liveId: record.id, note: `names ${named}, which this plan removes: deleted first (--allow-cascade)` };
    state.cascades.set(key, { change, names });
    return change;
  }
  const listPath = slot.reference.path.at(-1) === '*' ? slot.reference.path.slice(0, -1) : [...slot.reference.path];
  const desired = withoutName(known?.change.desired ?? record.fields, slot.reference.path, target);
  const change: Change = {
    ...cascadeChange(record, 'update', desired),
    liveId: record.id,
    fields: [{ path: listPath.join('.'), before: readPath(record.fields, listPath), after: readPath(desired, listPath) }],
    note: `names ${named}, which this plan removes: the name is taken out first (--allow-cascade)`,
  };
  state.cascades.set(key, { change, names });
  return change;
}

/**
 * The change that has a referrer name a replacement's new record where it named the old one. It
 * names the new record's identity, so it waits for that create (plan/waves), and the old record's
 * delete waits for it. One change per referrer, whatever it names that the plan replaces or removes.
 */
function addRepoint(repoint: Repoint, state: SettleState): Change {
  const { record, slot, target, to } = repoint;
  const key = keyOf(record.kind, record.id);
  const known = state.cascades.get(key);
  const names = [...(known?.names ?? []), target];
  const path = slot.reference.path;
  const shown = path.at(-1) === '*' ? path.slice(0, -1) : [...path];
  const desired = withNameReplaced(known?.change.desired ?? record.fields, path, target, to.key);
  const change: Change = {
    ...cascadeChange(record, 'update', desired),
    liveId: record.id,
    fields: [{ path: shown.join('.'), before: readPath(record.fields, shown), after: readPath(desired, shown) }],
    note: `names ${describeRecord(target)}, which this plan replaces: changed to name the new record ${JSON.stringify(to.key)} once it is created, before the old one is deleted (--allow-cascade)`,
  };
  state.cascades.set(key, { change, names });
  return change;
}

function cascadeChange(record: LiveRecord, action: 'delete' | 'update', desired?: Record<string, unknown>): Change {
  return newChange(action, record.kind, record.identity, 'cascade', [], desired);
}

function indexChanges(changes: readonly Change[]): Map<string, Change[]> {
  const byRecord = new Map<string, Change[]>();
  for (const change of changes) {
    if (change.liveId === undefined || change.action === 'blocked') continue;
    const key = keyOf(change.kind, change.liveId);
    byRecord.set(key, [...(byRecord.get(key) ?? []), change]);
  }
  return byRecord;
}

function noteUnread(toRead: ReferrerRead, verdict: Unread): void {
  for (const kind of verdict.kinds) if (!toRead.kinds.includes(kind)) toRead.kinds.push(kind);
  for (const target of verdict.targets) {
    const known = toRead.removing.get(target.kind) ?? [];
    if (!known.some((r) => r.id === target.id)) toRead.removing.set(target.kind, [...known, { id: target.id, identity: target.identity }]);
  }
}

function blockedRemoval(change: Change, note: string): Change {
  return { ...newChange('blocked', change.kind, change.key, change.reason, change.fields), ...(change.liveId === undefined ? {} : { liveId: change.liveId }), note };
}

function describeRecord(record: Pick<LiveRecord, 'kind' | 'identity'>): string {
  return `${record.kind} "${record.identity}"`;
}

/** `N record(s) <which> (kind "identity", …)`: the records found, each once, by kind (in the order met) and identity. */
function listOf(found: readonly Found[], which: string): string {
  const records = [...new Map(found.map((f) => [keyOf(f.record.kind, f.record.id), f.record])).values()];
  const kindOrder = [...new Set(records.map((r) => r.kind))];
  records.sort((a, b) => kindOrder.indexOf(a.kind) - kindOrder.indexOf(b.kind) || (a.identity < b.identity ? -1 : a.identity > b.identity ? 1 : 0));
  return `${records.length} record(s) ${which} (${records.map(describeRecord).join(', ')})`;
}

function undeclaredNote(found: readonly Found[]): string {
  const goes = found.some((f) => effectOnReferrer(f.slot.reference) === 'referrer-goes');
  const dropped = found.some((f) => effectOnReferrer(f.slot.reference) === 'name-dropped');
  const effect = [goes ? 'take them with it' : '', dropped ? 'leave them naming a record that is gone' : ''].filter(Boolean).join(' or ');
  const cascade = goes && dropped ? 'delete them or take its name out of them' : goes ? 'delete them' : 'take its name out of them';
  return `named by ${listOf(found, 'that no manifest declares')}: removing it would ${effect}. Declare them (ensure: absent, or naming another record), or plan with --allow-cascade to ${cascade} first`;
}

function declaredNote(found: readonly Found[]): string {
  return `named by ${listOf(found, 'the manifests declare')}, which this plan neither removes nor changes to name another record: give them ensure: absent, or have them name another record`;
}

function replacementNote(found: readonly Found[]): string {
  return `a replacement re-creates it under a new id, and ${listOf(found, 'name the old one')}: plan with --allow-cascade to have them name the new record, or remove them (or their names of it) in an apply of their own first`;
}

function sameNameNote(found: readonly Found[]): string {
  return `a replacement re-creates it under the same name, so ${listOf(found, 'that name the old one')} cannot be changed to name the new one before the old one is deleted: remove them (or their names of it) in an apply of their own first`;
}

function unreadNote(kinds: readonly UnitKind[]): string {
  return `the records of ${kinds.join(', ')} that may name it were not read; plan again to read them`;
}
