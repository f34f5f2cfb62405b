// Where a fleet's output goes: a progress line per store as it finishes (stdout for text, stderr
// when stdout carries JSON or Markdown), then each store's plan or report under its account line —
// removals first, as for one store — then the table, in the chosen format. A plan's Markdown is
// the pull request's: the table first, then every removal, then each store folded
// (report/fleet-plan-markdown), the same sections its comments are cut from.
import path from 'node:path';
import { registry } from '../kinds/registry.js';
import { describeAccount } from '../model/account.js';
import type { FleetCommand, FleetReport } from '../model/fleet.js';
import type { Plan } from '../model/plan.js';
import { renderDiagnosticsText } from '../report/diagnostics-report.js';
import { renderFleetMarkdown, renderFleetProgress, renderFleetText } from '../report/fleet-report.js';
import type { FleetPlanStore } from '../report/fleet-plan-markdown.js';
import { renderFleetPlanMarkdown } from '../report/fleet-plan-markdown.js';
import { renderPlanText } from '../report/render-plan.js';
import { serializePlan } from '../plan/plan-file.js';
import type { FleetStore } from '../workflows/fleet-workflow.js';
import { fleetPlanFile } from '../workflows/saved-plans.js';
import type { RunIO } from '../model/run-io.js';
import { writeLine } from '../model/run-io.js';

export type FleetFormat = 'text' | 'json' | 'markdown';

/** Field diffs per change in a fleet's text: enough to review, short enough for many stores (--verbose shows all). */
const fleetFieldFold = 6;

export interface FleetPrintOptions {
  /** Each store's plan before the table (an apply's text already showed them in its review). */
  plans: boolean;
  verbose: boolean;
  /** The folder the plans were saved to (`plan --out DIR`), named where Markdown cuts a store's details. */
  savedPlans?: string | undefined;
}

/** Progress lines on stdout for text; any other format (JSON, Markdown, JUnit) keeps stdout for itself. */
export function fleetProgress(command: FleetCommand, format: string, io: RunIO): (store: FleetStore, done: number, total: number) => void {
  const out = format === 'text' ? io.stdout : io.stderr;
  return (store, done, total) => writeLine(out, renderFleetProgress(command, store.row, done, total));
}

function planOf(store: FleetStore): Plan | undefined {
  const result = store.result;
  return result && (result.status === 'planned' || result.status === 'applied') ? result.plan : undefined;
}

function bannerOf(store: FleetStore): string {
  if (store.result?.opened) return store.result.opened.banner;
  const plan = planOf(store);
  // A plan read from a fleet's folder: the account it was made on, not yet reached again.
  if (plan) return `Account: ${describeAccount(plan.target.account)} · target ${plan.target.name} (saved plan)`;
  return `${store.name}: ${store.row.error ?? 'not reached'}`;
}

/** Each store's plan, in the order of the table: its account line, its diagnostics, then the plan. */
function renderStoresText(stores: readonly FleetStore[], verbose: boolean): string[] {
  return stores.flatMap((store) => {
    const plan = planOf(store);
    const diagnostics = store.result ? renderDiagnosticsText(store.result.diagnostics) : [];
    const body = plan ? renderPlanText(plan, { adapters: registry.units, ...(verbose ? {} : { maxFieldsPerChange: fleetFieldFold }) }) : [store.row.error ? `error: ${store.row.error}` : ''];
    return ['', `== ${store.name} ==`, bannerOf(store), ...diagnostics, ...body];
  });
}

/** The stores as a plan's Markdown shows them: each with its plan (or its error), account line and saved plan. */
export function fleetPlanStores(stores: readonly FleetStore[], savedPlans: string | undefined): FleetPlanStore[] {
  return stores.map((store) => ({
    target: store.name,
    row: store.row,
    plan: planOf(store),
    banner: bannerOf(store),
    ...(savedPlans === undefined ? {} : { savedPlan: path.join(savedPlans, fleetPlanFile(store.name)) }),
  }));
}

function storesJson(stores: readonly FleetStore[]): unknown[] {
  return stores.map((store) => {
    const plan = planOf(store);
    return {
      target: store.name,
      ...(store.row.account ? { account: store.row.account } : {}),
      ...(plan ? { plan: JSON.parse(serializePlan(plan)) as unknown } : {}),
      ...(store.row.error !== undefined ? { error: store.row.error } : {}),
      exitCode: store.row.exitCode,
    };
  });
}

/** The stores' plans and the table. */
export function printFleetPlans(stores: readonly FleetStore[], report: FleetReport, format: FleetFormat, io: RunIO, options: FleetPrintOptions): void {
  if (format === 'json') io.stdout.write(`${JSON.stringify({ formatVersion: 1, ...report, stores: storesJson(stores) }, null, 2)}\n`);
  else if (format === 'markdown') io.stdout.write(options.plans ? renderFleetPlanMarkdown(fleetPlanStores(stores, options.savedPlans), report, registry.units) : renderFleetMarkdown(report));
  else for (const line of [...(options.plans ? renderStoresText(stores, options.verbose) : []), ...renderFleetText(report)]) writeLine(io.stdout, line);
}

/** A fleet apply's review: every store's plan, removals first, before anything is written. */
export function printFleetReview(stores: readonly FleetStore[], out: RunIO['stdout']): void {
  for (const line of renderStoresText(stores, false)) writeLine(out, line);
  writeLine(out);
}

/** The table alone (apply's results, drift, targets --check). */
export function printFleetTable(report: FleetReport, format: FleetFormat, io: RunIO): void {
  if (format === 'json') io.stdout.write(`${JSON.stringify({ formatVersion: 1, ...report }, null, 2)}\n`);
  else if (format === 'markdown') io.stdout.write(renderFleetMarkdown(report));
  else for (const line of renderFleetText(report)) writeLine(io.stdout, line);
}
