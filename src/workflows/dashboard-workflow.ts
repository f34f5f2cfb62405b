// `erpsync report --html`: gathers what the fleet dashboard shows — the journal's runs (the
// config's journal folders) and the drift results kept over time (`drift --all-targets --json`
// files, one a run, dated by a YYYY-MM-DD in their name or else by their modification time) — and
// writes the page. A damaged run of the journal is left out and named. Reads files only; reaches
// no account; prints nothing.
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { TargetsConfig } from '../api/targets.js';
import { ErpsyncError } from '../model/errors.js';
import { isPlainRecord } from '../model/paths.js';
import { writeFileAtomically } from '../model/write-file-atomically.js';
import type { DriftSnapshot } from '../report/dashboard-data.js';
import { buildDashboardModel } from '../report/dashboard-data.js';
import { renderDashboardHtml } from '../report/dashboard-html.js';
import { stateStoreFor } from '../target/run-state.js';
import { backendChoiceOf } from '../target/resolve-target.js';
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

/** One drift result file; undefined when it is not the JSON of a fleet drift. */
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
  const rows = value.rows.filter((r): r is DriftSnapshot['rows'][number] => isPlainRecord(r) && typeof r.target === 'string' && typeof r.changes === 'number');
  return { at, rows };
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
  const model = buildDashboardModel(runs, snapshots, { today: request.today, days: request.days, targets });
  const html = renderDashboardHtml(model);
  await writeFileAtomically(resolve(io.cwd, request.out), html);
  return { stores: model.stores.length, bytes: Buffer.byteLength(html), skipped, damaged: damaged.map(describeDamage) };
}
