// `erpsync drift [paths…]`: compares the account with the manifests and reports what drifted, in
// text, JSON, markdown or JUnit. Changes nothing in the account. Exit 0 clean, 2 drift, 1 error (a
// usage mistake too: 2 would read as drift in a pipeline). --adopt writes hand edits back into
// files that belong to the target alone; across a fleet each store adopts into its own overlay.
import path from 'node:path';
import { registry } from '../kinds/registry.js';
import type { DriftReport, FleetDriftStore } from '../model/drift.js';
import type { FleetReport } from '../model/fleet.js';
import { ErpsyncError } from '../model/errors.js';
import { renderDiagnosticsText } from '../report/diagnostics-report.js';
import { driftFileExtensions, renderFleetDriftJson, renderFleetDriftMarkdown, renderFleetDriftText, renderStoreDriftFile } from '../report/drift-fleet.js';
import type { DriftFormat } from '../report/drift-fleet.js';
import { renderDriftJson } from '../report/drift-json.js';
import { renderDriftJunit, renderFleetDriftJunit } from '../report/drift-junit.js';
import { buildDriftNotifications } from '../report/drift-notify.js';
import { defaultMarkdownLimit, renderDriftMarkdown } from '../report/drift-markdown.js';
import { renderDriftText } from '../report/drift-text.js';
import type { AdoptOutcome } from '../workflows/adopt-workflow.js';
import { findFileReaders } from '../workflows/file-readers.js';
import { fleetDriftStores, recordDriftSnapshot } from '../workflows/drift-results.js';
import { runFleet, selectFleet } from '../workflows/fleet-workflow.js';
import type { FleetStore } from '../workflows/fleet-workflow.js';
import { loadTargetsConfig, resolveRunTarget } from '../target/open-target.js';
import type { RunIO } from '../model/run-io.js';
import { maskOf, writeLine } from '../model/run-io.js';
import { makeDirectory, writeFileAtomically } from '../model/write-file-atomically.js';
import { exitCodeOfStore, rowOfFailure, rowOfStore } from '../workflows/store-outcome.js';
import type { StoreSettings } from '../workflows/store-settings.js';
import { quietSession, runStore } from '../workflows/store-workflow.js';
import type { StoreResult } from '../workflows/store-workflow.js';
import type { TargetsConfig } from '../api/index.js';
import type { TargetRequest } from '../target/resolve-target.js';
import { renderHelp } from './commands.js';
import { driftFlags, parseCommandFlags } from './flags.js';
import { fleetProgress, printFleetTable } from './fleet-output.js';
import type { ParsedFlags } from './flags.js';
import { isFleetRun, readStoreSettings } from './run-settings.js';
import { readTargetRequest } from './target-request.js';
import { bannerSession, printDiagnostics } from './store-output.js';

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
  // A targeted report is in sync outside its selection by construction: its `close` would close an issue for drift it never looked at.
  if (flags.notify && settings.plan.selection) throw new ErpsyncError('USAGE', '--notify reports whole stores: it does not go with --only or --exclude (a partial report would close the issue of a store that drifted elsewhere)');
  if (isFleetRun(flags)) return driftFleet(flags, positionals, settings, format, io);
  return driftOne(flags, positionals, settings, format, io);
}

async function driftOne(flags: DriftCommandFlags, paths: readonly string[], settings: StoreSettings, format: DriftFormat, io: RunIO): Promise<number> {
  const request = readTargetRequest(flags);
  const config = await loadTargetsConfig(request, io);
  // Reports are often piped into a file or a summary: the account line stays out of them.
  const out = format === 'text' ? io.stdout : io.stderr;
  const at = new Date().toISOString();
  const result = await driftTarget(request, config, paths, settings, io, out).catch(async (error: unknown) => {
    // A store that could not be read gets its `error` notification: nothing is closed on a failed read.
    const name = request.target ?? 'default';
    if (flags.notify) await writeNotifications(flags, format, fleetDriftStores([{ name, row: rowOfFailure(name, error, 0) }], config), at, io, out);
    throw error;
  });
  printDiagnostics(result.diagnostics, io);
  if (result.status === 'drift') {
    if (flags.out) await writeReport(flags.out, render(result.report, format, Number.POSITIVE_INFINITY, undefined), io);
    io.stdout.write(render(result.report, format, flags['markdown-limit'] ?? defaultMarkdownLimit, flags['report-url'] ?? flags.out));
  }
  const name = result.target.name;
  if (flags.notify) await writeNotifications(flags, format, fleetDriftStores([{ name, row: rowOfStore(name, result, settings, 0), result }], config), at, io, out);
  if (result.status === 'drift' && result.adoption) {
    writeLine(out);
    printAdoption(result.adoption, out);
    // A file that could not be written fails the run, after everything else was said.
    if (result.adoption.failed) throw result.adoption.failed;
  }
  return exitCodeOfStore(result, settings);
}

