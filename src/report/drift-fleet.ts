// A fleet's drift in every format one store's report has, with the fleet's table: each store's
// records, fields and who changed them, rendered by the single-store reporters so a store reads the
// same alone and in a fleet. Text: every store's report under its account line (the table follows).
// JSON: the table's rows and every store's report (schemas/drift-fleet.schema.json). Markdown, for a
// step summary or a comment: the table first, then the report of each store that drifted or could
// not be checked, the whole kept under the limit — cut between stores (the last one shown may be
// cut inside, by its own reporter) and saying where the full reports are. JUnit: drift-junit.
// Pure: strings out.
import { hasDrift } from '../model/drift.js';
import type { FleetDriftStore } from '../model/drift.js';
import type { FleetReport, FleetRow } from '../model/fleet.js';
import { printable } from '../model/printable.js';
import type { DriftRenderOptions } from './drift-format.js';
import { renderDriftJson } from './drift-json.js';
import { renderDriftJunit, renderFleetDriftJunit } from './drift-junit.js';
import type { DriftMarkdownOptions } from './drift-markdown.js';
import { defaultMarkdownLimit, renderDriftMarkdown } from './drift-markdown.js';
import { renderDriftText } from './drift-text.js';
import { renderFleetMarkdown } from './fleet-report.js';
import { markdownText } from './markdown-escape.js';

export type DriftFormat = 'text' | 'json' | 'markdown' | 'junit';

/** A store's own file under `drift --all-targets --out DIR`: `DIR/<target>.<extension>`. */
export const driftFileExtensions: Record<DriftFormat, string> = { text: 'txt', json: 'json', markdown: 'md', junit: 'xml' };

/** Below this many characters left, a store's report is not started: the notice says where it is. */
const minStoreSection = 2_000;

/** Each store's report under `== target ==` and the lines `headOf` gives (its account line, its diagnostics); the table follows them (fleet-report). */
export function renderFleetDriftText(stores: readonly FleetDriftStore[], options: DriftRenderOptions, headOf: (target: string) => readonly string[]): string[] {
  return stores.flatMap((store) => ['', `== ${store.target} ==`, ...headOf(store.target), ...storeText(store, options)]);
}

function storeText(store: FleetDriftStore, options: DriftRenderOptions): string[] {
  return store.report ? renderDriftText(store.report, options) : [`error: ${printable(store.error ?? 'not checked')}`];
}

/** The table's rows (`formatVersion`, `command`, `rows` as every fleet's JSON) and every store's report. */
export function renderFleetDriftJson(stores: readonly FleetDriftStore[], report: FleetReport): string {
  return `${JSON.stringify({ formatVersion: 1, ...report, stores: stores.map(storeJson) }, null, 2)}\n`;
}

function storeJson(store: FleetDriftStore): FleetDriftStore {
  const { target, account, owners, report, error, exitCode } = store;
  return { target, ...(account ? { account } : {}), owners, ...(report ? { report } : {}), ...(error !== undefined ? { error } : {}), exitCode };
}

function errorSection(store: FleetDriftStore): string {
  return `## erpsync drift: ${markdownText(store.target)} could not be checked\n\n${markdownText(store.error ?? 'not checked')}\n`;
}

/** A store's report in Markdown within `maxChars` (its own reporter cuts it), or why it has none. */
function storeMarkdown(store: FleetDriftStore, options: DriftMarkdownOptions, maxChars: number): string {
  return store.report ? renderDriftMarkdown(store.report, { ...options, maxChars }) : errorSection(store);
}

const isNotable = (row: FleetRow): boolean => row.error !== undefined || row.changes > 0;

/**
 * The table within `room`: every store; else only the stores that drifted or failed; else as many
 * of those as fit, saying how many are left out.
 */
function tableWithin(report: FleetReport, room: number, limit: number, fullReport: string): string {
  const whole = renderFleetMarkdown(report);
  if (whole.length <= room) return whole;
  const notable = report.rows.filter(isNotable);
  const inSync = report.rows.length - notable.length;
  const noteFor = (shown: number) =>
    shown === notable.length
      ? `_The ${inSync} store(s) in sync are left out of this table, to keep it short._`
      : `_This table lists ${shown} of the ${notable.length} stores that drifted or failed (and none of the ${inSync} in sync), to stay under ${limit.toLocaleString('en-US')} characters. The full reports: ${fullReport}._`;
  const tableOf = (shown: number) => renderFleetMarkdown(report, { rows: notable.slice(0, shown), note: noteFor(shown) });
  // The most rows that fit: a table grows with every row, so the count is found by halving.
  let low = 0;
  let high = notable.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (tableOf(middle).length <= room) low = middle;
    else high = middle - 1;
  }
  return tableOf(low);
}

function fleetCutNotice(shown: number, total: number, partly: boolean, limit: number, fullReport: string): string {
  const last = partly ? ' (the last one in part)' : '';
  return `\n---\n\n> **Fleet report cut here:** it shows the reports of ${shown} of the ${total} stores that drifted or could not be checked${last}, to stay under ${limit.toLocaleString('en-US')} characters. The full reports: ${fullReport}.\n`;
}

/** The table first, then each store that drifted or failed, all within `maxChars`. */
export function renderFleetDriftMarkdown(stores: readonly FleetDriftStore[], report: FleetReport, options: DriftMarkdownOptions): string {
  const limit = options.maxChars ?? defaultMarkdownLimit;
  const fullReport = options.fullReport ?? 'run `erpsync drift --all-targets --out DIR` for every store\'s full report';
  const notable = stores.filter((store) => !store.report || hasDrift(store.report));
  const sections = notable.map((store) => storeMarkdown(store, options, Number.POSITIVE_INFINITY));
  const whole = [renderFleetMarkdown(report), ...sections].join('\n');
  if (whole.length <= limit) return whole;
  if (notable.length === 0) return tableWithin(report, limit, limit, fullReport);

  const reserve = fleetCutNotice(notable.length, notable.length, true, limit, fullReport).length;
  let text = tableWithin(report, Math.floor(limit / 2), limit, fullReport);
  let shown = 0;
  let partly = false;
  for (const [index, section] of sections.entries()) {
    const room = limit - reserve - text.length - 1;
    if (section.length <= room) {
      text += `\n${section}`;
      shown += 1;
      continue;
    }
    const store = notable[index];
    if (store?.report && room >= minStoreSection) {
      text += `\n${storeMarkdown(store, { ...options, fullReport }, room)}`;
      shown += 1;
      partly = true;
    }
    break;
  }
  // Only the table was cut: every store's report is there.
  if (shown === notable.length && !partly) return `${text.trimEnd()}\n`;
  return `${text.trimEnd()}\n${fleetCutNotice(shown, notable.length, partly, limit, fullReport)}`;
}

/** A store's own file under `--out DIR`: its whole report as it alone would write it with `--out`, or why it has none. */
export function renderStoreDriftFile(store: FleetDriftStore, format: DriftFormat, options: DriftRenderOptions): string {
  switch (format) {
    case 'text':
      return `${storeText(store, options).join('\n')}\n`;
    case 'json':
      return store.report ? renderDriftJson(store.report) : `${JSON.stringify(storeJson(store), null, 2)}\n`;
    case 'markdown':
      return storeMarkdown(store, options, Number.POSITIVE_INFINITY);
    case 'junit':
      return store.report ? renderDriftJunit(store.report, options) : renderFleetDriftJunit([store], options);
  }
}
