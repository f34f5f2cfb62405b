// Files in a manifest folder that are not manifests: a link to /dev/zero (endless bytes), a FIFO
// (a read that never ends), a symbolic-link loop, a 50 MB file, a folder nested too deep, too
// many files. Each must end in a diagnostic naming the path, without reading what is behind it,
// in little memory. The built CLI runs in a child process that counts what it reads (Linux's
// /proc/self/io) and samples its own memory (resident set) while it works, so a regression shows
// as a number; a read that never ends shows as this test's timeout.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { findManifestFiles, maxDepth, maxManifestFiles } from '../../src/manifest/find-files.js';
import { ensureBuiltCli } from '../reliability/support/built-cli.js';

const valid = 'version: 1\ngruposProdutos:\n  - nome: Maquiagem\n';
/** Well under the 8 MiB a manifest may have, and far under what the hostile entries hold. */
const readLimitBytes = 1024 * 1024;
/** A generous bound for a 2-core CI machine; the target is well under 200 MB. */
const memoryLimitBytes = 200 * 1024 * 1024;

let root: string;
let mainModule: string;

/** What the child reports: the exit code, its output, the bytes `validate` read, how long it took and its peak resident memory. */
interface Measured {
  code: number;
  output: string;
  bytesRead: number;
  ms: number;
  peakRss: number;
}

// The child runs `erpsync validate` once on a plain folder (so the code it loads on first use is
// loaded), then on the folder given, counting the bytes read and sampling its memory every 10 ms.
const childScript = `
import { readFileSync } from 'node:fs';
const { main } = await import(process.argv[1]);
const bytesReadSoFar = () => Number(/^rchar: (\\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))[1]);
const lines = [];
const sink = { write(chunk) { lines.push(String(chunk)); return true; }, isTTY: false };
const validate = (folder) => main(['validate', folder], { stdout: sink, stderr: sink, stdin: process.stdin, env: {}, cwd: process.argv[3], signal: new AbortController().signal });
await validate(process.argv[4]);
lines.length = 0;
let peak = process.memoryUsage().rss;
const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 10);
const readBefore = bytesReadSoFar();
const started = performance.now();
const code = await validate(process.argv[2]);
const ms = performance.now() - started;
const bytesRead = bytesReadSoFar() - readBefore;
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
process.stdout.write(JSON.stringify({ code, output: lines.join(''), bytesRead, ms, peakRss: peak }));
process.exit(0);
`;

async function validateInChild(folder: string): Promise<Measured> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', childScript, mainModule, folder, root, path.join(root, 'plain')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // A read that never ends holds the child until this test times out; then it is killed.
  onTestFinished(() => void child.kill('SIGKILL'));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  expect(code, `the child ended (${stderr})`).toBe(0);
  return JSON.parse(stdout) as Measured;
}

/** A folder with one valid manifest beside the hostile entry. */
function folderWith(name: string, make: (dir: string) => void): string {
  const dir = path.join(root, name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'a-valid.yaml'), valid);
  make(dir);
  return dir;
}

const figures: string[] = [];

beforeAll(async () => {
  mainModule = pathToFileURL(path.join(path.dirname(await ensureBuiltCli()), 'main.js')).href;
  root = mkdtempSync(path.join(tmpdir(), 'erpsync-hostile-files-'));
  mkdirSync(path.join(root, 'plain'));
  writeFileSync(path.join(root, 'plain', 'a-valid.yaml'), valid);
}, 120_000);

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  console.info(`hostile files: ${figures.join('; ')}`);
});

const cases: { name: string; make: (dir: string) => void; expected: RegExp }[] = [
  { name: 'dev-zero', make: (dir) => symlinkSync('/dev/zero', path.join(dir, 'zero.yaml')), expected: /^dev-zero\/zero\.yaml:1:1: error: not-a-regular-file: the symbolic link leads to a character device/m },
  { name: 'fifo', make: (dir) => execFileSync('mkfifo', [path.join(dir, 'pipe.yaml')]), expected: /^fifo\/pipe\.yaml:1:1: error: not-a-regular-file: the path is a named pipe \(FIFO\)/m },
  {
    name: 'link-loop',
    make: (dir) => {
      symlinkSync('loop-b.yaml', path.join(dir, 'loop-a.yaml'));
      symlinkSync('loop-a.yaml', path.join(dir, 'loop-b.yaml'));
    },
    expected: /^link-loop\/loop-a\.yaml:1:1: error: unreadable: the symbolic link leads in a loop/m,
  },
  {
    name: 'fifty-mb',
    make: (dir) => {
      writeFileSync(path.join(dir, 'big.yaml'), valid);
      truncateSync(path.join(dir, 'big.yaml'), 50 * 1024 * 1024);
    },
    expected: /^fifty-mb\/big\.yaml:1:1: error: file-too-large: the file is larger than 8 MiB/m,
  },
];

describe('files in a manifest folder that are not manifests', () => {
  for (const { name, make, expected } of cases) {
    it(`${name}: a diagnostic naming the path, without reading it, in little memory`, async () => {
      const measured = await validateInChild(folderWith(name, make));
      figures.push(`${name} ${Math.round(measured.bytesRead / 1024)} KB read in ${Math.round(measured.ms)} ms, peak ${Math.round(measured.peakRss / 1024 / 1024)} MB`);
      expect(measured.output).toMatch(expected);
      expect(measured.code).toBe(1);
      expect(measured.bytesRead).toBeLessThan(readLimitBytes);
      expect(measured.peakRss).toBeLessThan(memoryLimitBytes);
    });
  }

  it('refuses a folder nested deeper than the limit, and one holding too many files', async () => {
    const deep = path.join(root, 'deep');
    let inner = deep;
    for (let level = 0; level <= maxDepth + 1; level += 1) inner = path.join(inner, `n${level}`);
    mkdirSync(inner, { recursive: true });
    writeFileSync(path.join(inner, 'm.yaml'), valid);
    const nested = await findManifestFiles(['deep'], root);
    expect(nested.files).toEqual([]);
    expect(nested.diagnostics.map((d) => `${d.code} ${d.position?.file ?? ''}`)).toEqual([`too-deep deep/${Array.from({ length: maxDepth + 1 }, (_, i) => `n${i}`).join('/')}`]);

    const many = path.join(root, 'many');
    mkdirSync(many);
    for (let i = 0; i <= maxManifestFiles; i += 1) writeFileSync(path.join(many, `f${String(i).padStart(5, '0')}.yaml`), valid);
    const crowded = await findManifestFiles(['many'], root);
    expect(crowded.files).toHaveLength(maxManifestFiles);
    expect(crowded.diagnostics.map((d) => `${d.code} ${d.position?.file ?? ''}`)).toEqual(['too-many-files many']);
  });

  it('follows a link to a regular file, and refuses a path named on the command line that is not one', async () => {
    const dir = folderWith('links', (d) => symlinkSync('a-valid.yaml', path.join(d, 'b-link.yaml')));
    const found = await findManifestFiles(['links'], root);
    expect(found.files.map((f) => path.relative(root, f))).toEqual(['links/a-valid.yaml', 'links/b-link.yaml']);
    expect(found.diagnostics).toEqual([]);
    execFileSync('mkfifo', [path.join(dir, 'named.fifo')]);
    const named = await findManifestFiles(['links/named.fifo'], root);
    expect(named.diagnostics.map((d) => `${d.position?.file ?? ''}: ${d.code}: ${d.message}`)).toEqual([
      'links/named.fifo: not-a-regular-file: the path is a named pipe (FIFO), not a file; only regular files are read',
    ]);
  });
});
