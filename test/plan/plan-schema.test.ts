// schemas/plan.schema.json against real plans: every golden plan.json of the scenario folders
// (what `plan --json` printed), and the refusals a policy check relies on (an unknown action,
// a missing checksum, a key the schema does not know). A golden that is empty belongs to a
// scenario whose plan was refused (its manifests do not plan): there is no plan to check.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const scenariosDir = `${root}test/scenarios/`;
const goldens = readdirSync(scenariosDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && readdirSync(`${scenariosDir}${entry.name}`).includes('plan.json'))
  .map((entry) => entry.name)
  .filter((name) => readFileSync(`${scenariosDir}${name}/plan.json`, 'utf8').trim() !== '')
  .sort();

/** The published file, compiled as a pipeline's validator would load it. */
function compilePlanSchema() {
  const schema = JSON.parse(readFileSync(`${root}schemas/plan.schema.json`, 'utf8')) as object;
  return new Ajv2020({ strict: true, allErrors: true }).compile(schema);
}

const validate = compilePlanSchema();
const readGolden = (name: string) => JSON.parse(readFileSync(`${scenariosDir}${name}/plan.json`, 'utf8')) as Record<string, unknown>;

describe('schemas/plan.schema.json', () => {
  it('covers every scenario folder that has a golden plan', () => {
    expect(goldens.length).toBeGreaterThanOrEqual(35);
  });

  it.each(goldens)('accepts the golden plan of %s', (name) => {
    expect(validate(readGolden(name)), JSON.stringify(validate.errors)).toBe(true);
  });

  it('refuses what a policy check must not take for a plan', () => {
    const plan = readGolden('31-grupos-saved-plan-budget');
    const changes = plan.changes as Record<string, unknown>[];
    const { checksum: _, ...unsigned } = plan;
    expect(validate(unsigned)).toBe(false);
    expect(validate({ ...plan, changes: [{ ...changes[0], action: 'destroy' }] })).toBe(false);
    expect(validate({ ...plan, surprise: true })).toBe(false);
    expect(validate({ ...plan, selection: { only: ['gruposProdutos'], exclude: [], addedDependencies: [] } })).toBe(true);
    expect(validate({ ...plan, selection: { only: ['gruposProdutos'] } })).toBe(false);
  });
});
