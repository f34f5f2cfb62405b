// `erpsync compare --target A --target B` (or `--target B PATH…`): reads both sides and prints how
// they differ, record by record and field by field (src/workflows/compare-workflow.ts compares;
// this file parses, prints and picks the exit code). Changes nothing.
import { registry } from '../kinds/registry.js';
import { storesDiffer } from '../model/compare.js';
import { ErpsyncError, exitCodes } from '../model/errors.js';
import { renderCompareMarkdown, renderCompareText } from '../report/compare-report.js';
import { compareStores } from '../workflows/compare-workflow.js';
import type { CompareLeft } from '../workflows/compare-workflow.js';
import { loadTargetsConfig, resolveRunTarget } from '../target/open-target.js';
import type { RunIO } from '../model/run-io.js';
import { writeLine } from '../model/run-io.js';
import { renderHelp } from './commands.js';
import { compareFlags, parseCommandFlags } from './flags.js';
import { printDiagnostics } from './store-output.js';
import { readTargetRequest } from './target-request.js';

export async function runCompareCommand(args: string[], io: RunIO): Promise<number> {
  const { flags, positionals } = parseCommandFlags('compare', compareFlags, args, io.env);
  if (flags.help) {
    writeLine(io.stdout, renderHelp('compare'));
    return 0;
  }
  if (flags['plan-format'] === 'markdown' && flags.json) throw new ErpsyncError('USAGE', '--json and --format markdown cannot be combined');
  const names = flags['compare-target'];
  const usage = 'compare takes two targets (--target A --target B), or one target and manifest paths (--target B PATH…)';
  if (names.length > 2 || names.length === 0 || (names.length === 2 && positionals.length > 0) || (names.length === 1 && positionals.length === 0)) throw new ErpsyncError('USAGE', usage);
  const common = readTargetRequest(flags);
  const config = await loadTargetsConfig(common, io);
  const resolve = (target: string) => resolveRunTarget({ ...common, target }, io, config);
  const [first = '', second] = names;
  if (second === first) throw new ErpsyncError('USAGE', `compare needs two different targets (got ${first} twice)`);
  const left: CompareLeft = second === undefined ? { type: 'manifests', paths: positionals } : { type: 'target', target: await resolve(first) };
  const right = await resolve(second ?? first);
  const format = flags.json ? 'json' : flags['plan-format'] === 'markdown' ? 'markdown' : 'text';
  // Machine-readable output owns stdout; the account lines go to stderr then.
  const banners = format === 'text' ? io.stdout : io.stderr;
  const outcome = await compareStores({ left, right, debug: flags.debug, onBanner: (line) => writeLine(banners, line) }, io);
  printDiagnostics(outcome.diagnostics, io);
  const report = outcome.report;
  if (!report) return exitCodes.error;
  if (format === 'json') writeLine(io.stdout, JSON.stringify(report, null, 2));
  else if (format === 'markdown') io.stdout.write(renderCompareMarkdown(report, { adapters: registry.units }));
  else for (const line of renderCompareText(report, { adapters: registry.units })) writeLine(io.stdout, line);
  return storesDiffer(report) ? exitCodes.changes : exitCodes.ok;
}
