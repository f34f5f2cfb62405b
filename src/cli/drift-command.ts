// `erpsync drift [paths…]`: compares the account with the manifests and reports what drifted, in
// text, JSON, markdown or JUnit. Changes nothing in the account. Exit 0 clean, 2 drift, 1 error (a
// usage mistake too: 2 would read as drift in a pipeline). --adopt writes hand edits back into
// files that belong to the target alone; across a fleet each store adopts into its own overlay.
import path from 'node:path';
import { registry } from '../kinds/registry.js';
import type { DriftReport } from '../model/drift.js';
import { ErpsyncError } from '../model/errors.js';
import { renderDiagnosticsText } from '../report/diagnostics-report.js';
import { renderDriftJson } from '../report/drift-json.js';
import { renderDriftJunit } from '../report/drift-junit.js';
import { defaultMarkdownLimit, renderDriftMarkdown } from '../report/drift-markdown.js';
import { renderDriftText } from '../report/drift-text.js';
import type { AdoptOutcome } from '../workflows/adopt-workflow.js';
import { findFileReaders } from '../workflows/file-readers.js';
import { runFleet, selectFleet } from '../workflows/fleet-workflow.js';
import { stateStoreFor } from '../target/run-state.js';
import { backendChoiceOf } from '../target/resolve-target.js';
import { loadTargetsConfig, resolveRunTarget } from '../target/open-target.js';
import type { RunIO } from '../model/run-io.js';
import { maskOf, writeLine } from '../model/run-io.js';
import { makeDirectory, writeFileAtomically } from '../model/write-file-atomically.js';
import { exitCodeOfStore } from '../workflows/store-outcome.js';
import type { StoreSettings } from '../workflows/store-settings.js';
import { quietSession, runStore } from '../workflows/store-workflow.js';
import { renderHelp } from './commands.js';
import { driftFlags, parseCommandFlags } from './flags.js';
import { fleetProgress, printFleetTable } from './fleet-output.js';
import type { ParsedFlags } from './flags.js';
import { isFleetRun, readStoreSettings } from './run-settings.js';
import { readTargetRequest } from './target-request.js';
import { bannerSession, printDiagnostics } from './store-output.js';

type DriftFormat = 'text' | 'json' | 'markdown' | 'junit';
type DriftCommandFlags = ParsedFlags<(typeof driftFlags)[number]>;

function chooseFormat(flags: DriftCommandFlags): DriftFormat {
  const format = flags['drift-format'];
  if (flags.json && format !== undefined && format !== 'json') throw new ErpsyncError('USAGE', `--json and --format ${format} ask for two formats`);
  return (flags.json ? 'json' : (format ?? 'text')) as DriftFormat;
}

function render(report: DriftReport, format: DriftFormat, limit: number, fullReport: string | undefined): string {
  switch (format) {
    case 'json':
      return renderDriftJson(report);
    case 'junit':
      return renderDriftJunit(report, { adapters: registry.units });
    case 'markdown':
      return renderDriftMarkdown(report, { adapters: registry.units, maxChars: limit, ...(fullReport ? { fullReport } : {}) });
    case 'text':
      return `${renderDriftText(report, { adapters: registry.units }).join('\n')}\n`;
  }
}

