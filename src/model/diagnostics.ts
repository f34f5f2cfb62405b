// Problems in user input (manifests, config files). They are collected, never thrown one by one,
// so a user sees every problem of a run at once.

export type Severity = 'error' | 'warning' | 'note';

export interface SourcePosition {
  file: string;
  line: number;
  col: number;
}

export interface Diagnostic {
  severity: Severity;
  /** Stable kebab-case identifier, e.g. `unknown-field`. */
  code: string;
  message: string;
  /** Where the problem is; absent only for problems of a whole run (no file at all). */
  position?: SourcePosition;
  /** JSON path inside the manifest, e.g. `/formasPagamentos/0/tipoPagamento`. */
  path?: string;
  hint?: string;
}

const severityRank: Record<Severity, number> = { error: 0, warning: 1, note: 2 };

export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  const fa = a.position?.file ?? '';
  const fb = b.position?.file ?? '';
  if (fa !== fb) return fa < fb ? -1 : 1;
  const byLine = (a.position?.line ?? 0) - (b.position?.line ?? 0);
  if (byLine !== 0) return byLine;
  const byCol = (a.position?.col ?? 0) - (b.position?.col ?? 0);
  if (byCol !== 0) return byCol;
  const bySeverity = severityRank[a.severity] - severityRank[b.severity];
  if (bySeverity !== 0) return bySeverity;
  return a.code < b.code ? -1 : a.code > b.code ? 1 : 0;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

export function formatPosition(position: SourcePosition | undefined): string {
  return position ? `${position.file}:${position.line}:${position.col}` : '<run>';
}
