// The fleet's outputs: one progress line per store as it finishes, and one table at the end (store,
// account, changes or drift, blocked changes, errors) as text, JSON or Markdown. Pure: strings in,
// strings out.
import { describeAccount } from '../model/account.js';
import { markdownText } from './markdown-escape.js';
import type { FleetCommand, FleetReport, FleetRow } from '../model/fleet.js';

const changeWord: Record<FleetCommand, string> = { plan: 'changes', apply: 'changes', drift: 'drifted', check: 'changes' };

function outcomeOf(command: FleetCommand, row: FleetRow): string {
  return row.stage === undefined ? outcomeAlone(command, row) : `${row.stage}: ${outcomeAlone(command, row)}`;
}

function outcomeAlone(command: FleetCommand, row: FleetRow): string {
  if (row.skipped !== undefined) return `skipped (${row.skipped})`;
  if (row.error !== undefined) return `error: ${row.error}`;
  if (command === 'check') return 'reachable';
  if (command === 'drift') return row.changes === 0 ? 'in sync' : `${row.changes} ${changeWord[command]}`;
  const done = row.changes === 0 ? [] : [command === 'apply' ? `${row.applied ?? 0} applied${row.failed ? `, ${row.failed} failed` : ''}` : `${row.changes} ${changeWord[command]}`];
  const parts = [...done, ...(row.blocked ? [`${row.blocked} blocked`] : [])];
  return parts.length === 0 ? 'no changes' : parts.join(', ');
}

/** Plans and applies count blocked changes in a column of their own. */
function showsBlocked(command: FleetCommand): boolean {
  return command === 'plan' || command === 'apply';
}

export function accountOf(row: FleetRow): string {
  return row.account ? describeAccount(row.account) : '—';
}

/** `[3/20] lojas/centro · Loja Centro Ltda (CNPJ …) · 2 changes (0.4 s)` */
export function renderFleetProgress(command: FleetCommand, row: FleetRow, done: number, total: number): string {
  return `[${String(done).padStart(String(total).length)}/${total}] ${row.target} · ${accountOf(row)} · ${outcomeOf(command, row)} (${row.seconds.toFixed(1)} s)`;
}

/** `Fleet plan: 20 store(s), 3 with changes, 0 failed, in 1.2 s (exit 2).` */
export function summaryOf(report: FleetReport): string {
  const failed = report.rows.filter((r) => r.error !== undefined || (r.failed ?? 0) > 0).length;
  const changed = report.rows.filter((r) => r.error === undefined && r.skipped === undefined && r.changes > 0).length;
  const skipped = report.rows.filter((r) => r.skipped !== undefined).length;
  const blocked = report.rows.filter((r) => (r.blocked ?? 0) > 0).length;
  const what = report.command === 'drift' ? 'drifted' : report.command === 'apply' ? 'changed' : 'with changes';
  return `Fleet ${report.command}: ${report.rows.length} store(s), ${changed} ${what}, ${failed} failed${blocked > 0 ? `, ${blocked} with blocked changes` : ''}${skipped > 0 ? `, ${skipped} skipped` : ''}, in ${report.seconds.toFixed(1)} s (exit ${report.exitCode}).`;
}

/** The table's columns: store, account, changes (or drift), blocked (plan and apply), result. */
function columnsOf(report: FleetReport): { header: string[]; cells: (row: FleetRow) => string[] } {
  const blocked = showsBlocked(report.command);
  return {
    header: ['store', 'account', report.command === 'drift' ? 'drift' : 'changes', ...(blocked ? ['blocked'] : []), 'result'],
    cells: (r) => [r.target, accountOf(r), String(r.changes), ...(blocked ? [String(r.blocked ?? 0)] : []), outcomeOf(report.command, r)],
  };
}

export function renderFleetText(report: FleetReport): string[] {
  const { header, cells } = columnsOf(report);
  const rows = report.rows.map(cells);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ');
  return ['', line(header), ...rows.map(line), '', summaryOf(report)];
}

/** The table in Markdown; `shown` lists only some of the rows (a size limit) and says which, the summary still counting them all. */
export function renderFleetMarkdown(report: FleetReport, shown?: { rows: readonly FleetRow[]; note: string }): string {
  const { header, cells } = columnsOf(report);
  const counts = header.length - 3;
  const lines = [
    `### erpsync ${report.command}: ${report.rows.length} store(s)`,
    '',
    `| ${header.join(' | ')} |`,
    `|---|---|${'---:|'.repeat(counts)}---|`,
    ...(shown?.rows ?? report.rows).map((r) => `| ${cells(r).map(markdownText).join(' | ')} |`),
    '',
    ...(shown ? [shown.note, ''] : []),
    summaryOf(report),
  ];
  return `${lines.join('\n')}\n`;
}
