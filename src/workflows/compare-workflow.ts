// `erpsync compare`: two stores, or a folder of manifests and a store, record by record and field by
// field. The left side becomes manifests (a store is read and exported in memory, its secrets with
// their own values) and the right store is checked against them with drift's comparison — which is
// plan's: identity matching, one comparator per field type, the account's own records as plan
// treats them. Nothing is written anywhere; the CLI renders the report.
import type { ResolvedTarget } from '../api/index.js';
import { findDrift } from '../drift/find-drift.js';
import { registry } from '../kinds/registry.js';
import type { CompareRecord, CompareReport, CompareSideInfo, CompareStatus } from '../model/compare.js';
import type { DesiredState } from '../model/desired.js';
import type { Diagnostic } from '../model/diagnostics.js';
import { hasErrors } from '../model/diagnostics.js';
import type { DriftFinding } from '../model/drift.js';
import { openResolvedTarget } from '../target/open-target.js';
import { loadDesired, planTargetOf, readAndFindDrift, readToday } from './read-and-plan.js';
import type { RunIO } from '../model/run-io.js';
import { readStoreAsManifests } from './store-as-manifests.js';

export type CompareLeft = { type: 'target'; target: ResolvedTarget } | { type: 'manifests'; paths: readonly string[] };

export interface CompareRun {
  left: CompareLeft;
  right: ResolvedTarget;
  debug: boolean;
  /** Called with each account's first line as it is named. */
  onBanner(line: string): void;
}

export interface CompareOutcome {
  /** Absent when a side's manifests have errors (the diagnostics say which). */
  report?: CompareReport;
  diagnostics: Diagnostic[];
}

export async function compareStores(run: CompareRun, io: RunIO): Promise<CompareOutcome> {
  const left = await readLeft(run, io);
  if (!left.desired) return { diagnostics: left.diagnostics };
  const opened = await openResolvedTarget(run.right, { debug: run.debug }, io);
  try {
    run.onBanner(opened.banner);
    const desired = left.desired;
    const { result: found } = await readAndFindDrift(opened, desired, (live) => findDrift({ desired, live, adapters: registry.units, target: planTargetOf(opened), includeBuiltin: false, today: readToday(io.env) }));
    const diagnostics = [...left.diagnostics, ...found.diagnostics.filter((d) => d.severity !== 'note')];
    if (hasErrors(diagnostics)) return { diagnostics };
    const records = found.report.findings.map(toCompareRecord);
    const count = (status: CompareStatus) => records.filter((r) => r.status === status).length;
    const report: CompareReport = {
      formatVersion: 1,
      left: left.info,
      right: { target: opened.target.name, account: opened.account },
      summary: { compared: found.report.summary.managed + found.report.summary.unmanaged, same: found.report.summary.inSync, differs: count('differs'), onlyLeft: count('only-left'), onlyRight: count('only-right') },
      records,
    };
    return { report, diagnostics };
  } finally {
    await opened.close();
  }
}

async function readLeft(run: CompareRun, io: RunIO): Promise<{ desired?: DesiredState; diagnostics: Diagnostic[]; info: CompareSideInfo }> {
  if (run.left.type === 'manifests') {
    const loaded = await loadDesired(run.left.paths, io);
    return { ...loaded, info: { manifests: loaded.files } };
  }
  const opened = await openResolvedTarget(run.left.target, { debug: run.debug }, io);
  try {
    run.onBanner(opened.banner);
    const read = await readStoreAsManifests(opened, { env: io.env });
    return { ...read, info: { target: opened.target.name, account: opened.account } };
  } finally {
    await opened.close();
  }
}

/** Drift's findings in the words of a comparison: the manifests are the left side, the account the right. */
function toCompareRecord(finding: DriftFinding): CompareRecord {
  const status: CompareStatus =
    finding.type === 'missing' ? 'only-left' : finding.type === 'unmanaged' || (finding.type === 'pending' && finding.actions.some((a) => a === 'delete' || a === 'retire')) ? 'only-right' : 'differs';
  return {
    kind: finding.kind,
    key: finding.key,
    status,
    fields: finding.fields.map((f) => (f.sensitive ? { path: f.path, left: undefined, right: undefined, sensitive: true } : { path: f.path, left: f.manifest, right: f.account })),
  };
}
