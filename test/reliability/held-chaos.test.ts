// Held writes: 20% of the creates meet a server that commits after the client gave up
// (late-commit) or answers only after the client gave up (slow-response). Apply must look the
// record up over its outcome window instead of sending the create again: zero duplicates, and the
// account converges within two applies. The client gives up after about a second (undici's timer
// resolution), the server holds for 1.5 s, the window is 4 s. Runs are independent accounts, so
// they run side by side (they mostly wait).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import { findChangesOutsidePlan, findDuplicates } from './support/account.js';
import { generateStore } from './support/generate-store.js';
import { actionable, applyOnce, loadDesiredOrThrow, planNow } from './support/pipeline.js';
import { example, exampleEnv as env, lojaNovaBefore } from './support/stores.js';

const holdMs = 1_500;

async function heldRun(store: 'loja-nova' | 'generated', seed: number): Promise<void> {
  const emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
  const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-held-'));
  try {
    const generated = store === 'generated' ? generateStore(seed, 0.6) : undefined;
    writeFileSync(path.join(dir, 'before.yaml'), generated?.base ?? lojaNovaBefore);
    expect((await applyOnce(emulator, await loadDesiredOrThrow(['before.yaml'], dir, env))).result?.failed).toBe(0);
    if (generated) writeFileSync(path.join(dir, 'target.yaml'), generated.target);
    const desired = await loadDesiredOrThrow([generated ? path.join(dir, 'target.yaml') : example], dir, env);
    const before = emulator.snapshot();
    const preview = await planNow(emulator, desired);

    emulator.clearLog();
    emulator.setFaults({ probability: 0.2, seed, kinds: ['late-commit', 'slow-response'], methods: ['POST'], holdMs });
    const first = await applyOnce(emulator, desired, { headersMs: 200, outcomeWindowMs: 4_000, lookupEveryMs: 250 });
    const held = emulator.requestLog().filter((e) => e.fault).length;
    expect(held, 'held writes were injected').toBeGreaterThan(0);
    const unknown = first.result?.outcomes.filter((o) => o.outcome.status === 'failed' && o.outcome.code === 'API_OUTCOME_UNKNOWN') ?? [];
    expect(unknown.map((o) => o.change.id), 'every held create was found within the window').toEqual([]);
    await delay(holdMs);
    emulator.setFaults(undefined);

    const second = await applyOnce(emulator, desired);
    expect(second.result?.failed).toBe(0);
    expect(actionable(await planNow(emulator, desired)).map((c) => c.id), 're-plan after two applies').toEqual([]);
    const after = emulator.snapshot();
    expect(findDuplicates(after)).toEqual([]);
    expect(findChangesOutsidePlan(before, after, [preview])).toEqual([]);
  } finally {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const runs = Array.from({ length: 30 }, (_, i) => ({ store: i % 3 === 2 ? ('generated' as const) : ('loja-nova' as const), seed: 501 + i }));

describe.concurrent('held writes (late commit, slow response) on 20% of creates', () => {
  it.each(runs)('$store, seed $seed', ({ store, seed }) => heldRun(store, seed), 120_000);
});
