// `targets --json` for a fleet too large for one GitHub Actions matrix: at most 256 jobs, every
// target in exactly one, and `--shard I/N` on a fleet command runs exactly the targets of job I.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

let dir = '';
const size = 1_000;
const names = Array.from({ length: size }, (_, i) => `lojas/loja-${String(i).padStart(4, '0')}`);

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-matrix-'));
  const config = ['version: 1', 'targets:', ...names.flatMap((name) => [`  ${name}:`, '    baseUrl: https://api.bling.com.br/Api/v3', `    credentials: { tokenEnv: TOKEN }`])];
  writeFileSync(path.join(dir, 'erpsync.config.yaml'), `${config.join('\n')}\n`);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Job {
  shard: string;
  group: string;
  targets: string[];
  secrets: string[];
  ipRunners?: number;
}

describe('targets --json for 1,000 targets', () => {
  it('plans at most 256 jobs, each a shard, every target exactly once', async () => {
    const run = await runCli(['targets', '--json', '--ip-runners', '4'], { cwd: dir, env: {} });
    expect(run.code, run.stderr).toBe(0);
    const { include } = JSON.parse(run.stdout) as { include: Job[] };
    expect(include.length).toBeLessThanOrEqual(256);
    expect(include.flatMap((job) => job.targets)).toEqual(names);
    expect(new Set(include.map((job) => job.group)).size).toBe(include.length);
    expect(include[0]).toMatchObject({ shard: `1/${include.length}`, ipRunners: 4, secrets: include[0]?.targets.map((t) => `BLING_CREDENTIALS_${t.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`) });
  });

  it('--shard I/N selects exactly the targets the matrix gave job I', async () => {
    const { include } = JSON.parse((await runCli(['targets', '--json'], { cwd: dir, env: {} })).stdout) as { include: Job[] };
    const job = include[41] as Job;
    // `plan` with no token variable set fails every store the same way; its table names the shard's stores.
    const run = await runCli(['plan', '--all-targets', '--shard', job.shard, '--json'], { cwd: dir, env: {} });
    const rows = (JSON.parse(run.stdout) as { rows: { target: string }[] }).rows;
    expect(rows.map((r) => r.target)).toEqual(job.targets);
    const bad = await runCli(['plan', '--all-targets', '--shard', '0/4'], { cwd: dir, env: {} });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--shard takes I/N');
  });
});
