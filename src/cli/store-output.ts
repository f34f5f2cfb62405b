// What plan, apply and drift print for one store around its result: the account line as soon as
// the account is named, the diagnostics (on stderr, counted when there are errors), and after an
// apply the blocked changes it could not make.
import type { Diagnostic } from '../model/diagnostics.js';
import type { Plan } from '../model/plan.js';
import { renderBlockedChanges } from '../report/apply-report.js';
import { hasErrors } from '../model/diagnostics.js';
import { countDiagnostics, renderDiagnosticsText, summarizeCounts } from '../report/diagnostics-report.js';
import type { RunIO } from '../model/run-io.js';
import { writeLine } from '../model/run-io.js';
import type { StartSession } from '../workflows/store-workflow.js';
import { quietSession } from '../workflows/store-workflow.js';

export function printDiagnostics(diagnostics: readonly Diagnostic[], io: RunIO): void {
  const lines = renderDiagnosticsText(diagnostics);
  for (const line of lines) writeLine(io.stderr, line);
  if (lines.length > 0 && hasErrors(diagnostics)) writeLine(io.stderr, `\n${summarizeCounts(countDiagnostics(diagnostics))}`);
}

/** After an apply: each blocked change of the plan, the reason it exits 1 (on stderr). */
export function printBlockedChanges(plan: Pick<Plan, 'changes'>, io: RunIO, store?: string): void {
  for (const line of renderBlockedChanges(plan, store)) writeLine(io.stderr, line);
}

/** A session for runs that only read (plan, drift): it prints the account line on `out`. */
export function bannerSession(out: RunIO['stdout']): StartSession {
  return (opened) => {
    writeLine(out, opened.banner);
    return quietSession(opened);
  };
}
