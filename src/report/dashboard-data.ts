// The fleet dashboard's data: the journal's runs and the drift results kept over time, aggregated
// per store into one compact value the page embeds — a day-by-day timeline of applies and drift
// (one character a day), the last apply, and what a store opens to: the records its latest drift
// found (the fields that differ, who or what changed them, with the run's commit and actor when
// the journal holds it), its owners, and the changes of its last few runs with each run's commit,
// actor and runner. Pure: runs and snapshots in, the model out; the page renders it lazily, so
// 1,000 stores × 90 days stay around a megabyte. Every text is worded here (as `drift` and
// `history` word it) and made printable; the page only places it. Drift results come checked as
// the state store checks what it reads back (state/read-checks: each drifted record bounded, a
// detail that fails its check dropped); an older result without records is told apart from a
// store in sync.
import type { DriftedRecord, DriftSnapshotRow, FindingType } from '../model/drift.js';
import { actorOfRun, commitOfRun } from '../model/journal.js';
import type { JournalRun } from '../model/journal.js';
import type { UnitKind } from '../model/kinds.js';
import { printable } from '../model/printable.js';
import type { DriftRenderOptions } from './drift-format.js';
import { describeAttribution, describeRecord, findingTitles } from './drift-format.js';
import { describeActor, describeFieldChange, describeGit } from './history-report.js';

/** One fleet drift's result (kept by the state store, or a `drift --all-targets --json` file) and when it was taken. */
export interface DriftSnapshot {
  at: string;
  rows: readonly DriftSnapshotRow[];
}

export type DriftStatus = 'in-sync' | 'drifted' | 'error' | 'unknown';

/** A drifted record as a store's panel shows it, worded as the drift reports word it. */
export interface DashboardRecord {
  type: FindingType;
  /** `Modified in the ERP`, `Missing from the ERP` … */
  title: string;
  /** `kind "key"`. */
  record: string;
  /** The paths of the fields that differ (a result keeps no values), and how many more. */
  fields: string[];
  fieldsLeftOut: number;
  /** Who or what made the account's value, with that run's commit and actor when the journal holds it. */
  by?: string;
}

/**
 * A run as the page shows it when a store opens, compact (a fleet holds thousands): [run id,
 * started, status, applied, failed, changes (capped), changes left out (`erpsync history RUN`
 * shows them), the manifests' revision it applied (`history`'s wording), who started it (the CI
 * user and job, or the local user and host), the runner that stored it ('' when unknown)].
 */
export type DashboardRun = [string, string, JournalRun['status'], number, number, DashboardChange[], number, string, string, string];

/** [outcome, action, kind, key, its fields as `path: before → after`]. */
export type DashboardChange = [string, string, string, string, string[]];

