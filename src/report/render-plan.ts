// Plan output for people (text) and machines (JSON). Pure: strings in, strings out. Deletes come
// first under a warning; long texts show as a line diff; secrets only as "(sensitive) changed".
import { diffLines } from 'diff';
import type { EnumField } from '../kinds/kind.js';
import { printable } from '../model/printable.js';
import type { KindAdapter } from '../kinds/kind.js';
import type { Change, ChangeAction, FieldChange, Plan } from '../model/plan.js';
import { removesRecord } from '../model/plan.js';
import { describeSelection } from '../model/selection.js';

const actionColumns: readonly ChangeAction[] = ['create', 'update', 'set-status', 'set-default', 'delete', 'retire', 'blocked'];
const symbols: Record<ChangeAction, string> = {
  create: '+',
  update: '~',
  'set-status': '~',
  'set-default': '~',
  delete: '-',
  retire: '-',
  blocked: '!',
};
/** Texts longer than this, or with line breaks, are shown as a line diff. */
const longText = 60;

export interface RenderOptions {
  adapters: readonly KindAdapter[];
  /** Field changes shown per record before folding (the rest are counted). */
  maxFieldsPerChange?: number;
}

function formatValue(value: unknown): string {
  if (value === undefined) return '(unset)';
  if (typeof value === 'string') return JSON.stringify(value);
  return JSON.stringify(value);
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

function renderField(change: Change, field: FieldChange, adapters: readonly KindAdapter[]): string[] {
  if (field.sensitive) return [`    ${field.path}: (sensitive) changed`];
  const enumField = enumFieldAt(adapters, change, field.path);
  const isLong = (v: unknown) => typeof v === 'string' && (v.length > longText || v.includes('\n'));
  if (isLong(field.before) || isLong(field.after)) {
    const lines = [`    ${field.path}:`];
    for (const part of diffLines(typeof field.before === 'string' ? field.before : '', typeof field.after === 'string' ? field.after : '')) {
      const marker = part.added ? '+' : part.removed ? '-' : ' ';
      for (const line of part.value.replace(/\n$/, '').split('\n')) lines.push(`      ${marker} ${line}`);
    }
    return lines;
  }
  if (change.action === 'create') return [`    ${field.path}: ${withLabel(field.after, enumField)}`];
  return [`    ${field.path}: ${withLabel(field.before, enumField)} → ${withLabel(field.after, enumField)}`];
}

function describeChange(change: Change): string {
  const where = change.liveId !== undefined ? `, id ${change.liveId}` : '';
  return `${symbols[change.action]} ${change.kind} "${change.key}" — ${change.action} (${change.reason}${where}, wave ${change.wave})`;
}

export function summarizePlan(plan: Plan): string {
  const count = (action: ChangeAction) => plan.changes.filter((c) => c.action === action).length;
  const parts = [
    `${count('create')} to create`,
    `${count('update') + count('set-status') + count('set-default')} to change`,
    `${plan.changes.filter(removesRecord).length} to delete or retire`,
  ];
  if (count('blocked') > 0) parts.push(`${count('blocked')} blocked`);
  return parts.join(', ');
}

export function renderPlanText(plan: Plan, options: RenderOptions): string[] {
  const lines: string[] = [];
  // A targeted plan says so first: its silence about other records is not "in sync".
  const partial = plan.selection ? ` (partial: ${describeSelection(plan.selection)}${plan.selection.addedDependencies.length > 0 ? `; ${plan.selection.addedDependencies.length} change(s) added as dependencies` : ''})` : '';
  if (plan.changes.length === 0) {
    lines.push(partial ? `No changes${partial}.` : 'No changes. The account matches the manifests.');
    lines.push(...renderCost(plan));
    return lines;
  }
  lines.push(`Plan${partial}: ${summarizePlan(plan)}.`, '');

  const kinds = [...new Set(plan.changes.map((c) => c.kind))];
  const width = Math.max(4, ...kinds.map((k) => k.length));
  lines.push(`  ${'kind'.padEnd(width)}  ${actionColumns.map((a) => a.padStart(12)).join('')}`);
  for (const kind of kinds) {
    const cells = actionColumns.map((action) => {
      const n = plan.changes.filter((c) => c.kind === kind && c.action === action).length;
      return (n === 0 ? '-' : String(n)).padStart(12);
    });
    lines.push(`  ${kind.padEnd(width)}  ${cells.join('')}`);
  }

  const removals = plan.changes.filter(removesRecord);
  if (removals.length > 0) {
    lines.push('', `WARNING: ${removals.length} record(s) will be deleted or retired:`);
    for (const change of removals) lines.push(`  ${describeChange(change)}`);
  }
  for (const warning of plan.warnings) lines.push('', `WARNING: ${warning}`);

  const max = options.maxFieldsPerChange ?? Infinity;
  for (const change of plan.changes) {
    lines.push('', describeChange(change));
    if (plan.selection?.addedDependencies.includes(change.id)) lines.push('    included: a selected change depends on it');
    if (change.note) lines.push(`    note: ${change.note}`);
    const shown = change.fields.slice(0, max);
    for (const field of shown) lines.push(...renderField(change, field, options.adapters));
    if (change.fields.length > shown.length) lines.push(`    … ${change.fields.length - shown.length} more field(s) (use --verbose)`);
  }
  lines.push('', ...renderCost(plan));
  // Keys and values come from manifests and from the account: shown escaped, they cannot drive the terminal.
  return lines.map((line) => printable(line));
}

function renderCost(plan: Plan): string[] {
  const { reads, writes, verifyReads = 0, seconds, rate } = plan.cost;
  const readBack = verifyReads > 0 ? ` and ${verifyReads} read(s) to verify them` : '';
  return [`Cost: ${reads} request(s) read the account; ${writes} write(s) planned${readBack}, about ${seconds} s at ${rate} req/s.`];
}


