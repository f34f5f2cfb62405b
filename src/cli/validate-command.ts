// `erpsync validate [paths…]`: reads and checks manifests offline; no network access at all.
import { hasErrors } from '../model/diagnostics.js';
import { loadManifests } from '../manifest/load-manifests.js';
import { countDiagnostics, diagnosticToJson, renderDiagnosticsText, summarizeCounts } from '../report/diagnostics-report.js';
import { describeTargetManifests } from '../target/resolve-target.js';
import type { RunIO } from '../model/run-io.js';
import { loadTargetsConfig, readVariableScope } from '../target/open-target.js';
import { writeLine } from '../model/run-io.js';
import { renderHelp } from './commands.js';
import { parseCommandFlags, validateFlags } from './flags.js';

export async function runValidateCommand(args: string[], io: RunIO): Promise<number> {
  const parsed = parseCommandFlags('validate', validateFlags, args, io.env);
  if (parsed.flags.help) {
    writeLine(io.stdout, renderHelp('validate'));
    return 0;
  }
  const target = parsed.flags.target === undefined ? undefined : describeTargetManifests(await loadTargetsConfig(parsed.flags, io), parsed.flags.target);
  const layered = parsed.positionals.length === 0 ? target?.manifests : undefined;
  const paths = layered ?? (parsed.positionals.length > 0 ? parsed.positionals : ['.']);
  const scope = await readVariableScope(target, io);
  const result = await loadManifests(paths, { cwd: io.cwd, env: scope.env, ...(scope.declared ? { variables: scope.declared } : {}), offline: true, layers: layered !== undefined });
  const shown = parsed.flags.quiet ? result.diagnostics.filter((d) => d.severity !== 'note') : result.diagnostics;
  const counts = countDiagnostics(result.diagnostics);
  const valid = !hasErrors(result.diagnostics);

  if (parsed.flags.json) {
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
