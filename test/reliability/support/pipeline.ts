// The apply pipeline of `erpsync apply`, driven in-process with the stages the CLI itself uses
// (loadManifests → read and plan → applyPlan), for runs that need a client the CLI does
// not expose: retry delays of milliseconds instead of seconds and seeded jitter, so dozens of
// chaos runs fit in the suite. Everything else (pacing, retries, redaction, create de-duplication)
// is the production code.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApiClient, createStaticTokenProvider } from '../../../src/api/index.js';
import type { ApiClient } from '../../../src/api/index.js';
import { applyPlan } from '../../../src/apply/apply-plan.js';
import { checkReadBack, describeReadBack } from '../../../src/apply/check-convergence.js';
import { verifyRequest } from '../../../src/apply/read-requests.js';
import { needsReadBack } from '../../../src/model/plan.js';
import type { Emulator } from '../../../src/emulator/index.js';
import { registry } from '../../../src/kinds/registry.js';
import { fetchLive } from '../../../src/live/fetch-live.js';
import { loadManifests } from '../../../src/manifest/load-manifests.js';
import { hasErrors } from '../../../src/model/diagnostics.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import type { PlanResult } from '../../../src/plan/build-plan.js';
import { readAndPlanWith } from '../../../src/workflows/read-and-plan.js';
import { deriveDesiredUnits, readsEveryRecord, selectUnitKinds } from '../../../src/kinds/desired-units.js';
import { renderDiagnosticsText } from '../../../src/report/diagnostics-report.js';
import type { LiveState } from '../../../src/model/live.js';
import type { DesiredState } from '../../../src/model/desired.js';
import type { Plan } from '../../../src/model/plan.js';
import type { ApplyResult } from '../../../src/model/events.js';

