// A server that disappears after the eighth write: the eighth create commits, its answer never
// comes (the server is gone before it sends it), and no later request reaches anything: the apply
// stops at the ninth, which could not connect, and sends nothing more. The journal holds the intent
// of every write that was sent; once the server is back, `history` settles the eighth by reading
// the account — applied, with the id the account gave it — shows each write's true outcome, and
// the revert removes every record the run created, and nothing else.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { groupNamesOf, groupsManifest } from '../support/account.js';
import { eventually } from '../support/eventually.js';
import { runCli } from '../support/run-cli.js';

let emulator: Emulator | undefined;
let dir: string | undefined;

afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface ShownChange {
  key: string;
  outcome: string;
  id?: number;
  resolvedAt?: string;
}

describe('the server gone after the eighth write', () => {
  // The client's retries of what cannot connect take their time (about 5 s a request): a minute at most.
  it('history shows each write as it came out once settled, and the revert removes all the run created', { timeout: 60_000 }, async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'erpsync-lost-server-'));
    dir = folder;
    const stateFile = path.join(folder, 'account.json');
    const first = await createEmulator({ seed: 'fresh', rateLimit: 0, stateFile });
    emulator = first;
    const { port } = new URL(first.baseUrl);
    const env = { BLING_ACCESS_TOKEN: first.token, ERPSYNC_BASE_URL: first.baseUrl, ERPSYNC_RATE: '1000', ERPSYNC_LOCK_DIR: path.join(folder, '.locks'), ERPSYNC_OUTCOME_WAIT: '0' };
    const names = Array.from({ length: 12 }, (_, i) => `Grupo ${String(i + 1).padStart(2, '0')}`);
    writeFileSync(path.join(folder, 'm.yaml'), groupsManifest(names));
    const before = groupNamesOf(first);

    // The eighth create commits and its answer is held back; the server goes away meanwhile.
    first.setFaults({ holdMs: 60_000, schedule: [{ method: 'POST', nth: 8, fault: 'slow-response' }] });
    const applying = runCli(['apply', 'm.yaml', '--auto-approve', '--concurrency', '1'], { cwd: folder, env });
    await eventually(() => expect(first.requestLog().filter((e) => e.method === 'POST' && e.status !== 0)).toHaveLength(8));
    await first.close();
    emulator = undefined;
    const applied = await applying;
    expect(applied.code, applied.stdout + applied.stderr).toBe(1);
    expect(applied.stderr).toMatch(/could not connect after \d+ attempts/);
    expect(applied.stderr).not.toMatch(/internal error|this is a bug/);

    // Back, with the account as the server left it.
    const back = await createEmulator({ rateLimit: 0, stateFile, port: Number(port), token: first.token });
    emulator = back;
    expect(groupNamesOf(back)).toEqual([...before, ...names.slice(0, 8)].sort());
    const run = readdirSync(path.join(folder, '.erpsync/journal')).sort().at(-1)?.replace(/\.jsonl$/, '') ?? '';

    const shown = await runCli(['history', run, '--json'], { cwd: folder, env });
    expect(shown.code, shown.stderr).toBe(0);
    const { changes } = JSON.parse(shown.stdout) as { changes: ShownChange[] };
    const ids = new Map(back.snapshot().gruposProdutos.map((g) => [g.nome, g.id]));
    const outcomes = names.map((name, i) => [name, i < 8 ? 'applied' : i === 8 ? 'failed' : 'skipped', i < 8 ? (ids.get(name) ?? -1) : null]);
    expect(changes.map((c) => [c.key, c.outcome, c.id ?? null])).toEqual(outcomes);
    expect(changes.filter((c) => c.resolvedAt !== undefined).map((c) => c.key)).toEqual([names[7]]);
    const text = await runCli(['history', run], { cwd: folder, env });
    expect(text.stdout).toMatch(new RegExp(`^applied  create gruposProdutos "${names[7]}" \\(id ${ids.get(names[7] ?? '')}\\) — its answer was lost; the account holds it .*\\[settled by reading the account\\]$`, 'm'));
    // Settled once: the resolution is in the run now, and shown without a read of the account.
    back.clearLog();
    expect((await runCli(['history', run], { cwd: folder, env })).stdout).toBe(text.stdout);
    expect(back.requestLog()).toEqual([]);

    const revert = await runCli(['plan', '--revert', run, '--out', 'revert.json'], { cwd: folder, env });
    expect(revert.code, revert.stdout + revert.stderr).toBe(0);
    expect(revert.stdout).not.toContain('conflict');
    const reverted = await runCli(['apply', 'revert.json', '--auto-approve'], { cwd: folder, env });
    expect(reverted.code, reverted.stdout + reverted.stderr).toBe(0);
    expect(groupNamesOf(back)).toEqual(before);
  });
});
