// Scenario folders: `before/` manifests are applied to a fresh sandbox first (when present), then
// `erpsync plan` runs on `manifests/`; its text and JSON output must equal the golden files.
// `scenario.json` may give extra plan arguments and environment variables.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

const root = fileURLToPath(new URL('./', import.meta.url));
const scenarios = readdirSync(root, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

interface ScenarioConfig {
  args?: string[];
  env?: Record<string, string>;
  /** Environment of the `before/` apply, when it differs (e.g. an older secret). */
  beforeEnv?: Record<string, string>;
}

describe('plan scenarios', () => {
  it('has at least 20 scenarios', () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(20);
  });

  it.each(scenarios)('%s', async (name) => {
    const cwd = `${root}${name}`;
    const config: ScenarioConfig = existsSync(`${cwd}/scenario.json`) ? (JSON.parse(readFileSync(`${cwd}/scenario.json`, 'utf8')) as ScenarioConfig) : {};
    const env = { ...config.env };
    const state = ['--sandbox', '--sandbox-state', '.erpsync/state.json'];
    rmSync(`${cwd}/.erpsync`, { recursive: true, force: true });
    try {
      if (existsSync(`${cwd}/before`)) {
        const setup = await runCli(['apply', 'before', '--auto-approve', ...state], { cwd, env: { ...env, ...config.beforeEnv } });
        expect(setup.stderr).toBe('');
        expect(setup.code).toBe(0);
      }
      const text = await runCli(['plan', 'manifests', ...state, ...(config.args ?? [])], { cwd, env });
      await expect(`# exit ${text.code}\n${text.stdout}${text.stderr ? `# stderr\n${text.stderr}` : ''}`).toMatchFileSnapshot(`${cwd}/plan.txt`);
      const json = await runCli(['plan', 'manifests', '--json', ...state, ...(config.args ?? [])], { cwd, env });
      const normalized = json.stdout.replaceAll(cwd, '<scenario>');
      await expect(normalized).toMatchFileSnapshot(`${cwd}/plan.json`);
    } finally {
      rmSync(`${cwd}/.erpsync`, { recursive: true, force: true });
    }
  });
});
