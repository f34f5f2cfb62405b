// `erpsync validate [paths…]`: reads and checks manifests offline; no network access at all.
import { hasErrors } from '../model/diagnostics.js';
import { loadManifests } from '../manifest/load-manifests.js';
import { countDiagnostics, diagnosticToJson, renderDiagnosticsText, summarizeCounts } from '../report/diagnostics-report.js';
import { describeTargetManifests } from '../api/index.js';
import type { CliIO } from './io.js';
import { loadTargetsConfig, readTargetVariables } from './target.js';
import { parseCommandArgs } from './parse-command-args.js';
import { writeLine } from './io.js';

const help = `usage: erpsync validate [paths…] [--json]

Checks manifest files and directories (read recursively) without contacting any account:
YAML syntax, the manifest schema, references, duplicates, secrets. Paths default to the
current directory.

options:
  --target NAME   check the manifests of a target of erpsync.config.yaml (its layers and variables)
  --config FILE   config file (default erpsync.config.yaml)
  --json      print a JSON report instead of text
  --quiet     hide notes
  -h, --help  show this help

exit codes: 0 valid (warnings allowed), 1 invalid or a usage error`;

export async function runValidateCommand(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs('validate', args, {
    json: { type: 'boolean' },
    quiet: { type: 'boolean' },
    target: { type: 'string' },
    config: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
    debug: { type: 'boolean' },
  });
  if (parsed.values.help) {
    writeLine(io.stdout, help);
    return 0;
  }
  const target = parsed.values.target === undefined ? undefined : describeTargetManifests(await loadTargetsConfig(parsed.values, io), parsed.values.target);
  const layered = parsed.positionals.length === 0 ? target?.manifests : undefined;
  const paths = layered ?? (parsed.positionals.length > 0 ? parsed.positionals : ['.']);
  const env = target ? await readTargetVariables(target, io) : io.env;
  const result = await loadManifests(paths, { cwd: io.cwd, env, offline: true, layers: layered !== undefined });
  for (const value of result.secretValues) io.mask?.add(value);
  const shown = parsed.values.quiet ? result.diagnostics.filter((d) => d.severity !== 'note') : result.diagnostics;
  const counts = countDiagnostics(result.diagnostics);
  const valid = !hasErrors(result.diagnostics);

  if (parsed.values.json) {
    const records = result.desired ? [...result.desired.records.values()].reduce((n, list) => n + list.length, 0) : null;
    writeLine(io.stdout, JSON.stringify({ formatVersion: 1, valid, files: result.files, records, summary: counts, diagnostics: shown.map(diagnosticToJson) }, null, 2));
    return valid ? 0 : 1;
  }
  for (const line of renderDiagnosticsText(shown)) writeLine(valid ? io.stdout : io.stderr, line);
  if (shown.length > 0) writeLine(valid ? io.stdout : io.stderr);
  const fileCount = `${result.files.length} file${result.files.length === 1 ? '' : 's'}`;
  if (valid) {
    const records = [...(result.desired?.records.values() ?? [])].reduce((n, list) => n + list.length, 0);
    writeLine(io.stdout, `valid: ${fileCount}, ${records} record${records === 1 ? '' : 's'} (${summarizeCounts(counts)})`);
    return 0;
  }
  writeLine(io.stderr, `invalid: ${summarizeCounts(counts)} in ${fileCount}`);
  return 1;
}
