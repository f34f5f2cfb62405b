// `erpsync import --target NAME [--base PATH]` (or across a fleet): each store's differences from
// the base written as its target's overlay (src/workflows/import-workflow.ts decides and writes;
// this file parses, prints each store's overlay size and picks the exit code).
import path from 'node:path';
import { exitCodes } from '../model/errors.js';
import { selectFleet } from '../workflows/fleet-workflow.js';
import type { ImportedStore } from '../workflows/import-workflow.js';
import { importStores } from '../workflows/import-workflow.js';
import { resolveRunTarget } from '../target/open-target.js';
import type { RunIO } from '../model/run-io.js';
import { writeLine } from '../model/run-io.js';
import { renderHelp } from './commands.js';
import { importFlags, parseCommandFlags } from './flags.js';
import { isFleetRun } from './run-settings.js';
import { readTargetRequest } from './target-request.js';
import { printDiagnostics } from './store-output.js';
import { ErpsyncError } from '../model/errors.js';
import { hasErrors } from '../model/diagnostics.js';
import { describeAccount } from '../model/account.js';
import type { SuggestedBase } from '../workflows/suggest-base.js';
import { suggestBase } from '../workflows/suggest-base.js';

export async function runImportCommand(args: string[], io: RunIO): Promise<number> {
  const { flags, positionals } = parseCommandFlags('import', importFlags, args, io.env);
  if (flags.help) {
    writeLine(io.stdout, renderHelp('import'));
    return 0;
  }
  if (positionals.length > 0) throw new ErpsyncError('USAGE', `import takes no paths (got \`${positionals.join(' ')}\`): the base is --base PATH, the overlay the last layer of the target's manifests`);
  const request = readTargetRequest(flags);
  let names: string[];
  let resolve: (name: string) => ReturnType<typeof resolveRunTarget>;
  if (isFleetRun(flags)) {
    const fleet = await selectFleet(request, io);
    names = fleet.names;
    resolve = fleet.resolve;
  } else {
    const target = await resolveRunTarget(request, io);
    names = [target.name];
    resolve = async () => target;
  }
  const suggestDir = flags['suggest-base'];
  if (suggestDir !== undefined) {
    const proposal = await suggestBase(names, resolve, { dir: suggestDir, minShare: flags['min-share'], baseFlag: flags.base, debug: flags.debug, cap: flags.parallel }, io);
    for (const store of proposal.stores) printDiagnostics(store.diagnostics, io);
    if (flags.json) writeLine(io.stdout, JSON.stringify(describeProposalJson(suggestDir, proposal), null, 2));
    else for (const line of describeProposal(suggestDir, flags['min-share'], proposal)) writeLine(io.stdout, line);
    return proposal.stores.some((s) => s.error !== undefined || hasErrors(s.diagnostics)) ? exitCodes.error : exitCodes.ok;
  }
  const stores = await importStores(names, resolve, { baseFlag: flags.base, debug: flags.debug, cap: flags.parallel }, io, (store) => {
    printDiagnostics(store.diagnostics, io);
    if (!flags.json) writeLine(io.stdout, describeStore(store));
  });
  const failed = stores.filter((s) => s.error !== undefined || hasErrors(s.diagnostics)).length;
  if (flags.json) {
    const total = stores.reduce((sum, s) => sum + (s.size?.total ?? 0), 0);
    writeLine(io.stdout, JSON.stringify({ formatVersion: 1, stores: stores.map(({ diagnostics: _d, ...store }) => store), total }, null, 2));
  } else writeLine(io.stdout, summarize(stores, failed));
  return failed > 0 ? exitCodes.error : exitCodes.ok;
}

function describeStore(store: ImportedStore): string {
  if (store.error !== undefined) return `${store.target}: failed: ${store.error}`;
  if (!store.size || !store.overlay) return `${store.target}: not imported: the base has errors (above)`;
  const { added, changed, absent, total } = store.size;
  const account = store.account ? ` (${describeAccount(store.account)})` : '';
  return `${store.target}${account}: ${store.overlay}: ${total} record(s) — ${added} added, ${changed} changed, ${absent} absent — ${store.written ? 'written' : 'unchanged'}`;
}

function summarize(stores: readonly ImportedStore[], failed: number): string {
  const total = stores.reduce((sum, s) => sum + (s.size?.total ?? 0), 0);
  const written = stores.filter((s) => s.written).length;
  return `Imported ${stores.length} store(s): overlays of ${total} record(s) in all; ${written} file(s) written, ${stores.length - written - failed} unchanged, ${failed} failed.`;
}

const sum = (sizes: readonly ({ total: number } | undefined)[]) => sizes.reduce((total, size) => total + (size?.total ?? 0), 0);

function describeProposalJson(dir: string, proposal: SuggestedBase): Record<string, unknown> {
  const stores = proposal.stores.map(({ diagnostics: _d, ...store }) => store);
  const measured = proposal.stores.every((s) => s.current !== undefined);
  return { formatVersion: 1, base: { dir, files: proposal.files }, stores, total: sum(proposal.stores.map((s) => s.size)), ...(measured ? { currentTotal: sum(proposal.stores.map((s) => s.current)) } : {}) };
}

function describeProposal(dir: string, minShare: number, proposal: SuggestedBase): string[] {
  const written = proposal.files.filter((f) => f.written).length;
  const lines = [
    `Suggested base (records at least ${Math.round(minShare * 100)}% of ${proposal.stores.length} stores share) in ${dir}: ${proposal.files.map((f) => `${path.basename(f.file)} (${f.records})`).join(', ') || 'nothing shared'}; ${written} file(s) written.`,
    '',
  ];
  const width = Math.max(5, ...proposal.stores.map((s) => s.target.length));
  lines.push(`${'store'.padEnd(width)}  overlay with it  with the current base`);
  for (const store of proposal.stores) {
    if (store.error !== undefined || !store.size) lines.push(`${store.target.padEnd(width)}  failed: ${store.error ?? 'see above'}`);
    else lines.push(`${store.target.padEnd(width)}  ${String(store.size.total).padStart(15)}  ${store.current ? String(store.current.total).padStart(20) : '—'.padStart(20)}`);
  }
  const current = proposal.stores.every((s) => s.current !== undefined) ? `, ${sum(proposal.stores.map((s) => s.current))} with the current base` : '';
  lines.push('', `Overlays in all: ${sum(proposal.stores.map((s) => s.size))} record(s) with the suggested base${current}. Nothing else was written: move the base into place, then run \`erpsync import\`.`);
  return lines;
}
