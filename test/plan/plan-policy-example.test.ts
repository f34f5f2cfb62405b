// The policy check of examples/ci/policy, run as a pipeline runs it (node, a saved plan): it
// denies the golden plans that delete or retire a payment method and allows the others.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const check = (scenario: string) => spawnSync(process.execPath, [`${root}examples/ci/policy/check-plan.mjs`, `${root}test/scenarios/${scenario}/plan.json`], { encoding: 'utf8' });

describe('examples/ci/policy/check-plan.mjs', () => {
  it.each(['05-formas-tombstone', '06-formas-retire-by-policy'])('fails the pipeline on %s, naming the payment method', (scenario) => {
    const run = check(scenario);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^denied: the plan would (delete|retire) the payment method "/);
  });

  it.each(['01-formas-create', '16-grupos-prune-budget'])('lets %s through', (scenario) => {
    const run = check(scenario);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^ok: \d+ change\(s\), no payment method removed/);
  });
});