export async function runDriftCommand(args: string[], io: RunIO): Promise<number> {
  const { flags, positionals } = parseCommandFlags('drift', driftFlags, args, io.env);
  if (flags.help) {
    writeLine(io.stdout, renderHelp('drift'));
    return 0;
  }
  const format = chooseFormat(flags);
  const settings = readStoreSettings(flags, io.env);
  if (isFleetRun(flags)) return driftFleet(flags, positionals, settings, format, io);

  const request = readTargetRequest(flags);
  const target = await resolveRunTarget(request, io);
  const readers = settings.drift.adopt ? await findFileReaders(await loadTargetsConfig(request, io), { targets: [target.name], paths: positionals }, io) : undefined;
  // Reports are often piped into a file or a summary: the account line stays out of them.
  const out = format === 'text' ? io.stdout : io.stderr;
  const result = await runStore({ command: 'drift', target, source: { type: 'manifests', paths: positionals }, settings, ...(readers ? { readers } : {}) }, io, bannerSession(out));
  printDiagnostics(result.diagnostics, io);
  if (result.status !== 'drift') return exitCodeOfStore(result, settings);
  if (flags.out) {
    const file = path.resolve(io.cwd, flags.out);
    await makeDirectory(path.dirname(file), { within: io.cwd });
    await writeFileAtomically(file, maskOf(io)(render(result.report, format, Number.POSITIVE_INFINITY, undefined)), { within: io.cwd });
  }
  io.stdout.write(render(result.report, format, flags['markdown-limit'] ?? defaultMarkdownLimit, flags['report-url'] ?? flags.out));
  if (result.adoption) {
    writeLine(out);
    printAdoption(result.adoption, out);
    // A file that could not be written fails the run, after everything else was said.
    if (result.adoption.failed) throw result.adoption.failed;
  }
  return exitCodeOfStore(result, settings);
}

async function driftFleet(flags: DriftCommandFlags, paths: readonly string[], settings: StoreSettings, format: DriftFormat, io: RunIO): Promise<number> {
  if (format === 'junit' || flags.out || settings.drift.baseline) throw new ErpsyncError('USAGE', 'a fleet drift reports one table (text, --json or --format markdown); run one --target for JUnit, --out or --baseline');
  const fleet = await selectFleet({ ...readTargetRequest(flags), paths }, io);
  const readers = settings.drift.adopt ? await findFileReaders(fleet.config, { targets: fleet.names, paths }, io) : undefined;
  const { stores, report } = await runFleet(
    {
      command: 'drift',
      names: fleet.names,
      concurrency: flags.parallel,
      settings,
      resolve: fleet.resolve,
      sourceOf: async () => ({ type: 'manifests', paths }),
      ...(readers ? { readers } : {}),
      startSession: () => quietSession,
      onStore: fleetProgress('drift', format, io),
    },
    io,
  );
  const out = format === 'text' ? io.stdout : io.stderr;
  for (const store of stores) {
    const adoption = store.result?.status === 'drift' ? store.result.adoption : undefined;
    if (!adoption) continue;
    writeLine(out, `\n== ${store.name} ==`);
    printAdoption(adoption, out);
  }
  printFleetTable(report, format, io);
  // Kept over time for the dashboard, in the backend every runner shares (or .erpsync/drift-results).
  const state = await stateStoreFor(backendChoiceOf(fleet.config, io.env), io);
  await state.driftResults.record({ at: new Date().toISOString(), rows: report.rows.map((row) => ({ target: row.target, changes: row.changes, ...(row.error === undefined ? {} : { error: row.error }) })) });
  return report.exitCode;
}

/** What --adopt took in, what it left and why, and what the changed files now give every target that reads them. */
function printAdoption(adoption: AdoptOutcome, out: RunIO['stdout']): void {
  for (const file of adoption.adopted) writeLine(out, `Adopted into ${file.file}: ${file.subjects.join('; ')}`);
  for (const refusal of adoption.shared) {
    writeLine(out, `Not adopted into ${refusal.file}: the file is shared with ${refusal.readers.join(', ')}; a hand edit of one store written there would change them all.`);
    writeLine(out, `  put the value in this target's own overlay (a later path in its \`manifests\`), or edit ${refusal.file} by hand if every store should have it: ${refusal.subjects.join('; ')}`);
  }
  if (adoption.adopted.length === 0 && adoption.shared.length === 0 && adoption.notAdopted.length === 0) writeLine(out, 'Nothing to adopt: no field was modified in the ERP.');
  for (const item of adoption.notAdopted) writeLine(out, `Not adopted: ${item.subject}: ${item.why}`);
  for (const check of adoption.revalidated) {
    const lines = renderDiagnosticsText(check.diagnostics.filter((d) => d.severity === 'error'));
    writeLine(out, lines.length === 0 ? `Checked target ${check.target} again: its manifests are valid.` : `Checked target ${check.target} again: the adopted files leave it invalid:`);
    for (const line of lines) writeLine(out, `  ${line}`);
  }
}
