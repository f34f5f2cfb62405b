// `erpsync drift [paths…]`: compares the account with the manifests and reports what drifted, in
// text, JSON, markdown or JUnit. Changes nothing. Exit 0 clean, 2 drift, 1 error (a usage
// mistake too: 2 would read as drift in a pipeline).
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { findDrift } from '../drift/find-drift.js';
import { loadBaseline } from '../drift/load-baseline.js';
import type { Baseline } from '../drift/load-baseline.js';
import { registry } from '../kinds/registry.js';
import { hasErrors } from '../model/diagnostics.js';
import { ErpsyncError } from '../model/errors.js';
import { writeFileAtomically } from '../model/write-file-atomically.js';
import { renderDriftJson } from '../report/drift-json.js';
import { renderDriftJunit } from '../report/drift-junit.js';
import { defaultMarkdownLimit, renderDriftMarkdown } from '../report/drift-markdown.js';
import { renderDriftText } from '../report/drift-text.js';
import type { CliIO } from './io.js';
import { maskOf, writeLine } from './io.js';
import { parseCommandArgs } from './parse-command-args.js';
import { loadDesired, parseCount, planTargetOf, printDiagnostics, readAccountForDrift, readSelection, readToday, selectionFlagHelp, selectionFlagOptions } from './plan-workflow.js';
import { driftStore, isFleetRun, runFleet } from './fleet-workflow.js';
import { fleetProgress, writeFleetReport } from './fleet-output.js';
import { openResolvedTarget, resolveCliTarget, targetFlagHelp, targetFlagOptions } from './target.js';
import { hasDrift } from '../model/drift.js';
import { adoptDrift } from './adopt-workflow.js';
import type { DriftReport } from '../model/drift.js';

const help = [
  'usage: erpsync drift [paths…] [options]',
  '',
  'Reads the manifests and the account and reports drift: records modified in the ERP, missing',
  'from it, unmanaged (in a managed kind, named by no manifest; each with a snippet to paste),',
  'and changes pending from git. policy.ignore rules are honoured and counted until their `until`',
  'day (ERPSYNC_TODAY fixes the day); an expired rule is named. Nothing is changed.',
  '',
  'options:',
  '  --format FORMAT        text (default), json, markdown or junit',
  '  --json                 the same as --format json',
  '  --out FILE             also write the full report (never cut) to FILE',
  '  --baseline REF         git revision of the manifests last applied (ERPSYNC_BASELINE): tells',
  '                         changes pending from git apart from changes made in the ERP',
  '  --include-builtin      list the account\'s own records (built-in, fixa, native, untouched',
  '                         defaults) as unmanaged too',
  `  --markdown-limit N     most characters of markdown output (default ${defaultMarkdownLimit})`,
  '  --report-url URL       where the full report is, named when markdown is cut (ERPSYNC_REPORT_URL)',
  '  --adopt                write the account\'s values of modified fields into the manifest files, in',
  '                         place (comments, order and ${VAR} references kept; secrets and fields fed',
  '                         by variables are reported as not adoptable); exit 0 when nothing is left',
  ...selectionFlagHelp,
  ...targetFlagHelp,
  '',
  'exit codes: 0 no drift, 2 drift, 1 error',
].join('\n');

type DriftFormat = 'text' | 'json' | 'markdown' | 'junit';
const formats: readonly DriftFormat[] = ['text', 'json', 'markdown', 'junit'];

function chooseFormat(format: string | undefined, json: boolean | undefined): DriftFormat {
  if (json && format !== undefined && format !== 'json') throw new ErpsyncError('USAGE', `--json and --format ${format} ask for two formats`);
  const chosen = json ? 'json' : (format ?? 'text');
  if (!formats.includes(chosen as DriftFormat)) throw new ErpsyncError('USAGE', `unknown format \`${chosen}\`; use ${formats.join(', ')}`);
  return chosen as DriftFormat;
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

export async function runDriftCommand(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs('drift', args, {
    format: { type: 'string' },
    json: { type: 'boolean' },
    out: { type: 'string' },
    baseline: { type: 'string' },
    'include-builtin': { type: 'boolean' },
    'markdown-limit': { type: 'string' },
    'report-url': { type: 'string' },
    adopt: { type: 'boolean' },
    ...selectionFlagOptions,
    help: { type: 'boolean', short: 'h' },
    ...targetFlagOptions,
  });
  const flags = parsed.values;
  if (flags.help) {
    writeLine(io.stdout, help);
    return 0;
  }
  const format = chooseFormat(flags.format, flags.json);
  const limit = parseCount(flags['markdown-limit'], '--markdown-limit') ?? defaultMarkdownLimit;
  const baselineRef = flags.baseline ?? (io.env.ERPSYNC_BASELINE || undefined);
  const reportUrl = flags['report-url'] ?? (io.env.ERPSYNC_REPORT_URL || undefined);
  const selection = readSelection(flags);

  if (isFleetRun(flags)) {
    if (selection || flags.adopt) throw new ErpsyncError('USAGE', '--only, --exclude and --adopt work on one store: run drift on one target at a time');
    if (format === 'junit' || flags.out || baselineRef) throw new ErpsyncError('USAGE', 'a fleet drift reports one table (text, --json or --format markdown); run one --target for JUnit, --out or --baseline');
    const report = await runFleet({ command: 'drift', flags, paths: parsed.positionals, io, onRow: fleetProgress('drift', format, io) }, driftStore(flags['include-builtin'] === true, readToday(io.env)));
    writeFleetReport(report, format, io);
    return report.exitCode;
  }
  const target = await resolveCliTarget(flags, io);
  const desired = await loadDesired(parsed.positionals, io, target);
  if (!desired) return 1;
  const baseline: Baseline | undefined = baselineRef ? await loadBaseline(baselineRef, parsed.positionals, { cwd: io.cwd, env: io.env }) : undefined;

  const opened = await openResolvedTarget(target, flags, io);
  try {
    // Reports are often piped into a file or a summary: the banner stays out of them.
    writeLine(format === 'text' ? io.stdout : io.stderr, opened.banner);
    const live = await readAccountForDrift(opened, desired);
    const { report, diagnostics } = findDrift({
      desired,
      live,
      adapters: registry.units,
      target: planTargetOf(opened),
      includeBuiltin: flags['include-builtin'] === true,
      today: readToday(io.env),
      ...(selection ? { selection } : {}),
      ...(baseline ? { baseline } : {}),
    });
    if (hasErrors(diagnostics)) {
      printDiagnostics(diagnostics, io);
      return 1;
    }
    printDiagnostics(diagnostics.filter((d) => d.severity === 'warning'), io);
    if (flags.out) {
      const file = path.resolve(io.cwd, flags.out);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFileAtomically(file, maskOf(io)(render(report, format, Number.POSITIVE_INFINITY, undefined)));
    }
    io.stdout.write(render(report, format, limit, reportUrl ?? flags.out));
    if (flags.adopt) {
      writeLine(format === 'text' ? io.stdout : io.stderr);
      const adoption = await adoptDrift({ report, desired, live, adapters: registry.units }, io, format === 'text' ? io.stdout : io.stderr);
      const left = report.findings.filter((f) => f.type !== 'modified').length + adoption.notAdopted.length;
      return left > 0 ? 2 : 0;
    }
    return hasDrift(report) ? 2 : 0;
  } finally {
    await opened.close();
  }
}
