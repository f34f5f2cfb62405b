// Crash: the built CLI (dist/cli/bin.js, a real process) applies the example store, or a generated
// one, against an emulator in this process and is killed with SIGKILL at a seeded point of the
// apply: the moment its k-th write reaches the server (usually committed, the answer not yet
// read), or while the server holds its k-th create (it commits after the client is gone). The
// next apply must finish the work with exit 0, a re-plan must be empty, and the account must hold
// no duplicate and nothing the plan did not list. Two more points kill an apply to the embedded
// sandbox, whose emulator lives (and persists its state file) inside the killed process.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator, EmulatorState } from '../../src/emulator/index.js';
import { runCli } from '../support/run-cli.js';
import { findChangesOutsidePlan, findDuplicates } from './support/account.js';
import { ensureBuiltCli, startCli } from './support/built-cli.js';
import { generateStore } from './support/generate-store.js';
import { actionable, applyOnce, loadDesiredOrThrow, planNow } from './support/pipeline.js';
import { createRandom } from './support/random.js';
import { example, exampleEnv, lojaNovaBefore } from './support/stores.js';

type KillMode = 'on-arrival' | 'while-held';

interface KillPoint {
  store: 'loja-nova' | 'generated';
  seed: number;
}

let emulator: Emulator | undefined;
let dir: string | undefined;

beforeAll(async () => {
  await ensureBuiltCli();
}, 120_000);

afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const writesSeen = (e: Emulator) => e.requestLog().filter((entry) => entry.method !== 'GET').length;
const heldCreate = (e: Emulator) => e.requestLog().some((entry) => entry.fault === 'latency' && entry.status === 0);

/** A lock folder of the run's own, a 3 s lease and a 2 s outcome window, instead of a minute and 30 s. */
function shortWindows(folder: string): Record<string, string> {
  return { ERPSYNC_LOCK_DIR: path.join(folder, '.locks'), ERPSYNC_LOCK_LEASE_MS: '3000', ERPSYNC_OUTCOME_WAIT: '2' };
}

/** Kills `child` with SIGKILL as soon as `ready()` holds (checked every millisecond). */
function killWhen(child: { kill(signal: NodeJS.Signals): boolean }, ready: () => boolean): () => void {
  const timer = setInterval(() => {
    if (!ready()) return;
    child.kill('SIGKILL');
    clearInterval(timer);
  }, 1);
  return () => clearInterval(timer);
}

async function crashRun({ store, seed }: KillPoint): Promise<void> {
  const random = createRandom(seed);
  emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-crash-'));
  const generated = store === 'generated' ? generateStore(seed, 0.3) : undefined;
  writeFileSync(path.join(dir, 'before.yaml'), generated?.base ?? lojaNovaBefore);
  if (generated) writeFileSync(path.join(dir, 'target.yaml'), generated.target);
  const target = generated ? path.join(dir, 'target.yaml') : example;
  expect((await applyOnce(emulator, await loadDesiredOrThrow(['before.yaml'], dir, exampleEnv))).result?.failed).toBe(0);

  const desired = await loadDesiredOrThrow([target], dir, exampleEnv);
  const before = emulator.snapshot();
  const preview = await planNow(emulator, desired);
  const creates = actionable(preview).filter((c) => c.action === 'create').length;
  const mode: KillMode = random.chance(0.5) ? 'on-arrival' : 'while-held';
  // On arrival, a few writes stay after the kill point, so the process cannot finish before the kill lands.
  const k = random.int(1, mode === 'on-arrival' ? Math.max(1, actionable(preview).length - 3) : creates);

  emulator.clearLog();
  // Paced so the k-th write is seen before the next one leaves; the held create waits long enough to be killed in.
  if (mode === 'while-held') emulator.setFaults({ latencyMs: 300, schedule: [{ method: 'POST', nth: k, fault: 'latency' }] });
  // The emulator commits a held write within a second: a short in-flight window and lease keep runs fast.
  const env = { ...exampleEnv, ...shortWindows(dir), BLING_ACCESS_TOKEN: emulator.token, ERPSYNC_BASE_URL: emulator.baseUrl, ERPSYNC_RATE: '200' };
  const running = startCli(['apply', target, '--auto-approve'], { cwd: dir, env });
  const server = emulator;
  const stop = killWhen(running.child, mode === 'on-arrival' ? () => writesSeen(server) >= k : () => heldCreate(server));
  const killed = await running.exit;
  stop();
  expect(killed.signal, `${mode} #${k}: ${killed.stdout}${killed.stderr}`).toBe('SIGKILL');
  if (mode === 'while-held') await new Promise((resolve) => setTimeout(resolve, 350));
  emulator.setFaults(undefined);

  const recovered = await runCli(['apply', target, '--auto-approve'], { cwd: dir, env: { ...env, ERPSYNC_RATE: '1000' } });
  expect(recovered.code, recovered.stdout + recovered.stderr).toBe(0);
  const replan = await runCli(['plan', target, '--detailed-exitcode'], { cwd: dir, env });
  expect(replan.code, replan.stdout).toBe(0);
  const after = emulator.snapshot();
  expect(findDuplicates(after)).toEqual([]);
  expect(findChangesOutsidePlan(before, after, [preview])).toEqual([]);
}

const points: KillPoint[] = [
  ...Array.from({ length: 10 }, (_, i): KillPoint => ({ store: 'loja-nova', seed: 401 + i })),
  ...Array.from({ length: 4 }, (_, i): KillPoint => ({ store: 'generated', seed: 501 + i })),
];

/** Kills a sandbox apply a seeded time after it starts; the state file must load and the next apply converge. */
async function sandboxCrashRun(seed: number): Promise<void> {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-crash-'));
  // Paced so the apply lasts over a second, and the kill lands inside it.
  const env = { ...exampleEnv, ...shortWindows(dir), ERPSYNC_RATE: '50' };
  const running = startCli(['apply', example, '--sandbox', '--auto-approve'], { cwd: dir, env });
  const timer = setTimeout(() => running.child.kill('SIGKILL'), createRandom(seed).int(400, 900));
  const killed = await running.exit;
  clearTimeout(timer);
  expect(killed.signal, killed.stdout + killed.stderr).toBe('SIGKILL');

  const recovered = await runCli(['apply', example, '--sandbox', '--auto-approve'], { cwd: dir, env: { ...env, ERPSYNC_RATE: '1000' } });
  expect(recovered.code, recovered.stdout + recovered.stderr).toBe(0);
  expect((await runCli(['plan', example, '--sandbox', '--detailed-exitcode'], { cwd: dir, env })).code).toBe(0);
  const saved = JSON.parse(readFileSync(path.join(dir, '.erpsync/sandbox.json'), 'utf8')) as { state: EmulatorState };
  expect(findDuplicates(saved.state)).toEqual([]);
}

describe('SIGKILL during apply, then apply again', () => {
  it.each(points)('$store, seed $seed', (point) => crashRun(point));
  it.each([601, 602])('the sandbox, seed %i', (seed) => sandboxCrashRun(seed));
});
