// Scenario folders: `before/` manifests are applied to a fresh sandbox first (when present), then
// `erpsync plan` runs on `manifests/`; its text and JSON output must equal the golden files.
// `scenario.json` may give extra plan arguments, environment variables, other manifest paths, and
// a saved-plan flow: the plan is saved with --out, `between/` is applied behind its back (as a
// person in the ERP would), the file may be tampered with, then `apply <plan> --auto-approve`
// must print the golden `apply.txt`. A refused apply (exit 3) must leave the account as it was;
// a successful one must leave nothing to plan but the blocked changes it named (exit 1 then). After every apply (before/, between/, the saved
// plan) the account must differ from before by exactly the plan's changes (expectChangedAsPlanned).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/model/fingerprint.js';
import type { EmulatorState } from '../../src/emulator/index.js';
import type { Plan } from '../../src/model/plan.js';
import { findChangesOutsidePlan, findDanglingReferences, findDeletesNotMade } from '../reliability/support/account.js';
import type { CliRun } from '../support/run-cli.js';
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
  /** What `plan` is given instead of `manifests` (e.g. one file of the set). */
  manifests?: string[];
  savedPlan?: {
    /** Folder of manifests applied after the plan was saved; default `between` (when present). */
    between?: string;
    tamper?: keyof typeof tampering;
    /** Apply must refuse (exit 3). */
    refused?: boolean;
  };
}

type SavedPlan = Plan & { checksum: string };

/** Hand edits of a saved plan, as someone might make them. */
const tampering = {
  /** Drops the first sent change's fingerprint of its own record, and re-computes the checksum as erpsync does. */
  'drop-self-precondition': ({ checksum: _, ...plan }: SavedPlan): SavedPlan => {
    const change = plan.changes.find((c) => c.action !== 'blocked' && c.requires.some((p) => p.type === 'record' && p.role === 'self'));
    if (!change) throw new Error('no change with a self precondition to drop');
    change.requires = change.requires.filter((p) => !(p.type === 'record' && p.role === 'self'));
    return { ...plan, checksum: createHash('sha256').update(canonicalJson(plan)).digest('hex') };
  },
  /** Changes the first change's first new value, leaving the checksum as it was. */
  'edit-value': (plan: SavedPlan): SavedPlan => {
    const field = plan.changes[0]?.fields[0];
    if (!field) throw new Error('no field value to edit');
    field.after = `${String(field.after)} (edited)`;
    return plan;
  },
};

const sha256 = (value: unknown) => createHash('sha256').update(canonicalJson(value)).digest('hex');

/**
 * `plan --json` as its golden file holds it. The scenario's folder and the account's id (every new
 * state file is an account with an id of its own) become placeholders; the checksum erpsync printed
 * is checked first, then recomputed over the placeholders, so the golden is still a whole plan.
 */
function goldenPlanJson(stdout: string, cwd: string, accountId: string): string {
  const text = stdout.replaceAll(cwd, '<scenario>').replaceAll(accountId, '<account-id>');
  let printed: { checksum?: unknown };
  try {
    printed = JSON.parse(stdout) as { checksum?: unknown };
  } catch {
    return text;
  }
  const { checksum, ...plan } = printed;
  if (typeof checksum !== 'string') return text;
  expect(checksum).toBe(sha256(plan));
  const { checksum: _, ...normalized } = JSON.parse(text) as { checksum: string };
  return text.replace(checksum, sha256(normalized));
}

/**
 * The check after every apply of a whole plan (exit 0): the account differs from before by exactly
 * the plan's changes — nothing it does not list was created, changed or deleted (a situation's
 * transitions dropped with it, a store link gone with its category), every delete it lists
 * happened, and no record was left naming one that is gone (a custom field's grouping). Creates
 * and changes it lists are checked by the apply's own read-back and the re-plan.
 */
function expectChangedAsPlanned(before: EmulatorState, after: EmulatorState, plan: Plan): void {
  const dangling = new Set(findDanglingReferences(before));
  const orphaned = findDanglingReferences(after).filter((found) => !dangling.has(found));
  expect([...findChangesOutsidePlan(before, after, [plan]), ...findDeletesNotMade(after, [plan]), ...orphaned]).toEqual([]);
}

const exitText = (run: CliRun) => `# exit ${run.code}\n${run.stdout}${run.stderr ? `# stderr\n${run.stderr}` : ''}`;

