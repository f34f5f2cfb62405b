import { it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import { applyPlan } from '../../src/apply/apply-plan.js';
import { verifyRequest } from '../../src/apply/read-requests.js';
import { registry } from '../../src/kinds/registry.js';
import { fetchLive } from '../../src/live/fetch-live.js';
import { needsReadBack } from '../../src/model/plan.js';
import { loadDesiredOrThrow, openClient, planFor, readAccount } from '../reliability/support/pipeline.js';

it('counts', async () => {
  const emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
  const desired = await loadDesiredOrThrow(['examples/loja-nova'], process.cwd(), { NFSE_SENHA_PREFEITURA: 'demo' });
  for (const round of [1, 2]) {
    const client = openClient(emulator);
    emulator.clearLog();
    const live = await readAccount(client, desired);
    const plan = planFor(desired, live, emulator);
    const nReads = emulator.requestLog().length;
    const result = await applyPlan(plan, { client, adapters: registry.units, live });
    const nWrites = emulator.requestLog().length - nReads;
    if (plan.changes.some(needsReadBack)) await fetchLive(client, registry.units, verifyRequest(plan, registry.units, live));
    const log = emulator.requestLog();
    const by = new Map<string, number>();
    for (const e of log) { const k = `${e.method} ${e.path.replace(/\/\d+/g, '/{id}')}`; by.set(k, (by.get(k) ?? 0) + 1); }
    console.log(`round ${round}: changes=${plan.changes.length} cost=${JSON.stringify(plan.cost)} sent=${log.length} reads=${nReads} writes=${nWrites} failed=${result.failed}`);
    console.log([...by].map(([k, v]) => `${v}\t${k}`).join('\n'));
    await client.close();
  }
  await emulator.close();
});
