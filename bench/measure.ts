// How the bench measures one run: an emulated account opened from a seed, the built CLI
// (dist/cli/bin.js) run against it over HTTP as a user runs it, the peer script run against
// another, and what the emulator's request log says each one sent. A second client sharing the
// account's limit (the "neighbour") is a plain GET once a second with the same token, marked in
// its query so the log tells its requests from erpsync's.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEmulator } from '../src/emulator/index.js';
import type { Emulator, RequestLogEntry } from '../src/emulator/index.js';
import type { DesiredState } from '../src/model/desired.js';
import type { PlanCost } from '../src/model/plan.js';
import { syncLikeAScript } from './peer-sync.js';

const root = process.cwd();
export const bin = path.join(root, 'dist/cli/bin.js');

/** The account's real limit (src/emulator/rate-limit.ts defaults to it). */
export const accountLimit = 3;
const neighbourMarker = 'vizinho=1';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
}

/**
 * Runs the built CLI in its own process with only `env` (and PATH); wall time from spawn to exit.
 * `nodeArgs` replaces the CLI's script (`['-e', '0']` times node alone).
 */
export function runBuiltCli(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string, nodeArgs: readonly string[] = [bin]): Promise<CliRun> {
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, ...args], { cwd, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr, wallMs: performance.now() - started }));
  });
}

export interface Account {
  emulator: Emulator;
  dir: string;
  /** What points erpsync at this account. */
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/** A new emulated account from `seed` (`fresh` or a seed file) with the limit at `rateLimit` (0 = off). */
export async function openAccount(seed: string, rateLimit: number): Promise<Account> {
  const emulator = await createEmulator({ seed, rateLimit });
  const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-bench-account-'));
  return {
    emulator,
    dir,
    env: { BLING_ACCESS_TOKEN: emulator.token, ERPSYNC_BASE_URL: emulator.baseUrl, ERPSYNC_LOCK_DIR: path.join(dir, '.locks') },
    close: async () => {
      await emulator.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether `erpsync plan` finds nothing to change on the account (limit switched off for it). */
export async function planIsClean(account: Account, manifests: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  account.emulator.setRateLimit(0);
  const plan = await runBuiltCli(['plan', manifests, '--detailed-exitcode'], { ...account.env, ...env, ERPSYNC_RATE: '100000' }, account.dir);
  if (plan.code !== 0 && plan.code !== 2) throw new Error(`erpsync plan failed (exit ${plan.code}): ${plan.stderr.slice(0, 2000)}`);
  return plan.code === 0;
}

const isNeighbour = (entry: RequestLogEntry) => entry.query.includes(neighbourMarker);

/** Requests per route template (`GET /formas-pagamentos/{idFormaPagamento}`), or method and path where none matched. */
function countByRoute(log: readonly RequestLogEntry[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entry of log) {
    const key = entry.route ?? `${entry.method} ${entry.path}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

export interface ApplyRun {
  requests: number;
  writes: number;
  throttled: number;
  /** Requests answered with an error other than 429. */
  errors: number;
  /** The apply's own plan: reads + writes + verification reads it predicted. */
  predicted: number;
  wallMs: number;
  /** From erpsync's first request to its last, as the emulator logged them. */
  spanMs: number;
  exit: number | null;
  failed: number;
  converged: boolean;
  neighbour?: { sent: number; throttled: number };
  routes: Record<string, number>;
}

interface ApplyEvent {
  type: string;
  cost?: PlanCost;
  failed?: number;
}

function readApplyEvents(stdout: string): { predicted: number; failed: number } {
  const events = stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as ApplyEvent);
  const cost = events.find((e) => e.type === 'plan')?.cost;
  if (!cost) throw new Error('erpsync apply --json printed no plan event');
  return { predicted: cost.reads + cost.writes + (cost.verifyReads ?? 0), failed: events.find((e) => e.type === 'apply-end')?.failed ?? 0 };
}

/** A client that sends one GET a second through the account's token until stopped. */
function startNeighbour(account: Account): () => { sent: number; throttled: number } {
  const tally = { sent: 0, throttled: 0 };
  const url = `${account.emulator.baseUrl}/empresas/me/dados-basicos?${neighbourMarker}`;
  const timer = setInterval(() => {
    tally.sent += 1;
    fetch(url, { headers: { Authorization: `Bearer ${account.env.BLING_ACCESS_TOKEN ?? ''}` } })
      .then(async (response) => {
        if (response.status === 429) tally.throttled += 1;
        await response.arrayBuffer();
      })
      .catch(() => undefined);
  }, 1_000);
  return () => {
    clearInterval(timer);
    return tally;
  };
}

/** One `erpsync apply <dir> --auto-approve` at the account's real limit and erpsync's default pace. */
export async function measureApply(seed: string, manifests: string, env: NodeJS.ProcessEnv, options: { neighbour: boolean }): Promise<ApplyRun> {
  const account = await openAccount(seed, accountLimit);
  try {
    const stopNeighbour = options.neighbour ? startNeighbour(account) : undefined;
    const applied = await runBuiltCli(['apply', manifests, '--auto-approve', '--json'], { ...account.env, ...env }, account.dir);
    const neighbour = stopNeighbour?.();
    const log = account.emulator.requestLog().filter((entry) => !isNeighbour(entry));
    const events = readApplyEvents(applied.stdout);
    return {
      requests: log.length,
      writes: log.filter((e) => e.method !== 'GET').length,
      throttled: log.filter((e) => e.status === 429).length,
      errors: log.filter((e) => e.status >= 400 && e.status !== 429).length,
      predicted: events.predicted,
      wallMs: applied.wallMs,
      spanMs: (log.at(-1)?.at ?? 0) - (log[0]?.at ?? 0),
      exit: applied.code,
      failed: events.failed,
      converged: applied.code === 0 && (await planIsClean(account, manifests, env)),
      ...(neighbour ? { neighbour } : {}),
      routes: countByRoute(log),
    };
  } finally {
    await account.close();
  }
}

export interface PeerRun {
  requests: number;
  writes: number;
  /** Why the peer stopped, when it did. */
  error?: string;
  /** `erpsync plan` on the account afterwards finds nothing to change. */
  reachesNoChange: boolean;
  routes: Record<string, number>;
}

/** The peer script once, with the limit off (its requests do not depend on pacing). */
export async function measurePeer(seed: string, manifests: string, desired: DesiredState, env: NodeJS.ProcessEnv): Promise<PeerRun> {
  const account = await openAccount(seed, 0);
  try {
    let error: string | undefined;
    try {
      await syncLikeAScript(desired, { token: account.emulator.token, baseUrl: account.emulator.baseUrl });
    } catch (caught) {
      // The SDK's errors carry the API's answer as `response`.
      const answer = (caught as { response?: unknown }).response;
      error = `${(caught as Error).message}${answer ? ` ${JSON.stringify(answer)}` : ''}`;
    }
    const log = account.emulator.requestLog();
    return {
      requests: log.length,
      writes: log.filter((e) => e.method !== 'GET').length,
      ...(error ? { error } : {}),
      routes: countByRoute(log),
      reachesNoChange: await planIsClean(account, manifests, env),
    };
  } finally {
    await account.close();
  }
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? (sorted[middle] ?? Number.NaN) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spreadOf(values: readonly number[]): Spread {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}