describe('plan scenarios', () => {
  it('has at least 20 scenarios', () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(20);
  });

  it.each(scenarios)('%s', async (name) => {
    const cwd = `${root}${name}`;
    const config: ScenarioConfig = existsSync(`${cwd}/scenario.json`) ? (JSON.parse(readFileSync(`${cwd}/scenario.json`, 'utf8')) as ScenarioConfig) : {};
    // The apply lock lives in the scenario's own folder, so runs (and other checkouts) never refuse each other.
    const env = { ERPSYNC_LOCK_DIR: `${cwd}/.erpsync/locks`, ...config.env };
    const state = ['--sandbox', '--sandbox-state', '.erpsync/state.json'];
    const manifests = config.manifests ?? ['manifests'];
    const planFile = '.erpsync/plan.json';
    const run = (args: string[], runEnv = env) => runCli([...args, ...state], { cwd, env: runEnv });
    const account = () => (JSON.parse(readFileSync(`${cwd}/.erpsync/state.json`, 'utf8')) as { state: EmulatorState }).state;
    // Set-up folders are applied through a saved plan, so the check after it knows the whole plan.
    const applyManifests = async (folder: string, runEnv = env) => {
      const setupPlan = `.erpsync/${folder}.plan.json`;
      expect((await run(['plan', folder, '--out', setupPlan], runEnv)).code).toBe(0);
      const before = account();
      const setup = await run(['apply', setupPlan, '--auto-approve'], runEnv);
      expect(setup.stderr).toBe('');
      expect(setup.code).toBe(0);
      expectChangedAsPlanned(before, account(), JSON.parse(readFileSync(`${cwd}/${setupPlan}`, 'utf8')) as Plan);
    };
    rmSync(`${cwd}/.erpsync`, { recursive: true, force: true });
    try {
      if (existsSync(`${cwd}/before`)) await applyManifests('before', { ...env, ...config.beforeEnv });
      const saveArgs = config.savedPlan ? ['--out', planFile] : [];
      const text = await run(['plan', ...manifests, ...saveArgs, ...(config.args ?? [])]);
      await expect(exitText(text)).toMatchFileSnapshot(`${cwd}/plan.txt`);
      const json = await run(['plan', ...manifests, '--json', ...(config.args ?? [])]);
      const accountId = account().empresa.id;
      await expect(goldenPlanJson(json.stdout, cwd, accountId)).toMatchFileSnapshot(`${cwd}/plan.json`);
      if (!config.savedPlan) return;

      const { between = 'between', tamper, refused } = config.savedPlan;
      if (existsSync(`${cwd}/${between}`)) await applyManifests(between);
      if (tamper) {
        const saved = tampering[tamper](JSON.parse(readFileSync(`${cwd}/${planFile}`, 'utf8')) as SavedPlan);
        writeFileSync(`${cwd}/${planFile}`, `${JSON.stringify(saved, null, 2)}\n`);
      }
      const accountBefore = account();
      const saved = JSON.parse(readFileSync(`${cwd}/${planFile}`, 'utf8')) as SavedPlan;
      const applied = await run(['apply', planFile, '--auto-approve']);
      const timing = /in \d+:\d\d \([\d.]+ req\/s\)/g; // how long it took varies from run to run
      await expect(exitText(applied).replace(timing, 'in <time>')).toMatchFileSnapshot(`${cwd}/apply.txt`);
      if (refused) {
        expect(applied.code).toBe(3);
        expect(account()).toEqual(accountBefore);
      } else {
        // Blocked changes are never sent: the rest applies and the apply exits 1 naming them; a re-plan holds only them.
        const blocked = saved.changes.filter((c) => c.action === 'blocked').map((c) => c.key);
        expect(applied.code).toBe(blocked.length > 0 ? 1 : 0);
        expectChangedAsPlanned(accountBefore, account(), saved);
        const replan = await run(['plan', ...manifests, '--json', ...(config.args ?? [])]);
        expect((JSON.parse(replan.stdout) as Plan).changes.map((c) => `${c.action} ${c.key}`)).toEqual(blocked.map((key) => `blocked ${key}`));
      }
    } finally {
      rmSync(`${cwd}/.erpsync`, { recursive: true, force: true });
    }
  });
});
