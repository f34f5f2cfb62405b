// Drift attribution: for each modified, missing or pending record of a drift report, who made the value the
// account holds — erpsync (the last run that touched the record wrote exactly it) or someone in
// the ERP since that run — named by the run. Pure: the report and the journal's runs in, the report
// with `attribution` on its findings out. It reads nothing and decides nothing about drift itself.
import type { DriftFinding, DriftReport } from '../model/drift.js';
import type { JournalChangeLine, JournalRun } from '../model/journal.js';
import { changedTheAccount } from '../model/journal.js';
import { readPath } from '../model/paths.js';
import { deepEqual } from '../model/diff-fields.js';

interface Touch {
  run: JournalRun;
  change: JournalChangeLine;
  /** The record as the run left it; undefined when the run removed it. */
  left?: Record<string, unknown>;
}

/** The last change each run made to each record (by kind and id, and by kind and identity). */
function indexTouches(runs: readonly JournalRun[]): Map<string, Touch> {
  const touches = new Map<string, Touch>();
  for (const run of runs) {
    for (const change of run.changes.filter(changedTheAccount)) {
      if (change.action === 'blocked') continue;
      const read = run.readBack.find((r) => r.change === change.change)?.record.fields;
      const touch: Touch = { run, change, ...(change.action === 'delete' ? {} : { left: read ?? change.written ?? change.before?.fields ?? {} }) };
      if (change.id !== undefined) touches.set(`${change.kind}#${change.id}`, touch);
      touches.set(`${change.kind}:${change.key}`, touch);
    }
  }
  return touches;
}

function attribute(finding: DriftFinding, touches: ReadonlyMap<string, Touch>): DriftFinding['attribution'] {
  const touch = (finding.liveId !== undefined ? touches.get(`${finding.kind}#${finding.liveId}`) : undefined) ?? touches.get(`${finding.kind}:${finding.key}`);
  if (!touch) return { by: 'never-applied' };
  const named = { run: touch.run.header.run, at: touch.run.header.startedAt };
  if (finding.type === 'missing') return { by: touch.left ? 'erp' : 'erpsync', ...named };
  const left = touch.left;
  const asWritten = left !== undefined && finding.fields.every((field) => !field.sensitive && deepEqual(readPath(left, field.path.split('.')), field.account));
  return { by: asWritten ? 'erpsync' : 'erp', ...named };
}

/** The report with every modified, missing or pending finding attributed, from the runs of this target and account (oldest first). */
export function attributeDrift(report: DriftReport, runs: readonly JournalRun[]): DriftReport {
  // Without a journal nothing can be told: the report stays as it was.
  if (runs.length === 0) return report;
  const touches = indexTouches(runs);
  return {
    ...report,
    findings: report.findings.map((finding) => (finding.type !== 'unmanaged' ? { ...finding, attribution: attribute(finding, touches) } : finding)),
  };
}
