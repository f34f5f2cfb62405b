// `erpsync plan [paths…]`: shows what apply would change; changes nothing. Text (coloured and, for
// a large change set, folded harder on a terminal), JSON, or Markdown for pull requests. Across a
// fleet: each store's plan under its account line, then one table; --out saves one plan per store;
// --comment-dir writes the fleet's Markdown cut into pull-request comments under --comment-limit.
import path from 'node:path';
import { registry } from '../kinds/registry.js';
import { ErpsyncError } from '../model/errors.js';
import type { Plan } from '../model/plan.js';
import { printable } from '../model/printable.js';
import { serializePlan } from '../plan/plan-file.js';
import { fleetPlanSections } from '../report/fleet-plan-markdown.js';
import { splitIntoComments } from '../report/plan-comments.js';
import { renderPlanMarkdown } from '../report/plan-markdown.js';
import { chooseFieldFold, colorizePlanLine, largeChangeSet } from '../report/plan-terminal.js';
import { renderPlanText, summarizePlan } from '../report/render-plan.js';
import { runFleet, selectFleet } from '../workflows/fleet-workflow.js';
import type { ResolvedTarget } from '../api/index.js';
import { damagedRunError, findFleet, findJournalRun, journalLocationOf } from '../workflows/journal-reader.js';
import type { JournalListing, JournalRun } from '../model/journal.js';
import { stateStoreFor } from '../target/run-state.js';
import { resolveRunTarget } from '../target/open-target.js';
import type { RevertSource } from '../workflows/revert-plan.js';
import type { RunIO } from '../model/run-io.js';
import { maskOf, writeLine } from '../model/run-io.js';
import { writePlanComments } from '../workflows/plan-comment-files.js';
import { isSavedPlanFile, withOrigin, writeFleetPlans, writeSavedPlan } from '../workflows/saved-plans.js';
import { revisionReader } from '../workflows/git-revision.js';
import { exitCodeOfStore } from '../workflows/store-outcome.js';
import type { StoreSettings } from '../workflows/store-settings.js';
import type { StoreSource } from '../workflows/store-workflow.js';
import { quietSession, runStore } from '../workflows/store-workflow.js';
import { renderHelp } from './commands.js';
import { parseCommandFlags, planFlags } from './flags.js';
import type { FleetFormat } from './fleet-output.js';
import { fleetPlanStores, fleetProgress, printFleetPlans } from './fleet-output.js';
import type { ParsedFlags } from './flags.js';
import { isCapableTerminal, isColorEnabled } from './output-mode.js';
import { isFleetRun, leaveOutTemplate, readManifestSource, readStoreSettings } from './run-settings.js';
import { readTargetRequest } from './target-request.js';
import { bannerSession, printDiagnostics } from './store-output.js';

type PlanCommandFlags = ParsedFlags<(typeof planFlags)[number]>;

