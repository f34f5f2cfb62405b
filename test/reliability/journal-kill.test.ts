// Twenty applies of the built CLI (a real process) killed with SIGKILL at seeded moments — as the
// k-th write reaches the account, or while the account holds the k-th create, which it commits
// after the process is gone — each followed by `plan --revert` of the killed run and the apply of
// that plan. The killed run's journal holds the intent of every write it may have sent; the revert
// settles what it left unknown (waiting out what may still commit) and undoes it: after each, the
// account is exactly as it was before the killed apply — no record of the run left, no other
// record touched. One account serves all twenty, each run making records of its own beside
// untouched ones and updating the same payment method.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator, EmulatorState } from '../../src/emulator/index.js';
import { parseJournalRun } from '../../src/state/journal-evidence.js';
import { runCli } from '../support/run-cli.js';
import { ensureBuiltCli, startCli } from './support/built-cli.js';
import { createRandom } from './support/random.js';

let emulator: Emulator;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  await ensureBuiltCli();
  emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-journal-kill-'));
  // A short lease and a 1 s outcome window: a run that died is taken over, and waited out, quickly.
  env = { BLING_ACCESS_TOKEN: emulator.token, ERPSYNC_BASE_URL: emulator.baseUrl, ERPSYNC_RATE: '1000', ERPSYNC_LOCK_DIR: path.join(dir, '.locks'), ERPSYNC_LOCK_LEASE_MS: '600', ERPSYNC_OUTCOME_WAIT: '1' };
  writeFileSync(path.join(dir, 'base.yaml'), manifest(1, []));
  const base = await runCli(['apply', 'base.yaml', '--auto-approve'], { cwd: dir, env });
  expect(base.code, base.stdout + base.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A payment method and a group every run leaves alone or updates, and the records of run `run` (none for the base). */
function manifest(juros: number, own: readonly string[]): string {
  return `version: 1
formasPagamentos:
  - descricao: Boleto da loja
    tipoPagamento: boleto
    finalidade: recebimentos
    destino: contas
    juros: ${juros}
gruposProdutos:
  - nome: Intocado
${own.map((name) => `  - nome: ${name}\n`).join('')}categoriasProdutos:
  - descricao: Base
${own.map((name) => `  - descricao: ${name}\n    categoriaPai: Base\n`).join('')}`;
}

/** Every record of the account: what must be exactly as before once a killed run is reverted. */
function records(state: EmulatorState): Omit<EmulatorState, 'nextId'> {
  const { nextId: _nextId, ...rest } = state;
  return rest;
}

const writesSeen = () => emulator.requestLog().filter((entry) => entry.method !== 'GET').length;
const heldCreate = () => emulator.requestLog().some((entry) => entry.fault === 'late-commit' && entry.status === 0);

async function killRevert(seed: number): Promise<void> {
  const random = createRandom(seed);
  const own = Array.from({ length: random.int(2, 4) }, (_, i) => `Run ${seed} item ${i + 1}`);
  writeFileSync(path.join(dir, 'm.yaml'), manifest(random.int(2, 9), own));
  const before = records(emulator.snapshot());
  // The plan's own requests (a change carried in another's request sends none): the kill lands among them.
  const preview = await runCli(['plan', 'm.yaml', '--json'], { cwd: dir, env });
  const sent = (JSON.parse(preview.stdout) as { changes: { action: string; carriedBy?: string }[] }).changes.filter((c) => c.carriedBy === undefined);
  const held = random.chance(0.5);
  const k = random.int(1, held ? sent.filter((c) => c.action === 'create').length : sent.length - 1);
  emulator.clearLog();
  // Held: the k-th create is committed 300 ms after it arrives, the process long gone by then.
  if (held) emulator.setFaults({ holdMs: 300, schedule: [{ method: 'POST', nth: k, fault: 'late-commit' }] });
  const running = startCli(['apply', 'm.yaml', '--auto-approve', '--concurrency', '1'], { cwd: dir, env: { ...env, ERPSYNC_RATE: '100' } });
  const timer = setInterval(() => {
    if (held ? heldCreate() : writesSeen() >= k) running.child.kill('SIGKILL');
  }, 1);
  const killed = await running.exit;
  clearInterval(timer);
  emulator.setFaults(undefined);
  expect(killed.signal, `seed ${seed} (${held ? 'held' : 'on arrival'} #${k}): ${killed.stdout}${killed.stderr}`).toBe('SIGKILL');

  const run = readdirSync(path.join(dir, '.erpsync/journal')).sort().at(-1)?.replace(/\.jsonl$/, '') ?? '';
  const killedRun = parseJournalRun(readFileSync(path.join(dir, '.erpsync/journal', `${run}.jsonl`), 'utf8'), run);
  expect(killedRun?.status).toBe('interrupted');
  // The held create was announced and never answered: its outcome is unknown until the revert settles it.
  if (held) expect(killedRun?.changes.filter((c) => c.outcome === 'unknown').map((c) => c.action)).toEqual(['create']);
  const planned = await runCli(['plan', '--revert', run, '--out', 'revert.json'], { cwd: dir, env });
  expect(planned.code, `seed ${seed}: ${planned.stdout}${planned.stderr}`).toBe(0);
  expect(planned.stdout).not.toContain('conflict');
  const settled = JSON.parse((await runCli(['history', run, '--json'], { cwd: dir, env })).stdout) as { unknown: number };
  expect(settled.unknown).toBe(0);
  const reverted = await runCli(['apply', 'revert.json', '--auto-approve'], { cwd: dir, env });
  expect(reverted.code, `seed ${seed}: ${reverted.stdout}${reverted.stderr}`).toBe(0);
  expect(records(emulator.snapshot()), `seed ${seed} (${held ? 'held' : 'on arrival'} #${k})`).toEqual(before);
}

describe('applies killed with SIGKILL, then reverted from the journal', () => {
  it.each(Array.from({ length: 20 }, (_, i) => 701 + i))('seed %i', (seed) => killRevert(seed));
});
