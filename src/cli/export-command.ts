// `erpsync export [--kinds a,b] [--out DIR]`: reads the account and writes its configuration as
// manifests, one file per kind (or one multi-document stream on stdout). Changes nothing in the
// account. The export itself is pure (src/export); this file reads, writes files and prints.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildExport } from '../export/build-export.js';
import type { ExportedKind } from '../export/build-export.js';
import { registry } from '../kinds/registry.js';
import { referredKinds } from '../kinds/desired-units.js';
import { fetchLive } from '../live/fetch-live.js';
import { suggestClosest } from '../model/suggest.js';
import { ErpsyncError } from '../model/errors.js';
import type { RunIO } from '../model/run-io.js';
import { maskOf, writeLine } from '../model/run-io.js';
import { makeDirectory, writeFileAtomically } from '../model/write-file-atomically.js';
import { openTarget } from '../target/open-target.js';
import { renderHelp } from './commands.js';
import { exportFlags, parseCommandFlags } from './flags.js';
import { isFleetRun } from './run-settings.js';
import { readTargetRequest } from './target-request.js';
import type { KindKey, UnitKind } from '../model/kinds.js';

const kindKeys = registry.kinds.map((d) => d.key);

/** The published manifest schema inside this installation of erpsync. */
const bundledSchema = fileURLToPath(new URL('../../schemas/manifest.schema.json', import.meta.url));

export function parseKinds(value: string | undefined): KindKey[] {
  if (value === undefined) return [...kindKeys];
  const names = value.split(',').map((name) => name.trim()).filter((name) => name !== '');
  if (names.length === 0) throw new ErpsyncError('USAGE', '--kinds needs at least one kind');
  for (const name of names) {
    if (kindKeys.includes(name as KindKey)) continue;
    const closest = suggestClosest(name, kindKeys);
    throw new ErpsyncError('USAGE', `unknown kind \`${name}\`${closest ? ` (did you mean \`${closest}\`?)` : ''}`, { details: [`kinds: ${kindKeys.join(', ')}`] });
  }
  return [...new Set(names as KindKey[])];
}

/**
 * The unit kinds a read needs for these manifest kinds: the kinds themselves, the units nested in
 * them, and the read-only records they refer to (so the files name them instead of giving ids).
 */
function unitKindsOf(kinds: readonly KindKey[]): UnitKind[] {
  const selected: UnitKind[] = [];
  for (const adapter of registry.units) {
    const key = adapter.definition?.key;
    if (key ? kinds.includes(key) : adapter.nestedIn !== undefined && selected.includes(adapter.nestedIn)) selected.push(adapter.kind);
  }
  const names = referredKinds(selected, registry.units);
  return registry.units.filter((u) => selected.includes(u.kind) || names.includes(u.kind)).map((u) => u.kind);
}

function describeFile(file: ExportedKind): string {
  const leftOut = file.leftOut > 0 ? `, ${file.leftOut} of the account's own left out` : '';
  return `${file.file}: ${file.records} record${file.records === 1 ? '' : 's'}${leftOut}`;
}

export async function runExportCommand(args: string[], io: RunIO): Promise<number> {
  const parsed = parseCommandFlags('export', exportFlags, args, io.env);
  const flags = parsed.flags;
  if (flags.help) {
    writeLine(io.stdout, renderHelp('export'));
    return 0;
  }
  if (parsed.positionals.length > 0) throw new ErpsyncError('USAGE', `export takes no paths (got \`${parsed.positionals.join(' ')}\`); use --out DIR`);
  const kinds = parseKinds(flags.kinds);
  const outDir = flags.out === undefined ? undefined : path.resolve(io.cwd, flags.out);
  // Messages go where the YAML does not: stderr when the YAML is stdout.
  const messages = outDir === undefined || flags.json ? io.stderr : io.stdout;

  if (isFleetRun(flags)) throw new ErpsyncError('USAGE', 'export reads one account: pass one --target');
  const opened = await openTarget(readTargetRequest(flags), io);
  try {
    writeLine(messages, opened.banner);
    const live = await fetchLive(opened.client, registry.units, { kinds: unitKindsOf(kinds), desired: new Map(), complete: () => true, everyField: true });
    const schemaRef = flags.schema ?? path.relative(outDir ?? io.cwd, bundledSchema).split(path.sep).join('/');
    const files = buildExport(live, registry.units, { kinds, schemaRef, source: opened.target.name === 'default' ? 'the account' : `target ${opened.target.name}` });
    for (const warning of files.flatMap((f) => f.warnings)) writeLine(io.stderr, `warning: ${warning}`);

    if (outDir === undefined) {
      io.stdout.write(files.map((f) => f.text).join('---\n'));
      writeLine(io.stderr, `Exported ${files.length} kind(s) in ${live.reads} request(s): ${files.map(describeFile).join('; ')}.`);
      return 0;
    }
    await makeDirectory(outDir, { within: io.cwd });
    for (const file of files) await writeFileAtomically(path.join(outDir, file.file), maskOf(io)(file.text), { within: io.cwd });
    if (flags.json) {
      const summary = files.map(({ kind, file, records, leftOut, variables, warnings }) => ({ kind, file, records, leftOut, variables, warnings }));
      writeLine(io.stdout, JSON.stringify({ formatVersion: 1, target: { name: opened.target.name, id: opened.target.id, account: opened.account }, out: flags.out, reads: live.reads, files: summary }, null, 2));
      return 0;
    }
    writeLine(io.stdout, `Exported ${files.length} kind(s) to ${flags.out} in ${live.reads} request(s):`);
    for (const file of files) writeLine(io.stdout, `  ${describeFile(file)}`);
    const variables = [...new Set(files.flatMap((f) => f.variables))];
    if (variables.length > 0) writeLine(io.stdout, `Secrets are placeholders: set ${variables.join(', ')} before \`erpsync plan\`.`);
    return 0;
  } finally {
    await opened.close();
  }
}
