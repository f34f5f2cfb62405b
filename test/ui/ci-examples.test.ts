// The GitHub Actions examples stay runnable as erpsync changes: every file is YAML of the
// expected shape, every local action they use exists, and every erpsync flag they pass is one
// the command's --help lists.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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
      'erpsync-fleet.yml': ['push', 'workflow_dispatch'],
      'erpsync-plan.yml': ['pull_request'],
    });
    for (const { text } of workflows) expect(steps(text).length).toBeGreaterThan(3);
  });

  it('restores the credentials before erpsync runs and stores them after, even on failure', () => {
    for (const { name, text } of workflows) {
      const list = steps(text) as (Step & { if?: string; name?: string; with?: Record<string, string> })[];
      // The fleet workflow's jobs hold several stores (a shard): it restores and stores each file in steps of its own.
      const modeOf = (s: (typeof list)[number]): string | undefined =>
        s.uses === './.github/actions/bling-credentials' ? s.with?.mode : /^Restore each store's credentials/.test(s.name ?? '') ? 'restore' : /^Store the rotated refresh tokens/.test(s.name ?? '') ? 'store' : undefined;
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
    expect(calls.map((c) => c.command).sort()).toEqual(['apply', 'apply', 'drift', 'plan', 'targets', 'validate']);
    for (const call of calls) {
      const help = await runCli([call.command, '--help'], { cwd: tmpdir() });
      expect(help.code, `${call.file}: erpsync ${call.command} --help`).toBe(0);
      for (const flag of call.flags) expect(help.stdout, `${call.file}: erpsync ${call.command} ${flag}`).toContain(flag);
    }
  });

  it('keeps the exit code: each erpsync step records it and the last step exits with it', () => {
    for (const { name, text } of workflows) {
      const list = steps(text);
      const recording = list.filter((s) => /npx --no-install erpsync (plan|apply|drift)/.test(s.run ?? ''));
      expect(recording.length, name).toBe(1);
      expect(recording[0]?.run, name).toMatch(/set \+e[\s\S]*code=\$(\?|\{PIPESTATUS\[0\]\})[\s\S]*exitcode=\$code" >> "\$GITHUB_OUTPUT"/);
      expect(list.at(-1)?.run, name).toMatch(/exit "\$\{?CODE/);
    }
  });
});
