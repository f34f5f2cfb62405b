// Saved plans: `plan --out plan.json` writes one, `apply plan.json` reads it back. A saved plan
// holds no secret values (only the variables they come from) and refuses to run when the records
// it touches changed since it was made.
import type { DesiredUnit, KindAdapter, LiveRecord } from '../kinds/adapter.js';
import type { LiveState } from '../live/model.js';
import { ErpsyncError } from '../model/errors.js';
import { pathSeparator } from '../model/names.js';
import { fingerprintOf } from './build-plan.js';
import type { Change, Plan, UnitKind } from './model.js';
import { isPlainRecord, writePath } from '../model/paths.js';



/** Parses a saved plan and puts the secret values back from the environment. */
export function parsePlanFile(text: string, file: string, env: NodeJS.ProcessEnv): Plan {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ErpsyncError('PLAN_INVALID', `${file} is not a saved plan: it is not valid JSON`, { cause: error });
  }
  if (!isPlainRecord(value) || value.formatVersion !== 1 || !Array.isArray(value.changes) || !isPlainRecord(value.fingerprints) || !isPlainRecord(value.target)) {
    throw new ErpsyncError('PLAN_INVALID', `${file} is not a saved plan of this erpsync version (formatVersion 1 expected)`);
  }
  const plan = value as unknown as Plan;
  const missing = new Set<string>();
  const changes = plan.changes.map((change): Change => {
    if (!change.secrets || !change.desired) return change;
    let desired = change.desired;
    for (const [path, variable] of Object.entries(change.secrets)) {
      const secret = env[variable];
      if (secret === undefined || secret === '') missing.add(variable);
      else desired = writePath(desired, path.split('.'), secret);
    }
    return { ...change, desired };
  });
  if (missing.size > 0) {
    throw new ErpsyncError('PLAN_INVALID', `the plan needs the environment variable(s) ${[...missing].sort().join(', ')} for its secret fields`);
  }
  return { ...plan, changes };
}

/** Units that make adapters read exactly what the plan read: the changed records, with their desired fields. */
export function unitsForRecheck(plan: Plan): Map<UnitKind, DesiredUnit[]> {
  const units = new Map<UnitKind, DesiredUnit[]>();
  for (const change of plan.changes) {
    if (change.action === 'blocked' || (!change.desired && change.liveId === undefined)) continue;
    // Removals carry no desired fields; a unit with none still tells the adapter where to read.
    const unit: DesiredUnit = {
      kind: change.kind,
      identity: change.key,
      name: change.key.split(pathSeparator).pop() ?? change.key,
      fields: change.desired ?? {},
      tool: { ...(change.liveId !== undefined ? { id: change.liveId } : {}), ensure: 'present', protect: false, previousNames: [] },
      locate: () => ({ file: 'plan', line: 1, col: 1 }),
    };
    units.set(change.kind, [...(units.get(change.kind) ?? []), unit]);
  }
  return units;
}

/** Unit kinds to read again: those with changes, and the kinds they nest in. */
export function kindsForRecheck(plan: Plan, adapters: readonly KindAdapter[]): UnitKind[] {
  const needed = new Set<UnitKind>(plan.changes.filter((c) => c.action !== 'blocked').map((c) => c.kind));
  for (const adapter of adapters) if (needed.has(adapter.kind) && adapter.nestedIn) needed.add(adapter.nestedIn);
  return adapters.filter((a) => needed.has(a.kind)).map((a) => a.kind);
}

/** What changed in the account since the plan was made; empty when the plan is still valid. */
export function findStaleRecords(plan: Plan, live: LiveState): string[] {
  const stale: string[] = [];
  const find = (kind: UnitKind, id: number): LiveRecord | undefined => (live.records.get(kind) ?? []).find((r) => r.id === id);
  const readKinds = new Set(live.records.keys());
  for (const [key, fingerprint] of Object.entries(plan.fingerprints)) {
    const separator = key.lastIndexOf(':');
    const kind = key.slice(0, separator) as UnitKind;
    if (!readKinds.has(kind)) continue;
    const record = find(kind, Number(key.slice(separator + 1)));
    if (!record) stale.push(`${kind} id ${key.slice(separator + 1)} no longer exists`);
    else if (fingerprintOf(record) !== fingerprint) stale.push(`${kind} "${record.identity}" (id ${record.id}) changed since the plan was made`);
  }
  for (const entry of plan.absent) {
    const separator = entry.indexOf(':');
    const kind = entry.slice(0, separator) as UnitKind;
    const identity = entry.slice(separator + 1);
    const record = (live.records.get(kind) ?? []).find((r) => r.identity === identity);
    if (record) stale.push(`${kind} "${identity}" now exists (id ${record.id}); the plan would create it again`);
  }
  return stale;
}
