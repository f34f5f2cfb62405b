// The steps plan, apply and drift share: load the manifests, open the target, read the account,
// build the plan. Prints diagnostics and the target banner; returns an exit code instead of
// throwing for input problems.
import type { ResolvedTarget } from '../api/index.js';
import { DEFAULT_RATE } from '../api/index.js';
import type { OpenedTarget } from './target.js';
import { readTargetVariables } from './target.js';
import type { CliIO } from './io.js';
import { writeLine } from './io.js';
import { registry } from '../kinds/registry.js';
import { fetchLive } from '../live/fetch-live.js';
import { loadManifests } from '../manifest/load-manifests.js';
import type { Diagnostic } from '../model/diagnostics.js';
import { hasErrors } from '../model/diagnostics.js';
import { ErpsyncError } from '../model/errors.js';
import { buildPlan } from '../plan/build-plan.js';
import type { PlanResult } from '../plan/build-plan.js';
import { deriveDesiredUnits, readsEveryRecord, selectUnitKinds } from '../kinds/desired-units.js';
import { countDiagnostics, renderDiagnosticsText, summarizeCounts } from '../report/diagnostics-report.js';
import type { LiveState } from '../model/live.js';
import type { DesiredState } from '../model/desired.js';
import type { PlanTarget } from '../model/plan.js';
import { parseSelection } from '../model/selection.js';
import type { Selection } from '../model/selection.js';

/** The pace a real account allows us (under its shared 3 req/s), for cost lines of unpaced runs. */
export const projectedRate = DEFAULT_RATE;

export interface PlanFlags {
  allowReplace: boolean;
  maxDeletes?: number;
  /** The day policy.ignore rules are checked on (readToday). */
  today: string;
  /** A targeted run (--only / --exclude). */
  selection?: Selection;
}

/** The targeted-run flags plan, apply and drift share. */
export const selectionFlagOptions = {
  only: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
} as const;

export const selectionFlagHelp = [
  '  --only KIND[/IDENTITY]',
  '                         only these records (repeatable; globs: `gruposProdutos/Revenda > *`);',
  '                         a plan keeps what they depend on too, says so, and is partial',
  '  --exclude KIND[/IDENTITY]',
  '                         leave these records out (repeatable, globs)',
];

/** The selection the flags ask for, checked; undefined for a whole run. */
export function readSelection(flags: { only?: string[]; exclude?: string[] }): Selection | undefined {
  return parseSelection(flags.only ?? [], flags.exclude ?? []);
}

export function planTargetOf(opened: OpenedTarget): PlanTarget {
  return { mode: opened.target.mode, id: opened.target.id, name: opened.target.name, account: opened.account };
}

export function parseCount(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new ErpsyncError('USAGE', `${flag} takes a whole number ≥ 0, not \`${value}\``);
  return n;
}

export function printDiagnostics(diagnostics: readonly Diagnostic[], io: CliIO): void {
  const lines = renderDiagnosticsText(diagnostics);
  for (const line of lines) writeLine(io.stderr, line);
  if (lines.length > 0 && hasErrors(diagnostics)) writeLine(io.stderr, `\n${summarizeCounts(countDiagnostics(diagnostics))}`);
}

/**
 * Loads the manifests: the paths given, else the target's `manifests` (layered: an overlay's record
 * replaces the base's), else the current folder; with the target's variables over the environment.
 */
export async function loadDesired(paths: readonly string[], io: CliIO, target?: Pick<ResolvedTarget, 'name' | 'manifests' | 'envFile' | 'variables'>, offline = false): Promise<DesiredState | undefined> {
  const fromTarget = paths.length === 0 ? target?.manifests : undefined;
  const env = target ? await readTargetVariables(target, io) : io.env;
  const result = await loadManifests(fromTarget ?? (paths.length > 0 ? paths : ['.']), { cwd: io.cwd, env, registry, layers: fromTarget !== undefined, offline });
  for (const value of result.secretValues) io.mask?.add(value);
  const shown = result.diagnostics.filter((d) => d.severity !== 'note');
  if (!result.desired) {
    printDiagnostics(shown, io);
    return undefined;
  }
  printDiagnostics(shown, io);
  return result.desired;
}

export async function readAccount(opened: OpenedTarget, desired: DesiredState): Promise<LiveState> {
  return fetchLive(opened.client, registry.units, {
    kinds: selectUnitKinds(desired, registry.units),
    desired: deriveDesiredUnits(desired, registry.units),
    complete: (kind) => {
      const unit = registry.unit(kind);
      return unit ? readsEveryRecord(unit, desired) : false;
    },
  });
}

/** The account as drift needs it: every record of the touched kinds, with every field (for snippets). */
export async function readAccountForDrift(opened: OpenedTarget, desired: DesiredState): Promise<LiveState> {
  return fetchLive(opened.client, registry.units, {
    kinds: selectUnitKinds(desired, registry.units),
    desired: deriveDesiredUnits(desired, registry.units),
    // Unmanaged records are found only by reading every record, and their snippets need every field.
    complete: () => true,
    everyField: true,
  });
}

/**
 * Today on this machine's calendar (YYYY-MM-DD), the day policy.ignore `until` is compared with:
 * read here, at the edge, so planning and drift stay pure. `ERPSYNC_TODAY` fixes it (reproducible runs).
 */
export function readToday(env: NodeJS.ProcessEnv, now = new Date()): string {
  const fixed = env.ERPSYNC_TODAY;
  if (fixed) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(fixed)) throw new ErpsyncError('USAGE', `ERPSYNC_TODAY takes a date as YYYY-MM-DD, not \`${fixed}\``);
    return fixed;
  }
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

export function makePlan(desired: DesiredState, live: LiveState, opened: OpenedTarget, flags: PlanFlags): PlanResult {
  const rate = Number.isFinite(opened.target.rate) ? opened.target.rate : projectedRate;
  // Naming the account cost requests too: the plan's read cost counts them.
  return buildPlan(desired, { ...live, reads: live.reads + opened.identityReads }, registry.units, {
    target: planTargetOf(opened),
    allowReplace: flags.allowReplace,
    ...(flags.maxDeletes !== undefined ? { maxDeletes: flags.maxDeletes } : {}),
    rate,
    today: flags.today,
    ...(flags.selection ? { selection: flags.selection } : {}),
  });
}