export async function runPlanCommand(args: string[], io: RunIO): Promise<number> {
  const { flags, positionals } = parseCommandFlags('plan', planFlags, args, io.env);
  if (flags.help) {
    writeLine(io.stdout, renderHelp('plan'));
    return 0;
  }
  if (flags['plan-format'] === 'markdown' && flags.json) throw new ErpsyncError('USAGE', '--json and --format markdown cannot be combined');
  if (flags.revert !== undefined && flags['from-target'] !== undefined) throw new ErpsyncError('USAGE', '--revert plans from the journal, --from-target from another store: give one of them');
  const format: FleetFormat = flags.json ? 'json' : flags['plan-format'] === 'markdown' ? 'markdown' : 'text';
  const settings = readStoreSettings(flags, io.env);
  if (isFleetRun(flags)) return flags.revert === undefined ? planFleet(flags, positionals, settings, format, io) : planFleetRevert(flags.revert, flags, positionals, settings, format, io);
  if (flags['comment-dir'] !== undefined) throw new ErpsyncError('USAGE', '--comment-dir writes a fleet\'s plan as comments: give --all-targets, several --target names or a glob, or --changed-since REF');

  if (flags.out !== undefined && !isSavedPlanFile(flags.out)) throw new ErpsyncError('USAGE', `--out names a saved plan's file, which ends in .json (\`erpsync apply\` tells a plan from a manifest by it): not \`${printable(flags.out)}\``);
  const target = await resolveRunTarget(readTargetRequest(flags), io);
  const source = flags.revert === undefined ? await readManifestSource(flags, positionals, io) : await revertSourceOf(flags.revert, flags['revert-conflicts'], positionals, target, io);
  // Machine-readable output owns stdout; the account line goes to stderr then.
  const result = await runStore({ command: 'plan', target, source, settings }, io, bannerSession(format === 'text' ? io.stdout : io.stderr));
  printDiagnostics(result.diagnostics, io);
  if (result.status !== 'planned') return exitCodeOfStore(result, settings);
  // A saved plan records where it was made: apply checks the manifests against it and journals the commit.
  const plan = flags.out ? await withOrigin(result.plan, source, target, revisionReader(io.cwd)) : result.plan;
  if (flags.out) await writeSavedPlan(path.resolve(io.cwd, flags.out), plan, io.cwd);
  if (format === 'json') io.stdout.write(serializePlan(plan));
  else if (format === 'markdown') io.stdout.write(renderPlanMarkdown(plan, { adapters: registry.units, ...(flags.out ? { fullPlanAt: flags.out } : {}) }));
  else {
    printPlanText(plan, io, flags.verbose);
    if (flags.out) writeLine(io.stdout, `\nSaved the plan to ${flags.out}; run \`erpsync apply ${flags.out}\` to apply exactly this.`);
  }
  return exitCodeOfStore(result, settings);
}

async function planFleet(flags: PlanCommandFlags, paths: readonly string[], settings: StoreSettings, format: FleetFormat, io: RunIO): Promise<number> {
  const source = await readManifestSource({ ...flags, target: undefined }, paths, io);
  const fleet = leaveOutTemplate(await selectFleet({ ...readTargetRequest(flags), paths }, io), source);
  return planStores(fleet.names, fleet.resolve, async () => source, flags, settings, format, io);
}

/**
 * `plan --revert RUN` across a fleet: the runs of one fleet apply (RUN is its id, or any of its
 * stores' runs), one revert per store that has a run in it, planned and shown as a fleet plan;
 * `--out DIR` saves them for `apply DIR`.
 */
async function planFleetRevert(id: string, flags: PlanCommandFlags, paths: readonly string[], settings: StoreSettings, format: FleetFormat, io: RunIO): Promise<number> {
  if (paths.length > 0) throw new ErpsyncError('USAGE', '--revert plans from the journal: give no manifest paths');
  const fleet = await selectFleet(readTargetRequest(flags), io);
  const runsOf = new Map<string, JournalListing>();
  for (const name of fleet.names) runsOf.set(name, await journalOf(await fleet.resolve(name), io));
  const listings = [...runsOf.values()];
  // A store whose journal holds a damaged run may hold one of this fleet's: the revert is refused (exit 3), naming it.
  const [damaged] = listings.flatMap((l) => l.damaged);
  if (damaged) throw damagedRunError(damaged);
  const fleetId = findFleet({ runs: listings.flatMap((l) => l.runs), damaged: [] }, id);
  const runs = new Map(fleet.names.flatMap((name) => runsOf.get(name)?.runs.filter((r) => r.header.fleet === fleetId).map((run) => [name, run] as const) ?? []));
  if (runs.size === 0) throw new ErpsyncError('USAGE', `no store of this selection has a run of the fleet apply ${fleetId}`, { details: ['`erpsync history` lists the runs, each with its fleet'] });
  const overwrite = flags['revert-conflicts'];
  return planStores([...runs.keys()], fleet.resolve, async (name) => ({ type: 'revert', run: runs.get(name) as JournalRun, overwrite }), flags, settings, format, io);
}

