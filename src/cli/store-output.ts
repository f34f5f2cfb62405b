// What plan, apply and drift print for one store around its result: the account line as soon as
// the account is named, and the diagnostics (on stderr, counted when there are errors).
import type { Diagnostic } from '../model/diagnostics.js';
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

/** A session for runs that only read (plan, drift): it prints the account line on `out`. */
export function bannerSession(out: RunIO['stdout']): StartSession {
  return (opened) => {
    writeLine(out, opened.banner);
    return quietSession(opened);
  };
}
