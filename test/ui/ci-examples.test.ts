// The GitHub Actions examples stay runnable as erpsync changes: every file is YAML of the
// expected shape, every local action they use exists, and every erpsync flag they pass is one
// the command's --help lists.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../support/run-cli.js';

const root = path.resolve(import.meta.dirname, '../../examples/ci/github-actions');
const workflows = readdirSync(path.join(root, 'workflows')).map((name) => ({ name, text: readFileSync(path.join(root, 'workflows', name), 'utf8') }));

interface Step {
  uses?: string;
  run?: string;
}
interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<string, { steps: Step[] }>;
}

const steps = (text: string) => Object.values((parse(text) as Workflow).jobs).flatMap((job) => job.steps);

/** `erpsync <command> …flags` as the workflows call it. */
function invocations(text: string): { command: string; flags: string[] }[] {
  return [...text.matchAll(/npx --no-install erpsync (\w+)([^\n|>]*)/g)].map((m) => ({
    command: m[1] ?? '',
    flags: [...(m[2] ?? '').matchAll(/(?:^|\s)(--[a-z-]+)/g)].map((f) => f[1] ?? ''),
  }));
}

describe('GitHub Actions examples', () => {
  it('has the four workflows, each with triggers and steps', () => {
    expect(workflows.map((w) => w.name).sort()).toEqual(['erpsync-apply.yml', 'erpsync-drift.yml', 'erpsync-fleet.yml', 'erpsync-plan.yml']);
    const triggers = Object.fromEntries(workflows.map((w) => [w.name, Object.keys((parse(w.text) as Workflow).on)]));
    expect(triggers).toEqual({
      'erpsync-apply.yml': ['push'],
      'erpsync-drift.yml': ['schedule', 'workflow_dispatch'],
      'erpsync-fleet.yml': ['push', 'schedule', 'workflow_dispatch'],
      'erpsync-plan.yml': ['pull_request'],
    });
    for (const { text } of workflows) expect(steps(text).length).toBeGreaterThan(3);
  });

  it('restores the credentials before erpsync runs and stores them after, even on failure', () => {
    // The fleet keeps its logins in the shared backend (one secret, nothing written back).
    for (const { name, text } of workflows.filter((w) => w.name !== 'erpsync-fleet.yml')) {
      const list = steps(text) as (Step & { if?: string; name?: string; with?: Record<string, string> })[];
      const modeOf = (s: (typeof list)[number]): string | undefined => (s.uses === './.github/actions/bling-credentials' ? s.with?.mode : undefined);
      const credentialSteps = list.filter((s) => modeOf(s) !== undefined);
      expect(credentialSteps.map(modeOf), name).toEqual(['restore', 'store']);
      expect(credentialSteps[1]?.if, name).toBe('always()');
      const erpsyncRuns = list.filter((s) => s.run?.includes('erpsync') && !s.run.includes('erpsync validate'));
      const restoreAt = list.indexOf(credentialSteps[0] as Step);
      const storeAt = list.indexOf(credentialSteps[1] as Step);
      for (const run of erpsyncRuns.filter((s) => /npx --no-install erpsync (plan|apply|drift)/.test(s.run ?? ''))) {
        expect(list.indexOf(run), name).toBeGreaterThan(restoreAt);
        expect(list.indexOf(run), name).toBeLessThan(storeAt);
      }
    }
    expect(existsSync(path.join(root, 'actions/bling-credentials/action.yml'))).toBe(true);
    const action = parse(readFileSync(path.join(root, 'actions/bling-credentials/action.yml'), 'utf8')) as { runs: { using: string; steps: Step[] } };
    expect(action.runs.using).toBe('composite');
  });

  it('passes erpsync only flags that its commands know', async () => {
    const calls = workflows.flatMap((w) => invocations(w.text).map((call) => ({ ...call, file: w.name })));
    expect(calls.map((c) => c.command).sort()).toEqual(['apply', 'apply', 'drift', 'login', 'plan', 'targets', 'validate']);
    for (const call of calls) {
      const help = await runCli([call.command, '--help'], { cwd: tmpdir() });
      expect(help.code, `${call.file}: erpsync ${call.command} --help`).toBe(0);
      for (const flag of call.flags) expect(help.stdout, `${call.file}: erpsync ${call.command} ${flag}`).toContain(flag);
    }
  });

  it('keeps the exit code: each erpsync step records it and the last step exits with it', () => {
    for (const { name, text } of workflows.filter((w) => w.name !== 'erpsync-fleet.yml')) {
      const list = steps(text);
      const recording = list.filter((s) => /npx --no-install erpsync (plan|apply|drift)/.test(s.run ?? ''));
      expect(recording.length, name).toBe(1);
      expect(recording[0]?.run, name).toMatch(/set \+e[\s\S]*code=\$(\?|\{PIPESTATUS\[0\]\})[\s\S]*exitcode=\$code" >> "\$GITHUB_OUTPUT"/);
      expect(list.at(-1)?.run, name).toMatch(/exit "\$\{?CODE/);
    }
  });
});

describe('the fleet workflow on the shared backend', () => {
  const fleet = parse(readFileSync(path.join(root, 'workflows/erpsync-fleet.yml'), 'utf8')) as Workflow & { jobs: Record<string, { steps: (Step & { env?: Record<string, string>; name?: string })[] }> };
  const text = readFileSync(path.join(root, 'workflows/erpsync-fleet.yml'), 'utf8');

  it('needs one repository secret whatever the number of stores, and writes none', () => {
    expect(new Set([...text.matchAll(/secrets\.([A-Z_]+)/g)].map((m) => m[1]))).toEqual(new Set(['ERPSYNC_STATE']));
    expect(text).not.toMatch(/gh secret set|toJSON\(secrets\)/);
    expect(fleet).toMatchObject({ permissions: { contents: 'read' } });
  });

  it('loads the secret before every erpsync step of a job that reaches an account', () => {
    for (const [job, { steps: list }] of Object.entries(fleet.jobs).filter(([name]) => name !== 'targets')) {
      const loadAt = list.findIndex((s) => s.run === 'node .github/erpsync/load-state-secret.mjs');
      const erpsyncAt = list.findIndex((s) => /npx --no-install erpsync (apply|login)/.test(s.run ?? ''));
      expect(loadAt, job).toBeGreaterThan(-1);
      expect(erpsyncAt, job).toBeGreaterThan(loadAt);
    }
  });

  // The step's own script, run as the runner runs it: GITHUB_ENV a file, the secret in STATE.
  const loadState = (state: string | undefined) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-gha-'));
    const githubEnv = path.join(dir, 'env');
    writeFileSync(githubEnv, '');
    const run = spawnSync(process.execPath, [path.join(root, 'load-state-secret.mjs')], { env: { GITHUB_ENV: githubEnv, ...(state === undefined ? {} : { STATE: state }) }, encoding: 'utf8' });
    const written = readFileSync(githubEnv, 'utf8');
    rmSync(dir, { recursive: true, force: true });
    return { status: run.status, stdout: run.stdout, written };
  };

  it('masks every value of the secret before it reaches the environment of the steps after', () => {
    const state = ['ERPSYNC_DATABASE_URL=postgres://u:p4ss@db:5432/erpsync', "ERPSYNC_STATE_KEY='a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2U='", 'BLING_CLIENT_ID=app # the OAuth app', 'BLING_CLIENT_SECRET="s3cr3t"'].join('\n');
    const { status, stdout, written } = loadState(state);
    expect(status).toBe(0);
    expect(stdout.split('\n').filter(Boolean)).toEqual(['::add-mask::postgres://u:p4ss@db:5432/erpsync', '::add-mask::a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2U=', '::add-mask::app', '::add-mask::s3cr3t']);
    expect(written).toContain('ERPSYNC_DATABASE_URL<<ERPSYNC_END_OF_VALUE\npostgres://u:p4ss@db:5432/erpsync\nERPSYNC_END_OF_VALUE\n');
    expect(written).toContain('BLING_CLIENT_SECRET<<ERPSYNC_END_OF_VALUE\ns3cr3t\nERPSYNC_END_OF_VALUE\n');
  });

  it('fails the job naming what the secret lacks (a fork gets none), and prints no value', () => {
    const { status, stdout, written } = loadState('ERPSYNC_DATABASE_URL=postgres://u:p4ss@db/erpsync');
    expect(status).toBe(1);
    expect(stdout).toContain('lacks ERPSYNC_STATE_KEY, BLING_CLIENT_ID, BLING_CLIENT_SECRET');
    expect(stdout).not.toContain('p4ss');
    expect(written).toBe('');
    expect(loadState(undefined).status).toBe(1);
  });
});
