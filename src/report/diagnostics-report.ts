// Renders diagnostics for people (grouped by file, one `file:line:col` line each) and machines.
import type { Diagnostic, Severity } from '../model/diagnostics.js';
import { formatPosition } from '../model/diagnostics.js';
import { printable } from '../model/printable.js';

export interface DiagnosticCounts {
  errors: number;
  warnings: number;
  notes: number;
}

export function countDiagnostics(diagnostics: readonly Diagnostic[]): DiagnosticCounts {
  const count = (severity: Severity) => diagnostics.filter((d) => d.severity === severity).length;
  return { errors: count('error'), warnings: count('warning'), notes: count('note') };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function summarizeCounts(counts: DiagnosticCounts): string {
  return [plural(counts.errors, 'error'), plural(counts.warnings, 'warning'), plural(counts.notes, 'note')].join(', ');
}

/** Lines for a terminal or a log: files in order, a blank line between files. */
export function renderDiagnosticsText(diagnostics: readonly Diagnostic[]): string[] {
  const lines: string[] = [];
  let currentFile: string | undefined;
  for (const d of diagnostics) {
    const file = d.position?.file ?? '';
    if (currentFile !== undefined && file !== currentFile) lines.push('');
    currentFile = file;
    // Messages quote the input, which may hold line breaks or terminal escapes: one diagnostic, one line.
    lines.push(printable(`${formatPosition(d.position)}: ${d.severity}: ${d.code}: ${d.message}`));
    if (d.hint) lines.push(`    hint: ${printable(d.hint)}`);
  }
  return lines;
}

export function diagnosticToJson(d: Diagnostic): Record<string, unknown> {
  return {
    severity: d.severity,
    code: d.code,
    message: d.message,
    file: d.position?.file ?? null,
    line: d.position?.line ?? null,
    col: d.position?.col ?? null,
    path: d.path ?? null,
    ...(d.hint ? { hint: d.hint } : {}),
  };
}
