// Plan output for people (text). Pure: strings in, strings out. The summary names only the
// actions present, then one compact line per kind (nested kinds under their parent, `logisticas ›
// servicos`); deletes come first under a warning; each change says why in words; keyed
// collections (tax entries …) show entry by entry like fields; long texts show as a line diff;
// secrets only as "(sensitive) changed". Everything shown is read from the plan, never re-decided.
import { diffLines } from 'diff';
import type { EnumField, KindAdapter } from '../kinds/kind.js';
import { parseKeyListField } from '../model/diff-fields.js';
import type { UnitKind } from '../model/kinds.js';
import { isPlainRecord } from '../model/paths.js';
import { printable } from '../model/printable.js';
import type { Change, ChangeAction, ChangeReason, FieldChange, Plan } from '../model/plan.js';
import { removesRecord } from '../model/plan.js';
import { describeSelection } from '../model/selection.js';

const symbols: Record<ChangeAction, string> = {
  create: '+',
  update: '~',
  'set-status': '~',
  'set-default': '~',
  delete: '-',
  retire: '-',
  blocked: '!',
};

/** Why, in the words of a plan: what the manifests ask compared with what the account holds. */
const reasonWords: Record<ChangeReason, string> = {
  missing: 'not in the account',
  drift: 'differs from the manifest',
  rename: 'renamed (found under a previous name)',
  tombstone: 'ensure: absent',
  prune: 'in no manifest of a pruned kind',
  replace: 'cannot change in place, replaced',
  cascade: 'names a record this plan removes',
  'built-in': "the account's own record",
  protected: 'protect: true',
  'not-supported': 'the API cannot make this change',
};

/** Texts longer than this, or with line breaks, are shown as a line diff. */
const longText = 60;

export interface RenderOptions {
  adapters: readonly KindAdapter[];
  /** Field changes shown per record before folding (the rest are counted). */
  maxFieldsPerChange?: number;
}

/** A unit kind as people read it: nested kinds under their parent (`logisticas › servicos`). */
export function describeKind(kind: UnitKind, adapters: readonly KindAdapter[]): string {
  const adapter = adapters.find((a) => a.kind === kind);
  return adapter?.nestedIn && adapter.nestedField ? `${adapter.nestedIn} › ${adapter.nestedField}` : kind;
}

function formatValue(value: unknown): string {
  return value === undefined ? '(unset)' : JSON.stringify(value);
}

function enumFieldAt(adapters: readonly KindAdapter[], change: Change, path: string): EnumField | undefined {
  const definition = adapters.find((a) => a.kind === change.kind)?.definition;
  const segments = path.split('.');
  return definition?.enums.find((e) => {
    const plain = e.path.filter((s) => s !== '*');
    return plain.length === segments.length && plain.every((s, i) => s === segments[i]);
  });
}

function withLabel(value: unknown, field: EnumField | undefined): string {
  const shown = formatValue(value);
  if (!field || (typeof value !== 'number' && typeof value !== 'string')) return shown;
  const label = Object.entries(field.labels).find(([, code]) => code === value)?.[0];
  return label && label !== value ? `${shown} (${label})` : shown;
}

/** The keyed collections a change touches (see model/diff-fields keyListField) with every key they name. */
function keyedCollectionsOf(change: Change): Map<string, string[]> {
  const collections = new Map<string, string[]>();
  for (const field of change.fields) {
    const collection = parseKeyListField(field.path);
    if (!collection) continue;
    const keys = [field.before, field.after].flatMap((side) => (Array.isArray(side) ? side.map(String) : []));
    collections.set(collection, [...new Set(keys)].sort((a, b) => b.length - a.length));
  }
  return collections;
}

/** `ISS.tributos.9602-5/01 + 0601.percentualISS` → `ISS.tributos["9602-5/01 + 0601"].percentualISS`. */
function displayPath(path: string, collections: ReadonlyMap<string, string[]>): string {
  for (const [collection, keys] of collections) {
    if (!path.startsWith(`${collection}.`)) continue;
    const rest = path.slice(collection.length + 1);
    const key = keys.find((k) => rest === k || rest.startsWith(`${k}.`));
    if (key !== undefined) return `${collection}[${JSON.stringify(key)}]${rest.slice(key.length)}`;
  }
  return path;
}

/** The leaves of an object as `path: value` lines, for an entry added or dropped whole. */
function leafLines(value: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(value).flatMap(([key, item]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    return isPlainRecord(item) ? leafLines(item, path) : [`${path}: ${formatValue(item)}`];
  });
}

function renderLongText(path: string, field: FieldChange): string[] {
  const lines = [`    ${path}:`];
  for (const part of diffLines(typeof field.before === 'string' ? field.before : '', typeof field.after === 'string' ? field.after : '')) {
    const marker = part.added ? '+' : part.removed ? '-' : ' ';
    for (const line of part.value.replace(/\n$/, '').split('\n')) lines.push(`      ${marker} ${line}`);
  }
  return lines;
}