/** Plans every store from its source and shows them as one fleet plan; --out saves them for `apply DIR`, --comment-dir as comments. */
async function planStores(names: readonly string[], resolve: (name: string) => Promise<ResolvedTarget>, sourceOf: (name: string) => Promise<StoreSource>, flags: PlanCommandFlags, settings: StoreSettings, format: FleetFormat, io: RunIO): Promise<number> {
  const { stores, report } = await runFleet(
    {
      command: 'plan',
      names,
      concurrency: flags.parallel,
      settings,
      resolve,
      sourceOf,
      startSession: () => quietSession,
      onStore: fleetProgress('plan', format, io),
    },
    io,
  );
  if (flags.out) {
    const revisions = revisionReader(io.cwd);
    await writeFleetPlans(
      path.resolve(io.cwd, flags.out),
      await Promise.all(
        stores.map(async (s) => (s.result?.status === 'planned' ? { target: s.name, plan: await withOrigin(s.result.plan, await sourceOf(s.name), s.result.target, revisions) } : { target: s.name, error: s.row.error ?? 'not planned' })),
      ),
    );
  }
  printFleetPlans(stores, report, format, io, { plans: true, verbose: flags.verbose, savedPlans: flags.out });
  const notes = format === 'text' ? io.stdout : io.stderr;
  if (flags.out && format === 'text') writeLine(io.stdout, `\nSaved ${stores.length} store plan(s) to ${flags.out}; run \`erpsync apply ${flags.out}\` to apply exactly these.`);
  if (flags['comment-dir'] !== undefined) {
    const limit = flags['comment-limit'];
    const comments = splitIntoComments(fleetPlanSections(fleetPlanStores(stores, flags.out), report, registry.units), limit).map((c) => ({ ...c, text: maskOf(io)(c.text) }));
    const parts = await writePlanComments(path.resolve(io.cwd, flags['comment-dir']), comments, limit, io.cwd);
    const largest = Math.max(...parts.map((p) => p.chars));
    writeLine(notes, `Wrote ${parts.length} comment(s) to ${flags['comment-dir']}, the largest ${largest.toLocaleString('en-US')} characters (limit ${limit.toLocaleString('en-US')}).`);
  }
  return report.exitCode;
}

function printPlanText(plan: Plan, io: RunIO, verbose: boolean): void {
  const terminal = isCapableTerminal(io);
  const fold = chooseFieldFold(plan.changes.length, { verbose, terminal });
  const lines = renderPlanText(plan, { adapters: registry.units, ...(fold !== undefined ? { maxFieldsPerChange: fold } : {}) });
  // A large plan scrolls its summary away: say it again at the end.
  if (terminal && plan.changes.length > largeChangeSet) lines.push(`Plan: ${summarizePlan(plan)}.`);
  const color = isColorEnabled(io);
  for (const line of lines) writeLine(io.stdout, color ? colorizePlanLine(line) : line);
}

/** The run --revert names, from the target's journal; it plans from the journal, not from manifests. A damaged run is refused here, before the account is reached. */
async function revertSourceOf(id: string, overwrite: boolean, paths: readonly string[], target: ResolvedTarget, io: RunIO): Promise<RevertSource> {
  if (paths.length > 0) throw new ErpsyncError('USAGE', '--revert plans from the journal: give no manifest paths');
  return { type: 'revert', run: findJournalRun(await journalOf(target, io), id), overwrite };
}

/** A target's runs, from its journal, checked (damaged ones apart). */
async function journalOf(target: ResolvedTarget, io: RunIO): Promise<JournalListing> {
  const state = await stateStoreFor(target.backend, io);
  return state.journal.list([journalLocationOf(target, io.cwd)], { target: target.name });
}
