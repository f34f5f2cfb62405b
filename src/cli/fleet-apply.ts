// A fleet apply on the command line: every store's plan is shown (removals first, under its account
// line) before anything is written, then one question for the whole fleet — or --auto-approve —
// then a progress line per store and the table. The sequence itself is the workflow's (applyFleet).
import { isCi } from '../api/index.js';
import { exitCodes } from '../model/errors.js';
import { confirmationForFleet } from '../report/apply-report.js';
import type { FleetPlans, FleetStore } from '../workflows/fleet-workflow.js';
import { applyFleet as runFleetApply, selectFleet } from '../workflows/fleet-workflow.js';
import { planRollout } from '../workflows/fleet-stages.js';
import type { RunIO } from '../model/run-io.js';
import { writeLine } from '../model/run-io.js';
import type { StoreSettings } from '../workflows/store-settings.js';
import { askOnTerminal } from './apply-session.js';
import type { applyFlags } from './flags.js';
import type { FleetFormat } from './fleet-output.js';
import { fleetProgress, printFleetPlans, printFleetReview } from './fleet-output.js';
import type { ParsedFlags } from './flags.js';
import { leaveOutTemplate } from './run-settings.js';
import { readTargetRequest } from './target-request.js';
import { printBlockedChanges } from './store-output.js';

type ApplyCommandFlags = ParsedFlags<(typeof applyFlags)[number]>;

export async function applyFleet(from: FleetPlans, flags: ApplyCommandFlags, settings: StoreSettings, io: RunIO): Promise<number> {
  const format: FleetFormat = flags.json ? 'json' : 'text';
  // A folder applies the stores it holds, or those of them that --target / --all-targets select.
  const fleet = leaveOutTemplate(await selectFleet(readTargetRequest(flags), io, from.type === 'saved' ? from.entries.map((e) => e.target) : undefined), from.type === 'planned' ? from.source : undefined);
  const outcome = await runFleetApply(
    {
      from,
      fleet,
      rollout: planRollout(fleet.names, fleet.config, flags),
      concurrency: flags.parallel,
      settings,
      review: async (stores) => reviewFleet(stores, settings.apply.autoApprove, format, io),
      onStore: fleetProgress('apply', format, io),
    },
    io,
  );
  if (outcome.declined) {
    writeLine(io.stderr, 'Nothing was applied.');
    return exitCodes.error;
  }
  printFleetPlans(outcome.stores, outcome.report, format, io, { plans: format === 'json', verbose: false });
  for (const store of outcome.stores) if (store.result?.status === 'planned' || store.result?.status === 'applied') printBlockedChanges(store.result.plan, io, store.name);
  return outcome.report.exitCode;
}

/** Shows every store's plan and asks once for the whole fleet (or takes --auto-approve). */
async function reviewFleet(stores: readonly FleetStore[], autoApprove: boolean, format: FleetFormat, io: RunIO): Promise<boolean> {
  // NDJSON-free JSON owns stdout: the review goes to stderr then.
  printFleetReview(stores, format === 'json' ? io.stderr : io.stdout);
  if (autoApprove) return true;
  const out = format === 'json' || !io.stdout.isTTY || isCi(io.env) ? io.stderr : io.stdout;
  return askOnTerminal(io, confirmationForFleet(stores.flatMap((s) => (s.result?.status === 'planned' ? [s.result.plan] : []))), out);
}