export async function loadDesiredOrThrow(paths: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<DesiredState> {
  const result = await loadManifests(paths, { cwd, env });
  if (!result.desired || hasErrors(result.diagnostics)) {
    throw new Error(`the manifests do not load:\n${renderDiagnosticsText(result.diagnostics).join('\n')}`);
  }
  return result.desired;
}

export interface ClientOptions {
  /** Jitter source of the retry backoff; seeded so a run replays. */
  random?: () => number;
  /** How long the client waits for an answer before giving up (the CLI's default: 30 s). */
  headersMs?: number;
}

/**
 * A client like the CLI's, with fast retries. The circuit breaker is set out of reach: at 20%
 * injected faults it would (rightly) stop a run within seconds, and these runs are about what the
 * retries, the unknown-outcome lookups and the next apply make of the faults.
 */
export function openClient(emulator: Emulator, options: ClientOptions = {}): ApiClient {
  return createApiClient({
    baseUrl: emulator.baseUrl,
    credentials: createStaticTokenProvider(emulator.token),
    rate: 1000,
    retry: { baseDelayMs: 2, maxDelayMs: 20 },
    circuit: { maxErrors: 1_000_000 },
    ...(options.random ? { random: options.random } : {}),
    ...(options.headersMs ? { timeouts: { headersMs: options.headersMs } } : {}),
  });
}

export async function readAccount(client: ApiClient, desired: DesiredState): Promise<LiveState> {
  return fetchLive(client, registry.units, {
    kinds: selectUnitKinds(desired, registry.units),
    desired: deriveDesiredUnits(desired, registry.units),
    complete: (kind) => {
      const adapter = registry.units.find((a) => a.kind === kind);
      return adapter ? readsEveryRecord(adapter, desired) : false;
    },
  });
}

function planResultFor(desired: DesiredState, live: LiveState, emulator: Emulator): PlanResult {
  return buildPlan(desired, live, registry.units, {
    target: { mode: 'remote', id: emulator.baseUrl, name: 'default', account: { id: 'test-account', nome: 'Loja Teste Ltda', cnpj: '12.345.678/0001-90' } },
    allowReplace: false,
    allowCascade: false,
    rate: 2.5,
  });
}

function planOf({ plan, diagnostics }: PlanResult): Plan {
  if (hasErrors(diagnostics)) throw new Error(`the plan has errors:\n${renderDiagnosticsText(diagnostics).join('\n')}`);
  return plan;
}

/** The plan of an account already read (no records of other kinds read for its removals). */
export function planFor(desired: DesiredState, live: LiveState, emulator: Emulator): Plan {
  return planOf(planResultFor(desired, live, emulator));
}

/** Reads the account and plans as `erpsync plan` does: reading, when a removal needs them, the records that may name what it removes. */
async function readAndPlan(client: ApiClient, desired: DesiredState, emulator: Emulator): Promise<{ live: LiveState; plan: Plan }> {
  const { live, result } = await readAndPlanWith(client, desired, (read) => planResultFor(desired, read, emulator));
  return { live, plan: planOf(result) };
}

/**
 * Writes `yaml` (after `version: 1`) as the only manifest of `dir` and reads the account for it
 * with a fresh client, which `onCleanup` is given to close; the emulator's log starts empty.
 */
export async function readForManifest(emulator: Emulator, dir: string, yaml: string, onCleanup: (close: () => Promise<void>) => void) {
  writeFileSync(join(dir, 'm.yaml'), `version: 1\n${yaml}`);
  const desired = await loadDesiredOrThrow(['m.yaml'], dir, {});
  const client = openClient(emulator);
  onCleanup(() => client.close());
  emulator.clearLog();
  return { desired, client, live: await readAccount(client, desired) };
}

/** Reads the account and plans, with a fresh client; the plan's actionable changes. */
export async function planNow(emulator: Emulator, desired: DesiredState): Promise<Plan> {
  const client = openClient(emulator);
  try {
    return (await readAndPlan(client, desired, emulator)).plan;
  } finally {
    await client.close();
  }
}

export const actionable = (plan: Plan) => plan.changes.filter((c) => c.action !== 'blocked');

export interface ApplyRun {
  /** The plan this run made, when it got that far. */
  plan?: Plan;
  result?: ApplyResult;
  /** What stopped the run before or instead of applying (a read that failed under faults). */
  error?: unknown;
}

/** One `erpsync apply --auto-approve`: read, plan, apply wave by wave. Never throws. */
export async function applyOnce(emulator: Emulator, desired: DesiredState, options: ClientOptions & { concurrency?: number; outcomeWindowMs?: number; lookupEveryMs?: number } = {}): Promise<ApplyRun> {
  const client = openClient(emulator, options);
  const run: ApplyRun = {};
  try {
    const { live, plan } = await readAndPlan(client, desired, emulator);
    run.plan = plan;
    run.result = await applyPlan(run.plan, { client, adapters: registry.units, live, concurrency: options.concurrency ?? 3, outcomeWindowMs: options.outcomeWindowMs ?? 300, lookupEveryMs: options.lookupEveryMs ?? 100 });
  } catch (error) {
    run.error = error;
  } finally {
    await client.close();
  }
  return run;
}

/** read → plan → apply → read back, as `erpsync apply` runs them; the plan, what did not converge, and the requests sent. */
export async function applyAndCount(emulator: Emulator, desired: DesiredState) {
  const client = openClient(emulator);
  try {
    emulator.clearLog();
    const live = await readAccount(client, desired);
    const plan = planFor(desired, live, emulator);
    const result = await applyPlan(plan, { client, adapters: registry.units, live });
    let notConverged: string[] = [];
    const ids = new Map(result.outcomes.map(({ change, outcome }) => [change.id, outcome.status === 'applied' ? (outcome.id ?? change.liveId) : undefined]));
    if (plan.changes.some(needsReadBack)) {
      notConverged = describeReadBack(checkReadBack(result, await fetchLive(client, registry.units, verifyRequest(plan, registry.units, live, (c) => ids.get(c.id))), registry.units)).notConverged;
    }
    return { plan, result, notConverged, log: emulator.requestLog() };
  } finally {
    await client.close();
  }
}
