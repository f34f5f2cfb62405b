// A fleet run: one baseline applied (or planned, or checked for drift) across many targets, one
// row per store. Plain data, so text, JSON and Markdown render the same facts.
import type { AccountIdentity } from './account.js';
import { exitCodes } from './errors.js';
import type { ExitCode } from './errors.js';

/** `check`: `erpsync targets --check`, which only names each target's account. */
export type FleetCommand = 'plan' | 'apply' | 'drift' | 'check';

export interface FleetRow {
  target: string;
  /** Absent when the store failed before its account could be read. */
  account?: AccountIdentity;
  /** Actionable changes planned (plan, apply) or drifted records (drift). */
  changes: number;
  /** Blocked changes in the store's plan (plan, apply): never sent; an apply that holds any exits 1. */
  blocked?: number;
  /** Changes written (apply only). */
  applied?: number;
  /** Changes that failed or did not converge (apply only). */
  failed?: number;
  /** What stopped this store, in one line; the others went on. */
  error?: string;
  /** The stage of a staged apply the store belongs to (`canary`, `wave 1` …). */
  stage?: string;
  /** Why a staged apply did not reach this store (it halted); nothing was written to it. */
  skipped?: string;
  exitCode: ExitCode;
  seconds: number;
}

export interface FleetReport {
  command: FleetCommand;
  rows: FleetRow[];
  exitCode: ExitCode;
  seconds: number;
}

/**
 * The fleet's exit code is the worst of its stores': an error (1) over a refusal (3) over changes
 * or drift (2) over nothing to do (0) — a failed store must not hide behind one that only refused.
 */
export function worstExitCode(codes: readonly ExitCode[]): ExitCode {
  const rank: Record<ExitCode, number> = { [exitCodes.ok]: 0, [exitCodes.changes]: 1, [exitCodes.refused]: 2, [exitCodes.error]: 3 };
  return codes.reduce<ExitCode>((worst, code) => (rank[code] > rank[worst] ? code : worst), exitCodes.ok);
}
