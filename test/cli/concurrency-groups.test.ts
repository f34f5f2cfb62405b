// A 1,000-store config with `concurrency: { groups: N }`: `targets --json` puts every store in one
// job of its concurrency group, and adding or removing a store moves no other store's group — the
// script a reviewer would run over `targets --json` before and after, for a group count under
// GitHub's 256 jobs a matrix and for one above it (groups folded onto 256 jobs).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

interface Job {
  shard: string;
  group: string;
  targets: string[];
  concurrencyGroups: string[];
}

let dir = '';
const names = Array.from({ length: 1000 }, (_, i) => `lojas/loja-${String(i + 1).padStart(4, '0')}`);

function writeConfig(groups: number, targets: readonly string[]): void {
  const lines = ['version: 1', `concurrency: { groups: ${groups} }`, 'targets:', ...targets.map((name) => `  ${name}: { sandbox: true, manifests: [base] }`)];
  writeFileSync(path.join(dir, 'erpsync.config.yaml'), `${lines.join('\n')}\n`);
}

/** target → its concurrency group and the job's group, from `targets --json`. */
async function groupsOf(groups: number, targets: readonly string[]): Promise<{ jobs: Job[]; group: Map<string, string>; job: Map<string, string> }> {
  writeConfig(groups, targets);
  const listed = await runCli(['targets', '--json'], { cwd: dir, env: {} });
  expect(listed.code, listed.stderr).toBe(0);
  const jobs = (JSON.parse(listed.stdout) as { include: Job[] }).include;
  const pairs = jobs.flatMap((job) => job.targets.map((target, i) => ({ target, group: job.concurrencyGroups[i] ?? '', job: job.group })));
  return { jobs, group: new Map(pairs.map((p) => [p.target, p.group])), job: new Map(pairs.map((p) => [p.target, p.job])) };
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-concurrency-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('concurrency groups of a 1,000-store fleet', () => {
  it.each([64, 1000])('with %i groups, adding or removing a store moves no other store', async (groups) => {
    const before = await groupsOf(groups, names);
    expect(before.jobs.length).toBeLessThanOrEqual(256);
    expect([...before.group.keys()].sort()).toEqual(names);
    if (groups <= 256) for (const job of before.jobs) expect(new Set(job.concurrencyGroups)).toEqual(new Set([job.group]));
    else expect(before.jobs[0]?.group).toMatch(/^erpsync-groups-\d+-of-256$/);

    const added = await groupsOf(groups, [...names.slice(0, 500), 'lojas/loja-nova', ...names.slice(500)]);
    const removed = await groupsOf(groups, names.filter((name) => name !== 'lojas/loja-0500'));
    for (const after of [added, removed]) {
      const moved = names.filter((name) => after.group.has(name) && (after.group.get(name) !== before.group.get(name) || after.job.get(name) !== before.job.get(name)));
      expect(moved).toEqual([]);
    }
    expect(added.group.get('lojas/loja-nova')).toMatch(groups === 64 ? /^erpsync-\d{2}$/ : /^erpsync-\d{4}$/);
    expect(removed.group.has('lojas/loja-0500')).toBe(false);
  });
});
