// `erpsync apply [manifests… | plan.json | DIR]`: plans (or reads a saved plan), asks, applies wave
// by wave, then re-reads the account to check that what was written took. One store runs the
// per-store workflow with a session for the terminal (apply-session.ts); a fleet — across targets,
// or a folder of saved plans — shows every store's plan first, asks once, then applies each
// store's reviewed plan as a saved plan (fleet-apply.ts).
import path from 'node:path';
import { ErpsyncError } from '../model/errors.js';
import { readVariableScope, resolveRunTarget } from '../target/open-target.js';
import type { RunIO } from '../model/run-io.js';
import { writeLine } from '../model/run-io.js';
import { isFleetPlanFolder, isSavedPlanFile, readFleetIndex, readSavedPlan, requireManifestsUnchanged } from '../workflows/saved-plans.js';
import { exitCodeOfStore } from '../workflows/store-outcome.js';
import { describePlanOptionsGiven } from '../workflows/store-settings.js';
import type { StoreSource } from '../workflows/store-workflow.js';
import { runStore } from '../workflows/store-workflow.js';
import { startApplySession } from './apply-session.js';
import { renderHelp } from './commands.js';
import { applyFlags, parseCommandFlags } from './flags.js';
import { applyFleet } from './fleet-apply.js';
import { chooseOutputMode } from './output-mode.js';
import { isFleetRun, readManifestSource, readStoreSettings } from './run-settings.js';
import { readTargetRequest } from './target-request.js';
import { printBlockedChanges, printDiagnostics } from './store-output.js';

export async function runApplyCommand(args: string[], io: RunIO): Promise<number> {
  const { flags, positionals } = parseCommandFlags('apply', applyFlags, args, io.env);
  if (flags.help) {
    writeLine(io.stdout, renderHelp('apply'));
    return 0;
  }
  const settings = readStoreSettings(flags, io.env);
  const given = positionals.length === 1 && positionals[0] !== undefined ? path.resolve(io.cwd, positionals[0]) : undefined;
  const planFolder = given !== undefined && (await isFleetPlanFolder(given)) ? given : undefined;
  const planFile = given !== undefined && isSavedPlanFile(given) ? given : undefined;
  if (planFolder || planFile) {
    const carried = describePlanOptionsGiven(settings.plan);
    if (carried.length > 0) throw new ErpsyncError('USAGE', `a saved plan carries its own delete budget, replacements and selection: plan again with ${carried.join(', ')} instead of passing them to apply`);
  }
  if (planFolder) {
    const shown = positionals[0] ?? planFolder;
    return applyFleet({ type: 'saved', folder: planFolder, shown, entries: await readFleetIndex(planFolder, shown) }, flags, settings, io);
  }
  if (isFleetRun(flags)) {
    if (planFile) throw new ErpsyncError('USAGE', 'a saved plan belongs to one target: apply it with --target NAME, or save a fleet\'s plans with `erpsync plan --out DIR` across the targets');
    return applyFleet({ type: 'planned', source: await readManifestSource({ ...flags, target: undefined }, positionals, io) }, flags, settings, io);
  }
  const target = await resolveRunTarget(readTargetRequest(flags), io);
  const source: StoreSource = planFile ? { type: 'saved-plan', plan: await readSavedPlan(planFile, positionals[0] ?? planFile, await readVariableScope(target, io)) } : await readManifestSource(flags, positionals, io);
  if (source.type === 'saved-plan') await requireManifestsUnchanged([{ plan: source.plan, target }], io);
  const result = await runStore({ command: 'apply', target, source, settings }, io, startApplySession(io, chooseOutputMode(io, flags.json), settings.apply.autoApprove));
  printDiagnostics(result.diagnostics, io);
  if (result.status === 'applied') printBlockedChanges(result.plan, io);
  return exitCodeOfStore(result, settings);
}
