// `erpsync plan [paths…]`: shows what apply would change; changes nothing. Text (coloured and,
// for a large change set, folded harder on a terminal), JSON, or Markdown for pull requests.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { registry } from '../kinds/registry.js';
import { hasErrors } from '../model/diagnostics.js';
import { ErpsyncError } from '../model/errors.js';
import { writeFileAtomically } from '../model/write-file-atomically.js';
import { renderPlanText, summarizePlan } from '../report/render-plan.js';
import { serializePlan } from '../plan/plan-file.js';
import { renderPlanMarkdown } from '../report/plan-markdown.js';
import { chooseFieldFold, colorizePlanLine, largeChangeSet } from '../report/plan-terminal.js';
import type { CliIO } from './io.js';
import { fleetProgress, writeFleetReport } from './fleet-output.js';
import { isFleetRun, planStore, runFleet } from './fleet-workflow.js';
import { parseCommandArgs } from './parse-command-args.js';
import { writeLine } from './io.js';
import { isCapableTerminal, isColorEnabled } from './output-mode.js';
import { loadDesired, makePlan, parseCount, printDiagnostics, readAccount, readSelection, readToday, selectionFlagHelp, selectionFlagOptions } from './plan-workflow.js';
import { openResolvedTarget, resolveCliTarget, targetFlagHelp, targetFlagOptions } from './target.js';
import type { Plan } from '../model/plan.js';

const help = [
  'usage: erpsync plan [paths…] [options]',
  '',
  'Reads the manifests and the account and shows what `erpsync apply` would change.',
  '',
  'options:',
  '  --json                 print the plan as JSON',
  '  --format text|markdown markdown: for a pull-request comment or the GitHub step summary',
  '  --out FILE             save the plan for `erpsync apply FILE`',
  '  --detailed-exitcode    exit 2 when there are changes (0 none, 1 error)',
  '  --allow-replace        delete and re-create records the API cannot change in place',
  '  --max-deletes N        delete budget of this run (default: policy.maxDeletes, 10)',
  '  --verbose              show every field of every change (a terminal folds large plans harder)',
  ...selectionFlagHelp,
  ...targetFlagHelp,
].join('\n');

export async function runPlanCommand(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs('plan', args, {
    json: { type: 'boolean' },
    format: { type: 'string' },
    out: { type: 'string' },
    'detailed-exitcode': { type: 'boolean' },
    'allow-replace': { type: 'boolean' },
    'max-deletes': { type: 'string' },
    verbose: { type: 'boolean' },
    ...selectionFlagOptions,
    help: { type: 'boolean', short: 'h' },
    ...targetFlagOptions,
  });
  const flags = parsed.values;
  if (flags.help) {
    writeLine(io.stdout, help);
    return 0;
  }
  const maxDeletes = parseCount(flags['max-deletes'], '--max-deletes');
  const selection = readSelection(flags);
  const format = flags.format ?? 'text';
  if (format !== 'text' && format !== 'markdown') throw new ErpsyncError('USAGE', `--format takes text or markdown, not \`${format}\``);
  if (format === 'markdown' && flags.json) throw new ErpsyncError('USAGE', '--json and --format markdown cannot be combined');
  if (isFleetRun(flags)) {
    if (flags.out) throw new ErpsyncError('USAGE', '--out saves one plan: plan one target at a time to save plans');
    if (selection) throw new ErpsyncError('USAGE', '--only and --exclude target one store: plan one target at a time for a targeted plan');
    const fleetFormat = flags.json ? 'json' : format;
    const report = await runFleet({ command: 'plan', flags, paths: parsed.positionals, io, onRow: fleetProgress('plan', fleetFormat, io) }, planStore(flags['detailed-exitcode'] === true, readToday(io.env)));
    writeFleetReport(report, fleetFormat, io);
    return report.exitCode;
  }
  const target = await resolveCliTarget(flags, io);
  const desired = await loadDesired(parsed.positionals, io, target);
  if (!desired) return 1;

  const opened = await openResolvedTarget(target, flags, io);
  try {
    // Machine-readable output owns stdout; the sandbox banner goes to stderr then.
    writeLine(flags.json || format === 'markdown' ? io.stderr : io.stdout, opened.banner);
    const live = await readAccount(opened, desired);
    const { plan, diagnostics } = makePlan(desired, live, opened, { allowReplace: flags['allow-replace'] === true, today: readToday(io.env), ...(selection ? { selection } : {}), ...(maxDeletes !== undefined ? { maxDeletes } : {}) });
    printDiagnostics(diagnostics, io);
    if (hasErrors(diagnostics)) return 1;
    if (flags.out) {
      const file = path.resolve(io.cwd, flags.out);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFileAtomically(file, serializePlan(plan), { mode: 0o600 });
    }
    if (flags.json) {
      io.stdout.write(serializePlan(plan));
    } else if (format === 'markdown') {
      io.stdout.write(renderPlanMarkdown(plan, { adapters: registry.units, ...(flags.out ? { fullPlanAt: flags.out } : {}) }));
    } else {
      printPlanText(plan, io, flags.verbose === true);
      if (flags.out) writeLine(io.stdout, `\nSaved the plan to ${flags.out}; run \`erpsync apply ${flags.out}\` to apply exactly this.`);
    }
    const changes = plan.changes.filter((c) => c.action !== 'blocked').length;
    return flags['detailed-exitcode'] && changes > 0 ? 2 : 0;
  } finally {
    await opened.close();
  }
}

function printPlanText(plan: Plan, io: CliIO, verbose: boolean): void {
  const terminal = isCapableTerminal(io);
  const fold = chooseFieldFold(plan.changes.length, { verbose, terminal });
  const lines = renderPlanText(plan, { adapters: registry.units, ...(fold !== undefined ? { maxFieldsPerChange: fold } : {}) });
  // A large plan scrolls its summary away: say it again at the end.
  if (terminal && plan.changes.length > largeChangeSet) lines.push(`Plan: ${summarizePlan(plan)}.`);
  const color = isColorEnabled(io);
  for (const line of lines) writeLine(io.stdout, color ? colorizePlanLine(line) : line);
}