async function driftTarget(request: TargetRequest, config: TargetsConfig | undefined, paths: readonly string[], settings: StoreSettings, io: RunIO, out: RunIO['stdout']): Promise<StoreResult> {
  const target = await resolveRunTarget(request, io, config);
  const readers = settings.drift.adopt ? await findFileReaders(config, { targets: [target.name], paths }, io) : undefined;
  return runStore({ command: 'drift', target, source: { type: 'manifests', paths }, settings, ...(readers ? { readers } : {}) }, io, bannerSession(out));
}

/** A report file (`--out`), masked as the terminal output is; no folder on its way may be a link. */
async function writeReport(given: string, text: string, io: RunIO): Promise<void> {
  const file = path.resolve(io.cwd, given);
  await makeDirectory(path.dirname(file), { within: io.cwd });
  await writeFileAtomically(file, maskOf(io)(text), { within: io.cwd });
}

/** A fleet's `--out DIR`: each store's whole report, as that store alone would write it, in `DIR/<target>.<extension>`. */
function storeFileOf(dir: string, target: string, format: DriftFormat): string {
  return path.join(dir, `${target}.${driftFileExtensions[format]}`);
}

/** `--notify FILE`: one notification per store; a cut body names the store's full report (--report-url, else its --out file). */
async function writeNotifications(flags: DriftCommandFlags, format: DriftFormat, stores: readonly FleetDriftStore[], at: string, io: RunIO, out: RunIO['stdout']): Promise<void> {
  const fullReportOf = (target: string): string | undefined => flags['report-url'] ?? (flags.out === undefined ? undefined : isFleetRun(flags) ? storeFileOf(flags.out, target, format) : flags.out);
  const payload = buildDriftNotifications(stores, { adapters: registry.units, at, fullReportOf });
  await writeReport(flags.notify ?? '', `${JSON.stringify(payload, null, 2)}\n`, io);
  const actions = payload.notifications.map((n) => n.action);
  const count = (action: string) => actions.filter((a) => a === action).length;
  writeLine(out, `Wrote ${actions.length} notification(s) to ${flags.notify ?? ''}: ${count('open')} open, ${count('close')} close, ${count('error')} error.`);
}

async function driftFleet(flags: DriftCommandFlags, paths: readonly string[], settings: StoreSettings, format: DriftFormat, io: RunIO): Promise<number> {
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
  const at = new Date().toISOString();
  const drifts = fleetDriftStores(stores, fleet.config);
  const out = format === 'text' ? io.stdout : io.stderr;
  const options = { adapters: registry.units };
  if (flags.out) for (const store of drifts) await writeReport(storeFileOf(flags.out, store.target, format), renderStoreDriftFile(store, format, options), io);
  printFleetDrift(stores, drifts, report, format, flags, io);
  for (const store of stores) {
    const adoption = store.result?.status === 'drift' ? store.result.adoption : undefined;
    if (!adoption) continue;
    writeLine(out, `\n== ${store.name} ==`);
    printAdoption(adoption, out);
  }
  if (format === 'text') printFleetTable(report, 'text', io);
  if (flags.notify) await writeNotifications(flags, format, drifts, at, io, out);
  await recordDriftSnapshot(drifts, fleet.config, io, at);
  return report.exitCode;
}

/** Every store's report in the chosen format with the fleet's table: text after the reports (printed last), Markdown before them. */
function printFleetDrift(stores: readonly FleetStore[], drifts: readonly FleetDriftStore[], report: FleetReport, format: DriftFormat, flags: DriftCommandFlags, io: RunIO): void {
  const options = { adapters: registry.units };
  switch (format) {
    case 'json':
      io.stdout.write(renderFleetDriftJson(drifts, report));
      return;
    case 'junit':
      io.stdout.write(renderFleetDriftJunit(drifts, options));
      return;
    case 'markdown': {
      const fullReport = flags['report-url'] ?? (flags.out === undefined ? undefined : `one file per store in ${flags.out}`);
      io.stdout.write(renderFleetDriftMarkdown(drifts, report, { ...options, maxChars: flags['markdown-limit'] ?? defaultMarkdownLimit, ...(fullReport ? { fullReport } : {}) }));
      return;
    }
    case 'text': {
      // A store that failed before naming its account shows only its error (renderFleetDriftText).
      const heads = new Map(stores.map((store) => [store.name, [...(store.result?.opened ? [store.result.opened.banner] : []), ...renderDiagnosticsText(store.result?.diagnostics ?? [])]]));
      for (const line of renderFleetDriftText(drifts, options, (target) => heads.get(target) ?? [])) writeLine(io.stdout, line);
    }
  }
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
