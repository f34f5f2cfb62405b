// Staged rollouts of a fleet apply: which stores go in which stage (a canary set, then waves), and
// when to stop. Pure: the rollout is the config's for the target group (`rollouts:` in
// erpsync.config.yaml, by a glob every selected store matches) with the command line's flags over
// it, cut into stages once; the fleet workflow applies stage after stage and halts here.
import { targetGlob } from '../api/index.js';
import type { RolloutConfig, TargetsConfig } from '../api/index.js';
import { ErpsyncError } from '../model/errors.js';
import type { FleetRow } from '../model/fleet.js';

export interface RolloutFlags {
  canary?: string | undefined;
  'wave-size'?: string | undefined;
  'halt-after'?: string | undefined;
}

export interface Rollout {
  stages: Stage[];
  /** Failed stores that halt the rollout. */
  haltAfter: number;
}

export interface Stage {
  /** `canary`, `wave 1`, `wave 2` … */
  label: string;
  names: string[];
}

/** The rollout of these stores, or undefined when neither the config's group nor a flag asks for stages. */
export function planRollout(names: readonly string[], config: TargetsConfig | undefined, flags: RolloutFlags): Rollout | undefined {
  const group = Object.entries(config?.rollouts ?? {}).find(([pattern]) => names.length > 0 && names.every((name) => targetGlob(pattern).test(name)))?.[1];
  const fromFlags: RolloutConfig = {
    ...(flags.canary !== undefined ? { canary: /^\d+$/.test(flags.canary.trim()) ? Number(flags.canary) : flags.canary } : {}),
    ...(flags['wave-size'] !== undefined ? { waveSize: readPositive(flags['wave-size'], '--wave-size') } : {}),
    ...(flags['halt-after'] !== undefined ? { haltAfter: readPositive(flags['halt-after'], '--halt-after') } : {}),
  };
  if (!group && Object.keys(fromFlags).length === 0) return undefined;
  const rollout: RolloutConfig = { ...group, ...fromFlags };
  return { stages: cutStages(names, rollout), haltAfter: rollout.haltAfter ?? 1 };
}

/** Canary first (in the fleet's order), then the rest in waves of `waveSize`. */
export function cutStages(names: readonly string[], rollout: RolloutConfig): Stage[] {
  const canary = canaryOf(names, rollout.canary);
  const rest = names.filter((name) => !canary.includes(name));
  const size = rollout.waveSize ?? Math.max(1, rest.length);
  const stages: Stage[] = canary.length > 0 ? [{ label: 'canary', names: canary }] : [];
  for (let from = 0, wave = 1; from < rest.length; from += size, wave += 1) stages.push({ label: `wave ${wave}`, names: rest.slice(from, from + size) });
  return stages;
}

function canaryOf(names: readonly string[], canary: RolloutConfig['canary']): string[] {
  if (canary === undefined) return [];
  if (typeof canary === 'number') return names.slice(0, canary);
  const patterns = (Array.isArray(canary) ? canary : canary.split(',')).map((p) => p.trim()).filter((p) => p !== '');
  const chosen = names.filter((name) => patterns.some((p) => targetGlob(p).test(name)));
  if (chosen.length === 0) throw new ErpsyncError('USAGE', `the canary ${patterns.join(', ')} selects none of the fleet's stores`, { details: [`the fleet: ${names.slice(0, 10).join(', ')}${names.length > 10 ? ' …' : ''}`] });
  return chosen;
}

/** Whether a store's row counts as failed toward the halt. */
export function isFailedRow(row: FleetRow): boolean {
  return row.error !== undefined || (row.failed ?? 0) > 0 || row.exitCode === 1 || row.exitCode === 3;
}

function readPositive(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new ErpsyncError('USAGE', `${flag} takes a whole number ≥ 1, not \`${text}\``);
  return n;
}
