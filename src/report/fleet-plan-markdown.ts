// A fleet's plan in Markdown, for a pull request: `plan --format markdown` across targets, and the
// comments `plan --comment-dir` writes. ONE summary table first, of every store with changes or an
// error (creates, updates, deletes, blocked, error; the unchanged stores counted in one line), then
// every removal of every store before any other change, then the blocked changes, then each
// store's own plan (plan-markdown) folded in <details>. It is built as sections so that
// plan-comments cuts it into comments under a size limit from the same rendering. Pure. Every name
// from the account or the manifests goes through markdown-escape; secrets never reach it (a plan
// holds a secret field as "(sensitive) changed", never its value).
import type { KindAdapter } from '../kinds/kind.js';
import type { FleetReport, FleetRow } from '../model/fleet.js';
import type { Change, Plan } from '../model/plan.js';
import { isActionable, removesRecord } from '../model/plan.js';
import { accountOf, summaryOf } from './fleet-report.js';
import { codeSpan, htmlCode, htmlText, markdownText } from './markdown-escape.js';
import { describeRemoval, renderPlanMarkdown } from './plan-markdown.js';
import { countByAction, summarizePlan } from './render-plan.js';

export interface FleetPlanStore {
  target: string;
  row: FleetRow;
  /** Absent when the store could not be planned (its row says why). */
  plan?: Plan | undefined;
  /** The store's account line. */
  banner: string;
  /** Where its saved plan is (`plans/lojas/centro.json`): named where its details are cut. */
  savedPlan?: string | undefined;
}

/** Lines that may be cut between any two: the head stays with the first line, a part after a cut opens with `continued`. */
export interface LinesSection {
  type: 'lines';
  head: readonly string[];
  lines: readonly string[];
  continued: readonly string[];
}

/** One store's details, rendered to fit in `maxChars`: cut, with a note saying where the rest is, when they do not. */
export interface StoreSection {
  type: 'store';
  target: string;
  render(maxChars: number): string;
}

export type FleetPlanSection = LinesSection | StoreSection;

/** The longest account or error shown in a table cell, before escaping. */
const cellChars = 120;
const errorChars = 300;
/** Each store's details when the whole Markdown is printed (plan-markdown's own cap). */
const storeChars = 60_000;

const tableHead = ['| store | account | creates | updates | deletes | blocked | error |', '|---|---|---:|---:|---:|---:|---|'];

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A store in the table and the details: one with changes (blocked ones too), or one that failed. */
function isListed(store: FleetPlanStore): boolean {
  return store.plan === undefined || store.plan.changes.length > 0;
}

function errorOf(store: FleetPlanStore): string | undefined {
  return store.row.error ?? (store.plan ? undefined : 'not planned');
}

function tableRow(store: FleetPlanStore): string {
  const counts = store.plan ? countByAction(store.plan.changes) : undefined;
  const cell = (n: number | undefined) => (n === undefined || n === 0 ? '–' : String(n));
  const error = errorOf(store);
  const cells = [
    markdownText(store.target),
    markdownText(clip(accountOf(store.row), cellChars)),
    cell(counts?.create),
    cell(counts?.update),
    cell(counts && counts.delete + counts.retire),
    cell(counts?.blocked),
    error === undefined ? '–' : markdownText(clip(error, errorChars)),
  ];
  return `| ${cells.join(' | ')} |`;
}

function headline(stores: readonly FleetPlanStore[]): string {
  const changed = stores.filter((s) => s.plan?.changes.some(isActionable)).length;
  const blocked = stores.filter((s) => s.plan?.changes.some((c) => !isActionable(c))).length;
  const failed = stores.filter((s) => s.plan === undefined).length;
  return `### erpsync plan: ${stores.length} store(s), ${changed} with changes${blocked > 0 ? `, ${blocked} with blocked changes` : ''}, ${failed} failed`;
}