export interface DashboardStore {
  name: string;
  account: string;
  drift: DriftStatus;
  /** Drifted records in the latest result. */
  drifted: number;
  /** When the latest drift result was taken ('' when none). */
  driftAt: string;
  /** What stopped the latest drift of this store. */
  driftError?: string;
  /** The latest result's drifted records (capped); null when that result carries none (taken before results kept them). */
  records: DashboardRecord[] | null;
  /** Drifted records of the latest result not in `records`. */
  recordsLeftOut: number;
  /** Who owns the store, as the latest result names them. */
  owners: string[];
  /** When the latest apply started ('' when none). */
  lastApply: string;
  lastStatus: JournalRun['status'] | '';
  /** The latest apply's commit (12 digits) and who ran it, in a word, for the table ('' when unknown). */
  lastCommit: string;
  lastBy: string;
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

export interface DashboardOptions extends DriftRenderOptions {
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
/** What one store's panel may hold: enough to tell the story, small enough for 1,000 stores. */
const limits = { fieldsPerChange: 6, textChars: 500 };

/** Text from the data as the page shows it: printable (no control, bidi or zero-width characters) and of bounded length. */
function shown(text: string): string {
  const safe = printable(text);
  return safe.length > limits.textChars ? `${safe.slice(0, limits.textChars - 1)}…` : safe;
}

function dayIndex(at: string, from: number): number {
  return Math.floor((Date.parse(at) - from) / dayMs);
}

/**
 * Worse wins within a day (and within the days one mark stands for when the page fits a timeline
 * to its width): an interrupted or failed run over a good one; drift or error over in sync.
 */
export const markRank: Readonly<Record<string, number>> = { '.': 0, a: 1, f: 2, i: 3, s: 1, d: 2, e: 3 };

function mark(line: string[], index: number, value: string): void {
  if (index < 0 || index >= line.length) return;
  if ((markRank[value] ?? 0) > (markRank[line[index] ?? '.'] ?? 0)) line[index] = value;
}

function driftOf(row: DriftSnapshotRow): DriftStatus {
  return row.error !== undefined ? 'error' : row.changes > 0 ? 'drifted' : 'in-sync';
}

/** The run an attribution names, in a few words: ` (that run applied abc123, by alice)`. */
function describeRunOf(runs: ReadonlyMap<string, JournalRun>, id: string | undefined): string {
  const run = id === undefined ? undefined : runs.get(id);
  return run ? ` (that run applied ${describeGit(run)}, by ${describeActor(run)})` : '';
}

function dashboardRecord(record: DriftedRecord, runs: ReadonlyMap<string, JournalRun>, options: DriftRenderOptions): DashboardRecord {
  const by = describeAttribution(record);
  return {
    type: record.type,
    title: findingTitles[record.type],
    record: shown(describeRecord({ kind: record.kind as UnitKind, key: record.key }, options)),
    fields: record.fields.map(shown),
    fieldsLeftOut: record.fieldsLeftOut ?? 0,
    ...(by ? { by: shown(`${by}${describeRunOf(runs, record.attribution?.run)}`) } : {}),
  };
}

/** The latest result's records, or null when it carries none (taken before results kept them). */
function dashboardRecords(row: DriftSnapshotRow | undefined, runs: ReadonlyMap<string, JournalRun>, options: DriftRenderOptions): Pick<DashboardStore, 'records' | 'recordsLeftOut'> {
  if (!row?.drifted) return { records: null, recordsLeftOut: 0 };
  return { records: row.drifted.map((record) => dashboardRecord(record, runs, options)), recordsLeftOut: row.driftedLeftOut ?? 0 };
}

function dashboardRun(run: JournalRun, changesPerRun: number): DashboardRun {
  const kept = run.changes.slice(0, changesPerRun);
  return [
    shown(run.header.run),
    shown(run.header.startedAt),
    run.status,
    run.changes.filter((c) => c.outcome === 'applied').length,
    run.changes.filter((c) => c.outcome === 'failed' || c.outcome === 'not-kept' || c.outcome === 'unknown').length,
    kept.map((c): DashboardChange => [shown(c.outcome), shown(c.action), shown(c.kind), shown(c.key), c.fields.slice(0, limits.fieldsPerChange).map((f) => shown(describeFieldChange(f)))]),
    run.changes.length - kept.length,
    shown(describeGit(run)),
    shown(describeActor(run)),
    run.runner === undefined ? '' : shown(run.runner),
  ];
}

type StoreDraft = DashboardStore & { applyLine: string[]; driftLine: string[]; latestRow?: DriftSnapshotRow };

export function buildDashboardModel(runs: readonly JournalRun[], snapshots: readonly DriftSnapshot[], options: DashboardOptions): DashboardModel {
  const last = Date.parse(`${options.today}T00:00:00.000Z`);
  const from = last - (options.days - 1) * dayMs;
  const stores = new Map<string, StoreDraft>();
  const storeOf = (name: string) => {
    let store = stores.get(name);
    if (!store) {
      store = { name, account: '', drift: 'unknown', drifted: 0, driftAt: '', records: null, recordsLeftOut: 0, owners: [], lastApply: '', lastStatus: '', lastCommit: '', lastBy: '', applies: '', drifts: '', runs: 0, recent: [], applyLine: Array<string>(options.days).fill('.'), driftLine: Array<string>(options.days).fill('.') };
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
    store.lastCommit = shown(commitOfRun(run.header)?.revision.slice(0, 12) ?? '');
    store.lastBy = shown(actorOfRun(run.header) ?? '');
    const day = dayIndex(run.header.startedAt, from);
    if (day >= 0 && day < options.days) store.runs += 1;
    mark(store.applyLine, day, run.status === 'finished' ? 'a' : run.status === 'failed' ? 'f' : 'i');
    store.recent = [dashboardRun(run, options.changesPerRun ?? 20), ...store.recent].slice(0, options.recentRuns ?? 3);
  }
  for (const snapshot of [...snapshots].sort((a, b) => (a.at < b.at ? -1 : 1))) {
    const day = dayIndex(snapshot.at, from);
    for (const row of snapshot.rows) {
      const store = storeOf(row.target);
      const status = driftOf(row);
      mark(store.driftLine, day, status === 'error' ? 'e' : status === 'drifted' ? 'd' : 's');
      if (snapshot.at >= store.driftAt) {
        store.driftAt = snapshot.at;
        store.drift = status;
        store.drifted = row.changes;
        store.latestRow = row;
      }
    }
  }
  const runsById = new Map(runs.map((run) => [run.header.run, run]));
  return {
    generatedAt: new Date(last).toISOString().slice(0, 10),
    from: new Date(from).toISOString().slice(0, 10),
    days: options.days,
    stores: [...stores.values()]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map(({ applyLine, driftLine, latestRow, ...store }) => ({
        ...store,
        name: printable(store.name),
        account: shown(store.account),
        driftAt: shown(store.driftAt),
        ...(latestRow?.error === undefined ? {} : { driftError: shown(latestRow.error) }),
        ...dashboardRecords(latestRow, runsById, options),
        owners: (latestRow?.owners ?? []).map(shown),
        applies: applyLine.join(''),
        drifts: driftLine.join(''),
      })),
  };
}
