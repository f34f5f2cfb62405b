// The drift report as plain text lines for a terminal or a log: the verdict first, then the
// findings grouped by type with their fields (or snippet), the ignore rules and what each kept
// out, and what the report can and cannot tell. Pure: lines out, nothing printed.
import { printable } from '../model/printable.js';
import type { DriftRenderOptions } from './drift-format.js';
import {
  describeAccountOwn,
  describeAttribution,
  describeCoverage,
  describeFindingCounts,
  describePendingBasis,
  describeRecord,
  findingExplanations,
  findingTitles,
  formatFieldChange,
} from './drift-format.js';
import { findingTypes } from '../model/drift.js';
import type { DriftReport, FindingType } from '../model/drift.js';

const symbols: Record<FindingType, string> = { modified: '~', missing: '+', pending: '>', unmanaged: '?' };

export function renderDriftText(report: DriftReport, options: DriftRenderOptions): string[] {
  const counts = describeFindingCounts(report);
  const lines = [
    counts ? `Drift: ${counts} (${describeCoverage(report)}).` : `No drift: the account matches the manifests (${describeCoverage(report)}).`,
  ];
  for (const warning of report.warnings) lines.push('', `WARNING: ${warning}`);
  for (const type of findingTypes) {
    const findings = report.findings.filter((f) => f.type === type);
    if (findings.length === 0) continue;
    lines.push('', `${findingTitles[type]}: ${findingExplanations[type]}.`);
    for (const finding of findings) {
      lines.push(`  ${symbols[type]} ${describeRecord(finding, options)}`);
      if (finding.note) lines.push(`      note: ${finding.note}`);
      const origin = describeAttribution(finding);
      if (origin) lines.push(`      origin: ${origin}`);
      for (const field of finding.fields) lines.push(`      ${formatFieldChange(finding, field, options)}`);
      for (const line of finding.snippet?.trimEnd().split('\n') ?? []) lines.push(`      ${line}`);
    }
  }
  if (report.ignored.length > 0) {
    lines.push('', 'Ignored by policy.ignore:');
    for (const { rule, count } of report.ignored) {
      const where = [rule.kind, rule.key === undefined ? undefined : `"${rule.key}"`, rule.field].filter((part) => part !== undefined).join(' ');
      lines.push(`  ${String(count).padStart(3)}  ${where}: ${rule.reason}${count === 0 ? ' (matched nothing)' : ''}`);
    }
  }
  lines.push('', describePendingBasis(report));
  const own = describeAccountOwn(report);
  if (own) lines.push(own);
  lines.push(`Read the account in ${report.reads} request(s).`);
  // Names typed into the ERP and manifest text: shown escaped, they cannot drive the terminal.
  return lines.map((line) => printable(line));
}
