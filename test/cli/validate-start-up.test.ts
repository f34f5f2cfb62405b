// What `erpsync validate` loads decides how fast it starts (issue 16: at most twice `node -e 0`;
// the figures are in the bench, not here). This test times nothing: it runs the built CLI with a
// module-loading trace and fails when validate loads what only other commands need — the
// terminal UI (ink, react), the HTTP client (undici), ajv's schema compiler (the validators are
// generated at build time) or the emulator — or when it stops running from its bundle. And the
// bundle must answer exactly as the sources do. The other commands run from the bundle of every
// command, which the test checks too.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuiltCli } from '../reliability/support/built-cli.js';
import { runCli } from '../support/run-cli.js';

const root = path.resolve(import.meta.dirname, '../..');
const marker = 'erpsync-trace-loaded ';

/** Every ES module's URL as it loads (from the hooks thread), and every CommonJS file at exit. */
const hooks = `data:text/javascript,${encodeURIComponent(
  `import { writeSync } from 'node:fs'; export async function load(url, context, next) { writeSync(2, ${JSON.stringify(marker)} + url + '\\n'); return next(url, context); }`,
)}`;
const preload = `data:text/javascript,${encodeURIComponent(
  `import { createRequire, register } from 'node:module'; import { writeSync } from 'node:fs';
   register(${JSON.stringify(hooks)});
   process.on('exit', () => { for (const file of Object.keys(createRequire(process.cwd() + '/').cache)) writeSync(2, ${JSON.stringify(marker)} + file + '\\n'); });`,
)}`;

/** Runs node with the trace (a failing exit rejects); what it printed, and what it loaded relative to the repository. */
async function traceLoads(args: readonly string[]): Promise<{ stdout: string; loaded: string[] }> {
  const env = { ...process.env, NFSE_SENHA_PREFEITURA: 'senha-de-teste' };
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', preload, ...args], { cwd: root, env });
  const loaded = stderr
    .split('\n')
    .filter((line) => line.startsWith(marker))
    .map((line) => line.slice(marker.length).replace(/^file:\/\//, '').replace(`${root}/`, ''));
  return { stdout, loaded };
}

/** What validate must never load. */
const otherCommandsOnly = [
  /node_modules\/(ink|react|react-reconciler|yoga-layout|undici)\//,
  /node_modules\/ajv\/dist\/(ajv|core|2019|2020|compile|standalone|vocabularies)\b/,
  /^dist\/(emulator|ui|live|plan|apply|drift|export)\//,
  /^dist\/manifest\/compile-validators\.js$/,
];

const heavyIn = (loaded: readonly string[]) => loaded.filter((file) => otherCommandsOnly.some((pattern) => pattern.test(file)));

let bin: string;

beforeAll(async () => {
  bin = path.relative(root, await ensureBuiltCli());
}, 120_000);

describe('what `erpsync validate` loads', () => {
  it('runs from its bundle: of the project, only bin.js and fast-start.js load as modules, and nothing other commands need', async () => {
    const run = await traceLoads([bin, 'validate', 'examples/loja-nova']);
    expect(run.stdout).toContain('valid: 9 files');
    expect(heavyIn(run.loaded)).toEqual([]);
    expect(run.loaded.filter((file) => file.startsWith('dist/')).sort()).toEqual(['dist/cli/bin.js', 'dist/cli/fast-start.js']);
  });

  it('through the modules (a build without the bundle), the validate command graph loads nothing other commands need either', async () => {
    const script = `const { main } = await import('./dist/cli/main.js'); process.exitCode = await main(['validate', 'examples/loja-nova'], { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd(), signal: new AbortController().signal });`;
    const run = await traceLoads(['--input-type=module', '-e', script]);
    expect(run.stdout).toContain('valid: 9 files');
    expect(run.loaded).toContain('dist/cli/validate-command.js');
    expect(heavyIn(run.loaded)).toEqual([]);
  });

  it('every other command runs from the bundle of every command: no module of the project loads on its own', async () => {
    const run = await traceLoads([bin, 'plan', '--help']);
    expect(run.stdout).toContain('usage: erpsync plan');
    const project = run.loaded.filter((file) => file.startsWith('dist/'));
    expect(project.filter((file) => !/^dist\/cli\/(bin|fast-start|bundle-[\w-]+)\.js$/.test(file))).toEqual([]);
    expect(project).toContain('dist/cli/bundle-main.js');
  });

  it('answers as the sources do: the same diagnostics, summary and exit code for every broken fixture', async () => {
    const args = ['validate', 'test/fixtures/broken'];
    const env = { PATH: process.env.PATH };
    const fromSources = await runCli(args, { cwd: root, env });
    const built = await promisify(execFile)(process.execPath, [bin, ...args], { cwd: root, env }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect(fromSources.code).toBe(1);
    expect({ code: 'code' in built ? built.code : 0, stdout: built.stdout, stderr: built.stderr }).toEqual(fromSources);
  });
});
