// Fleets beyond one machine: a fleet's targets cut into N shards, one CI job each. The cut is
// pure, so `targets --json` (which plans the jobs) and `--shard I/N` on every fleet command (which
// each job runs) agree on who is where. GitHub Actions runs at most 256 jobs per matrix.
// Without `concurrency:` in the config the cut depends on the selected names in config order: up
// to 256, one target a job; beyond, the fewest equal shards that fit. With `concurrency: { groups:
// N }` every target belongs to one of N concurrency groups by a hash of its own name alone, so
// adding or removing a target never moves another: shard I of N is group I, and a job per group
// (groups folded onto 256 jobs when there are more) keeps one CI concurrency group across runs.
import { createHash } from 'node:crypto';
import { ErpsyncError } from '../model/errors.js';

/** GitHub Actions' limit on the jobs of one matrix. */
export const MAX_MATRIX_JOBS = 256;

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

/** `I/N`, 1 ≤ I ≤ N. */
export function parseShard(text: string): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index < 1 || index > count) {
    throw new ErpsyncError('USAGE', `--shard takes I/N with 1 ≤ I ≤ N (e.g. 3/8), not \`${text}\``);
  }
  return { index, count };
}

/**
 * The names of shard I of N: contiguous, sizes differing by at most one; with concurrency groups,
 * the names whose group is I modulo N (shard I of `groups` is exactly group I).
 */
export function namesOfShard(names: readonly string[], shard: Shard, groups?: number): string[] {
  if (groups !== undefined) return shardsByGroup(names, shard.count, groups)[shard.index - 1] ?? [];
  const from = Math.floor(((shard.index - 1) * names.length) / shard.count);
  const to = Math.floor((shard.index * names.length) / shard.count);
  return names.slice(from, to);
}

/** How many shards a matrix of `total` targets needs: one target a job while they fit. */
export function shardCountFor(total: number, maxJobs = MAX_MATRIX_JOBS): number {
  if (total <= maxJobs) return Math.max(1, total);
  return Math.ceil(total / Math.ceil(total / maxJobs));
}

/** The concurrency group of a target, 1…groups: sha256 of its name modulo the groups, nothing else. */
export function concurrencyGroupOf(name: string, groups: number): number {
  // 48 bits of the digest: an exact integer, and no group favoured beyond one part in 10^11.
  return (createHash('sha256').update(name, 'utf8').digest().readUIntBE(0, 6) % groups) + 1;
}

/** `erpsync-07`: a group's name, numbered from 01 (as wide as the largest). */
export function concurrencyGroupName(group: number, groups: number): string {
  return `erpsync-${String(group).padStart(Math.max(2, String(groups).length), '0')}`;
}

/** Every shard of `count` with concurrency groups: shard I holds the names whose group is I modulo `count` (each name hashed once). */
export function shardsByGroup(names: readonly string[], count: number, groups: number): string[][] {
  const shards = Array.from({ length: count }, (): string[] => []);
  for (const name of names) shards[(concurrencyGroupOf(name, groups) - 1) % count]?.push(name);
  return shards;
}

/** The jobs of a matrix cut by concurrency groups: one per group, folded onto the matrix's limit beyond it. */
export function groupJobCountFor(groups: number, maxJobs = MAX_MATRIX_JOBS): number {
  return Math.min(groups, maxJobs);
}
