// The run settings of plan, apply and drift, built once from their parsed flags: what every store
// of the run is told (StoreSettings, handed whole to each store), and which stores the run is for.
// A command that lacks a flag gets its default here, the same for one store as for a fleet.
import { isFleetSelection } from '../api/index.js';
import { parseSelection } from '../model/selection.js';
import { readToday } from '../workflows/read-and-plan.js';
import type { StoreSettings } from '../workflows/store-settings.js';
import type { StoreSource } from '../workflows/store-workflow.js';
import type { RunIO } from '../model/run-io.js';
import { resolveRunTarget } from '../target/open-target.js';
import type { FleetSelection } from '../workflows/fleet-workflow.js';
import { templateSourceOf } from '../workflows/store-as-manifests.js';
import { ErpsyncError } from '../model/errors.js';
import { readTargetRequest } from './target-request.js';
import type { ParsedFlags } from './flags.js';
import type { applyFlags, driftFlags, planFlags } from './flags.js';

type StoreFlagKey = (typeof planFlags)[number] | (typeof applyFlags)[number] | (typeof driftFlags)[number];

/** Any of the three commands' flags: those a command does not take are absent. */
export type StoreFlags = Partial<ParsedFlags<StoreFlagKey>>;

export function readStoreSettings(flags: StoreFlags, env: NodeJS.ProcessEnv): StoreSettings {
  return {
    plan: {
      allowReplace: flags['allow-replace'] === true,
      allowCascade: flags['allow-cascade'] === true,
      maxDeletes: flags['max-deletes'],
      selection: parseSelection(flags.only ?? [], flags.exclude ?? []),
      today: readToday(env),
    },
    apply: {
      autoApprove: flags['auto-approve'] === true,
      concurrency: flags.concurrency ?? 3,
      lockTimeoutMs: flags['lock-timeout'] ?? 0,
      outcomeWindowMs: flags['outcome-wait'] ?? 30_000,
    },
    drift: { includeBuiltin: flags['include-builtin'] === true, baseline: flags.baseline, adopt: flags.adopt === true },
    storeTimeoutMs: flags['store-timeout'] ?? 1_800_000,
    detailedExitCode: flags['detailed-exitcode'] === true,
    debug: flags.debug === true,
  };
}

/** Whether the run is a fleet: several targets, a glob, every target, or those changed since a revision. */
export function isFleetRun(flags: { target?: string | undefined; 'all-targets'?: boolean | undefined; 'changed-since'?: string | undefined }): boolean {
  return flags['all-targets'] === true || flags['changed-since'] !== undefined || isFleetSelection(flags.target);
}

/** Where plan and apply take the desired state from: the manifest paths, or a template store (--from-target). */
export async function readManifestSource(flags: StoreFlags & { 'from-target'?: string | undefined; target?: string | undefined }, paths: readonly string[], io: RunIO): Promise<StoreSource> {
  const from = flags['from-target'];
  if (from === undefined) return { type: 'manifests', paths };
  if (paths.length > 0) throw new ErpsyncError('USAGE', `--from-target takes the store ${from} as the manifests: pass no manifest paths beside it`);
  if (from === flags.target) throw new ErpsyncError('USAGE', `--from-target ${from} is the store itself: name another target`);
  return templateSourceOf(await resolveRunTarget({ ...readTargetRequest(flags), target: from }, io), io, flags.debug === true);
}

/** A fleet copied from a template leaves the template out: it is the source, not a store to make like itself. */
export function leaveOutTemplate(fleet: FleetSelection, source: StoreSource | undefined): FleetSelection {
  return source?.type === 'template' ? { ...fleet, names: fleet.names.filter((name) => name !== source.from.name) } : fleet;
}
