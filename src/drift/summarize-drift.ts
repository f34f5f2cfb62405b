// A store's drift as a drift snapshot keeps it (StateStore.driftResults) for the dashboard: the first
// drifted records with their kind, identity, the paths of the fields that differ and who made the
// account's value — never a value, and bounded (model/drift's driftSnapshotLimits), because a
// snapshot holds every store of a fleet and is kept for months. Pure.
import type { DriftFinding, DriftReport, DriftSnapshotRow, DriftedRecord } from '../model/drift.js';
import { driftSnapshotLimits } from '../model/drift.js';

/** Text cut to the snapshot's length, marked where it was cut. */
function bounded(text: string): string {
  return text.length <= driftSnapshotLimits.textLength ? text : `${text.slice(0, driftSnapshotLimits.textLength - 1)}…`;
}

function recordOf(finding: DriftFinding): DriftedRecord {
  const fields = finding.fields.slice(0, driftSnapshotLimits.fields).map((field) => bounded(field.path));
  return {
    type: finding.type,
    kind: finding.kind,
    key: bounded(finding.key),
    fields,
    ...(finding.fields.length > fields.length ? { fieldsLeftOut: finding.fields.length - fields.length } : {}),
    ...(finding.attribution ? { attribution: finding.attribution } : {}),
  };
}

/** The drifted records a snapshot keeps of a store's report, and how many it leaves out. */
export function summarizeDrift(report: DriftReport): Pick<DriftSnapshotRow, 'drifted' | 'driftedLeftOut'> {
  const drifted = report.findings.slice(0, driftSnapshotLimits.records).map(recordOf);
  return { drifted, ...(report.findings.length > drifted.length ? { driftedLeftOut: report.findings.length - drifted.length } : {}) };
}
