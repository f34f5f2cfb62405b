// Fleets beyond one machine: a fleet's targets cut into N shards, one CI job each. The cut is
// pure and depends only on the selected names in config order, so `targets --json` (which plans
// the jobs) and `--shard I/N` on every fleet command (which each job runs) agree on who is where.
// GitHub Actions runs at most 256 jobs per matrix: up to that, one target a job; beyond, the
// fewest equal shards that fit.
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

/** The names of shard I of N: contiguous, sizes differing by at most one. */
export function namesOfShard(names: readonly string[], shard: Shard): string[] {
  const from = Math.floor(((shard.index - 1) * names.length) / shard.count);
  const to = Math.floor((shard.index * names.length) / shard.count);
  return names.slice(from, to);
}

/** How many shards a matrix of `total` targets needs: one target a job while they fit. */
export function shardCountFor(total: number, maxJobs = MAX_MATRIX_JOBS): number {
  if (total <= maxJobs) return Math.max(1, total);
  return Math.ceil(total / Math.ceil(total / maxJobs));
}
