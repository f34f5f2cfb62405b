// `erpsync report --html`: gathers what the fleet dashboard shows — the journal's runs and the
// drift results kept over time, both from the state store (so with a shared backend every runner's
// runs and drifts appear), plus any `drift --all-targets --json` files given (one a run, dated by a
// YYYY-MM-DD in their name or else by their modification time) — and writes the page. A damaged
// run of the journal is left out and named. Reaches no account; prints nothing.
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { TargetsConfig } from '../api/targets.js';
import { registry } from '../kinds/registry.js';
import { ErpsyncError } from '../model/errors.js';
import { isPlainRecord } from '../model/paths.js';
import { writeFileAtomically } from '../model/write-file-atomically.js';
import type { FleetDriftStore } from '../model/drift.js';
import type { DriftSnapshot } from '../report/dashboard-data.js';
import { buildDashboardModel } from '../report/dashboard-data.js';
import { renderDashboardHtml } from '../report/dashboard-html.js';
import { driftSnapshotOf } from '../state/read-checks.js';
import { stateStoreFor } from '../target/run-state.js';
import { backendChoiceOf } from '../target/resolve-target.js';
import { snapshotRowOf } from './drift-results.js';
import { journalLocationsOf } from './journal-reader.js';
import { describeDamage } from '../report/history-report.js';
import type { RunIO } from '../model/run-io.js';

export interface DashboardRequest {
  out: string;
  driftPaths: readonly string[];
  days: number;
  today: string;
  /** Only this target's runs and drift. */
  target?: string;
  config?: TargetsConfig;
}

async function driftFiles(path: string): Promise<string[]> {
  const info = await stat(path).catch((error: unknown) => {
    throw new ErpsyncError('FILE_UNREADABLE', `cannot read the drift results ${path}`, { cause: error });
  });
  if (!info.isDirectory()) return [path];
  const names = await readdir(path);
  return names.filter((n) => n.endsWith('.json')).sort().map((n) => join(path, n));
}

/**
 * One drift result file, checked as the state store checks a snapshot it reads back; undefined
 * when it is not the JSON of a fleet drift. Since issue 35 that JSON holds every store's report:
 * each is kept as a snapshot keeps it (its drifted records, bounded); older files give counts.
 */
async function readDriftSnapshot(file: string): Promise<DriftSnapshot | undefined> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (!isPlainRecord(value) || value.command !== 'drift' || !Array.isArray(value.rows)) return undefined;
  const dated = /(\d{4}-\d{2}-\d{2})(?:[T_ ](\d{2})[:-]?(\d{2}))?/.exec(basename(file));
  const at = dated ? `${dated[1]}T${dated[2] ?? '00'}:${dated[3] ?? '00'}:00.000Z` : (await stat(file)).mtime.toISOString();
  try {
    const rows: unknown[] = Array.isArray(value.stores) ? value.stores.map((store) => snapshotRowOf(store as FleetDriftStore)) : value.rows;
    return driftSnapshotOf({ at, rows });
  } catch {
    // A store's report of another shape than a drift report: the file is not one erpsync wrote.
    return undefined;
  }
}

/** `damaged`: each damaged run of the journal (left out of the page), with what is wrong in it. */
export async function writeDashboard(request: DashboardRequest, io: Pick<RunIO, 'cwd' | 'env'>): Promise<{ stores: number; bytes: number; skipped: string[]; damaged: string[] }> {
  const state = await stateStoreFor(backendChoiceOf(request.config, io.env), io);
  const { runs, damaged } = await state.journal.list(journalLocationsOf(request.config, io.cwd, request.target), request.target === undefined ? {} : { target: request.target });
  const since = new Date(Date.parse(`${request.today}T00:00:00.000Z`) - request.days * 86_400_000).toISOString();
  const kept = await state.driftResults.list(since);
  const snapshots: DriftSnapshot[] = kept.map((snapshot) => (request.target === undefined ? snapshot : { ...snapshot, rows: snapshot.rows.filter((r) => r.target === request.target) }));
  const skipped: string[] = [];
  for (const path of request.driftPaths) {
    for (const file of await driftFiles(resolve(io.cwd, path))) {
      const snapshot = await readDriftSnapshot(file);
      if (!snapshot) skipped.push(file);
      else snapshots.push(request.target === undefined ? snapshot : { ...snapshot, rows: snapshot.rows.filter((r) => r.target === request.target) });
    }
  }
  const targets = request.target !== undefined ? [request.target] : Object.keys(request.config?.targets ?? {});
  const model = buildDashboardModel(runs, snapshots, { today: request.today, days: request.days, targets, adapters: registry.units });
  const html = renderDashboardHtml(model);
  await writeFileAtomically(resolve(io.cwd, request.out), html);
  return { stores: model.stores.length, bytes: Buffer.byteLength(html), skipped, damaged: damaged.map(describeDamage) };
}