function tableSections(stores: readonly FleetPlanStore[], report: FleetReport): LinesSection[] {
  const listed = stores.filter(isListed);
  const unchanged = stores.length - listed.length;
  const table: LinesSection =
    listed.length === 0
      ? { type: 'lines', head: [headline(stores), '', 'No store has changes.'], lines: [], continued: [] }
      : { type: 'lines', head: [headline(stores), '', ...tableHead], lines: listed.map(tableRow), continued: ['**Summary table (continued)**', '', ...tableHead] };
  const tail = [...(unchanged > 0 && listed.length > 0 ? [`${unchanged} store(s) unchanged, not listed.`] : []), summaryOf(report)];
  return [table, { type: 'lines', head: ['', ...tail], lines: [], continued: [] }];
}

/** Every store's removals, in the table's order: reviewed before anything else. */
function removalsSection(stores: readonly FleetPlanStore[]): LinesSection {
  const removals = stores.flatMap((store) => (store.plan?.changes ?? []).filter(removesRecord).map((change) => ({ store, change })));
  if (removals.length === 0) return { type: 'lines', head: ['', '#### Removals: none', '', 'No store deletes or retires a record.'], lines: [], continued: [] };
  const storeCount = new Set(removals.map((r) => r.store.target)).size;
  return {
    type: 'lines',
    head: ['', '#### Removals, before any other change', '', '> [!WARNING]', `> ${removals.length} record(s) will be deleted or retired in ${storeCount} store(s):`, ''],
    lines: removals.map(({ store, change }) => describeRemoval(change, `${codeSpan(store.target)} · `)),
    continued: ['#### Removals (continued)', ''],
  };
}

function describeBlocked(target: string, change: Change): string {
  return `- ${codeSpan(target)} · ${codeSpan(change.kind)} ${codeSpan(change.key)}: blocked (${change.reason})${change.note ? `: ${markdownText(change.note)}` : ''}`;
}

/** The changes no apply will make, with why: a pipeline must not read them as done. */
function blockedSections(stores: readonly FleetPlanStore[]): LinesSection[] {
  const blocked = stores.flatMap((store) => (store.plan?.changes ?? []).filter((c) => c.action === 'blocked').map((change) => describeBlocked(store.target, change)));
  if (blocked.length === 0) return [];
  const storeCount = stores.filter((s) => s.plan?.changes.some((c) => c.action === 'blocked')).length;
  return [{ type: 'lines', head: ['', `#### Blocked: ${blocked.length} change(s) in ${storeCount} store(s), never applied`, ''], lines: blocked, continued: ['#### Blocked (continued)', ''] }];
}

function storeSection(store: FleetPlanStore, adapters: readonly KindAdapter[]): StoreSection {
  const what = store.plan ? summarizePlan(store.plan) : 'failed';
  const open = ['', `<details><summary>${htmlCode(store.target)} · ${htmlText(what)}</summary>`, '', markdownText(store.banner), '', ''].join('\n');
  const close = '\n</details>\n';
  return {
    type: 'store',
    target: store.target,
    render(maxChars) {
      const body = store.plan
        ? renderPlanMarkdown(store.plan, { adapters, maxChars: maxChars - open.length - close.length, fullPlanAt: store.savedPlan, headed: false })
        : `error: ${markdownText(clip(errorOf(store) ?? '', errorChars))}\n`;
      return `${open}${body}${close}`;
    },
  };
}

/** The sections in reading order: the table, the removals, the blocked changes, each store's details. */
export function fleetPlanSections(stores: readonly FleetPlanStore[], report: FleetReport, adapters: readonly KindAdapter[]): FleetPlanSection[] {
  return [...tableSections(stores, report), removalsSection(stores), ...blockedSections(stores), ...stores.filter(isListed).map((store) => storeSection(store, adapters))];
}

/** A lines section whole: its head and every line. */
function renderLines(section: LinesSection): string {
  return [...section.head, ...section.lines].map((line) => `${line}\n`).join('');
}

/** The whole fleet plan as one Markdown text (each store's details under plan-markdown's own cap). */
export function renderFleetPlanMarkdown(stores: readonly FleetPlanStore[], report: FleetReport, adapters: readonly KindAdapter[]): string {
  return fleetPlanSections(stores, report, adapters)
    .map((section) => (section.type === 'lines' ? renderLines(section) : section.render(storeChars)))
    .join('');
}