function renderField(change: Change, field: FieldChange, adapters: readonly KindAdapter[], collections: ReadonlyMap<string, string[]>): string[] {
  const path = displayPath(field.path, collections);
  if (field.sensitive) return [`    ${path}: (sensitive) changed`];
  const collection = parseKeyListField(field.path);
  if (collection) {
    // Added entries show through their own fields; only the dropped ones need saying.
    const kept = new Set(Array.isArray(field.after) ? field.after.map(String) : []);
    const dropped = (Array.isArray(field.before) ? field.before.map(String) : []).filter((key) => !kept.has(key));
    return dropped.map((key) => `    - ${collection}[${JSON.stringify(key)}]: removed`);
  }
  if (isPlainRecord(field.after) && !isPlainRecord(field.before)) return [`    + ${path}:`, ...leafLines(field.after).map((line) => `        ${line}`)];
  if (isPlainRecord(field.before) && !isPlainRecord(field.after)) return [`    - ${path}:`, ...leafLines(field.before).map((line) => `        ${line}`)];
  const isLong = (v: unknown) => typeof v === 'string' && (v.length > longText || v.includes('\n'));
  if (isLong(field.before) || isLong(field.after)) return renderLongText(path, field);
  const enumField = enumFieldAt(adapters, change, field.path);
  if (change.action === 'create') return [`    ${path}: ${withLabel(field.after, enumField)}`];
  return [`    ${path}: ${withLabel(field.before, enumField)} → ${withLabel(field.after, enumField)}`];
}

function describeChange(change: Change, adapters: readonly KindAdapter[]): string {
  const where = [...(change.liveId !== undefined ? [`id ${change.liveId}`] : []), `wave ${change.wave}`].join(', ');
  return `${symbols[change.action]} ${describeKind(change.kind, adapters)} "${change.key}" — ${change.action}: ${reasonWords[change.reason]} (${where})`;
}

/** The changes counted as people group them: status and default switches are updates. */
export function countByAction(changes: readonly Pick<Change, 'action'>[]): { create: number; update: number; delete: number; retire: number; blocked: number } {
  const count = (...actions: ChangeAction[]) => changes.filter((c) => actions.includes(c.action)).length;
  return { create: count('create'), update: count('update', 'set-status', 'set-default'), delete: count('delete'), retire: count('retire'), blocked: count('blocked') };
}

/** `3 to create, 2 to update, 1 to retire`: only the actions present; `no changes` when none. */
function countActions(changes: readonly Change[]): string {
  const counts = countByAction(changes);
  const parts: [number, string][] = [
    [counts.create, 'to create'],
    [counts.update, 'to update'],
    [counts.delete, 'to delete'],
    [counts.retire, 'to retire'],
    [counts.blocked, 'blocked'],
  ];
  const present = parts.filter(([n]) => n > 0).map(([n, words]) => `${n} ${words}`);
  return present.length > 0 ? present.join(', ') : 'no changes';
}

export function summarizePlan(plan: Plan): string {
  return countActions(plan.changes);
}

/** One line per kind with changes, parents before their nested kinds (the adapters' order). */
function renderKindList(plan: Plan, adapters: readonly KindAdapter[]): string[] {
  const present = new Set(plan.changes.map((c) => c.kind));
  const ordered = [...adapters.map((a) => a.kind).filter((k) => present.has(k)), ...[...present].filter((k) => !adapters.some((a) => a.kind === k))];
  const width = Math.max(...ordered.map((k) => describeKind(k, adapters).length));
  return ordered.map((kind) => `  ${describeKind(kind, adapters).padEnd(width)}  ${countActions(plan.changes.filter((c) => c.kind === kind))}`);
}

export function renderPlanText(plan: Plan, options: RenderOptions): string[] {
  const { adapters } = options;
  // A targeted plan says so first: its silence about other records is not "in sync".
  const partial = plan.selection ? ` (partial: ${describeSelection(plan.selection)}${plan.selection.addedDependencies.length > 0 ? `; ${plan.selection.addedDependencies.length} change(s) added as dependencies` : ''})` : '';
  if (plan.changes.length === 0) return [partial ? `No changes${partial}.` : 'No changes. The account matches the manifests.', ...renderCost(plan)];
  const lines = [`Plan${partial}: ${summarizePlan(plan)}.`, '', ...renderKindList(plan, adapters)];

  const removals = plan.changes.filter(removesRecord);
  if (removals.length > 0) {
    lines.push('', `WARNING: ${removals.length} record(s) will be deleted or retired:`);
    for (const change of removals) lines.push(`  ${describeChange(change, adapters)}`);
  }
  for (const warning of plan.warnings) lines.push('', `WARNING: ${warning}`);

  const max = options.maxFieldsPerChange ?? Infinity;
  for (const change of plan.changes) {
    lines.push('', describeChange(change, adapters));
    if (plan.selection?.addedDependencies.includes(change.id)) lines.push('    included: a selected change depends on it');
    if (change.note) lines.push(`    note: ${change.note}`);
    const collections = keyedCollectionsOf(change);
    const shown = change.fields.slice(0, max);
    for (const field of shown) lines.push(...renderField(change, field, adapters, collections));
    if (change.fields.length > shown.length) lines.push(`    … ${change.fields.length - shown.length} more field(s) (use --verbose)`);
  }
  lines.push('', ...renderCost(plan));
  // Keys and values come from manifests and from the account: shown escaped, they cannot drive the terminal.
  return lines.map((line) => printable(line));
}

function renderCost(plan: Plan): string[] {
  const { reads, writes, verifyReads = 0, seconds, rate } = plan.cost;
  const readBack = verifyReads > 0 ? ` and ${verifyReads} read(s) to verify them` : '';
  const read = `Cost: ${reads} request(s) read the account; ${writes} write(s) planned${readBack}`;
  // The sandbox answers as fast as it can: a projection at a real account's pace is only a hint there.
  if (plan.target.mode === 'sandbox') return [`${read} (the sandbox is unpaced; a real account would take about ${seconds} s at ${rate} req/s).`];
  return [`${read}, about ${seconds} s at ${rate} req/s.`];
}
