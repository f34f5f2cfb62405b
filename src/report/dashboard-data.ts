// The fleet dashboard's data: the journal's runs and the drift results kept over time, aggregated
// per store into one compact value the page embeds — a day-by-day timeline of applies and drift
// (one character a day), the last apply, the latest drift status, and the changes of the last few
// runs (what a store opens to). Pure: runs and snapshots in, the model out; the page renders it
// lazily, so 1,000 stores × 90 days stay a few hundred kilobytes.
import type { JournalRun } from '../model/journal.js';
import type { FleetRow } from '../model/fleet.js';

/** One `drift --all-targets --json` result and when it was taken. */
export interface DriftSnapshot {
  at: string;
  rows: readonly Pick<FleetRow, 'target' | 'changes' | 'error'>[];
}

export type DriftStatus = 'in-sync' | 'drifted' | 'error' | 'unknown';

/** A run as the page shows it when a store opens: [run id, started, status, applied, failed, changes]. */
export type DashboardRun = [string, string, JournalRun['status'], number, number, DashboardChange[]];
/** [outcome, action, kind, key]. */
export type DashboardChange = [string, string, string, string];

export interface DashboardStore {
  name: string;
  account: string;
  drift: DriftStatus;
  /** Drifted records in the latest result. */
  drifted: number;
  /** When the latest apply started ('' when none). */
  lastApply: string;
  lastStatus: JournalRun['status'] | '';
  /** One character a day, oldest first: applies (`.` none, `a` ok, `f` failed, `i` interrupted). */
  applies: string;
  /** One character a day: drift (`.` no result, `s` in sync, `d` drifted, `e` error). */
  drifts: string;
  /** Runs in the window. */
  runs: number;
  /** The last runs, newest first, with their changes (capped). */
  recent: DashboardRun[];
}

export interface DashboardModel {
  generatedAt: string;
  /** The first day of the window (YYYY-MM-DD) and how many days it spans. */
  from: string;
  days: number;
  stores: DashboardStore[];
}

export interface DashboardOptions {
  /** The last day shown (YYYY-MM-DD). */
  today: string;
  days: number;
  /** Runs kept per store with their changes, and changes kept per run. */
  recentRuns?: number;
  changesPerRun?: number;
  /** Store names known besides those in the data (the config's targets). */
  targets?: readonly string[];
}

const dayMs = 86_400_000;

function dayIndex(at: string, from: number): number {
  return Math.floor((Date.parse(at) - from) / dayMs);
}

/** Worse wins within a day: an interrupted or failed run over a good one; drift or error over in sync. */
const applyRank: Record<string, number> = { '.': 0, a: 1, f: 2, i: 3 };
const driftRank: Record<string, number> = { '.': 0, s: 1, d: 2, e: 3 };

function mark(line: string[], index: number, value: string, rank: Record<string, number>): void {
  if (index < 0 || index >= line.length) return;
  if ((rank[value] ?? 0) > (rank[line[index] ?? '.'] ?? 0)) line[index] = value;
}

function driftOf(row: Pick<FleetRow, 'changes' | 'error'>): DriftStatus {
  return row.error !== undefined ? 'error' : row.changes > 0 ? 'drifted' : 'in-sync';
}

export function buildDashboardModel(runs: readonly JournalRun[], snapshots: readonly DriftSnapshot[], options: DashboardOptions): DashboardModel {
  const last = Date.parse(`${options.today}T00:00:00.000Z`);
  const from = last - (options.days - 1) * dayMs;
  const stores = new Map<string, DashboardStore & { applyLine: string[]; driftLine: string[]; driftAt: string }>();
  const storeOf = (name: string) => {
    let store = stores.get(name);
    if (!store) {
      store = { name, account: '', drift: 'unknown', drifted: 0, lastApply: '', lastStatus: '', applies: '', drifts: '', runs: 0, recent: [], applyLine: Array<string>(options.days).fill('.'), driftLine: Array<string>(options.days).fill('.'), driftAt: '' };
      stores.set(name, store);
    }
    return store;
  };
  for (const name of options.targets ?? []) storeOf(name);
  const ordered = [...runs].sort((a, b) => (a.header.startedAt < b.header.startedAt ? -1 : 1));
  for (const run of ordered) {
    const store = storeOf(run.header.target.name);
    store.account = run.header.account.nome;
    store.lastApply = run.header.startedAt;
    store.lastStatus = run.status;
    const day = dayIndex(run.header.startedAt, from);
    if (day >= 0 && day < options.days) store.runs += 1;
    mark(store.applyLine, day, run.status === 'finished' ? 'a' : run.status === 'failed' ? 'f' : 'i', applyRank);
    const recent: DashboardRun = [
      run.header.run,
      run.header.startedAt,
      run.status,
      run.changes.filter((c) => c.outcome === 'applied').length,
      run.changes.filter((c) => c.outcome === 'failed' || c.outcome === 'not-kept' || c.outcome === 'unknown').length,
      run.changes.slice(0, options.changesPerRun ?? 20).map((c): DashboardChange => [c.outcome, c.action, c.kind, c.key]),
    ];
    store.recent = [recent, ...store.recent].slice(0, options.recentRuns ?? 3);
  }
  for (const snapshot of [...snapshots].sort((a, b) => (a.at < b.at ? -1 : 1))) {
    const day = dayIndex(snapshot.at, from);
    for (const row of snapshot.rows) {
      const store = storeOf(row.target);
      const status = driftOf(row);
      mark(store.driftLine, day, status === 'error' ? 'e' : status === 'drifted' ? 'd' : 's', driftRank);
      if (snapshot.at >= store.driftAt) {
        store.driftAt = snapshot.at;
        store.drift = status;
        store.drifted = row.changes;
      }
    }
  }
  return {
    generatedAt: new Date(last).toISOString().slice(0, 10),
    from: new Date(from).toISOString().slice(0, 10),
    days: options.days,
    stores: [...stores.values()]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map(({ applyLine, driftLine, driftAt: _driftAt, ...store }) => ({ ...store, applies: applyLine.join(''), drifts: driftLine.join('') })),
  };
}
