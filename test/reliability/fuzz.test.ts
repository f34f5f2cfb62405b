// Hostile input: a mutation fuzzer over every valid manifest of the project (the examples and the
// scenario manifests). Each case runs `erpsync validate` (text or --json) with credentials of a
// live emulator in the environment, then `erpsync plan` against it. No case may crash or print a
// stack trace, every diagnostic must point at file:line:col inside the case's files, and an
// invalid case must not send a single request. ERPSYNC_FUZZ_CASES (default
// 2,000) and ERPSYNC_FUZZ_SEED replay or extend the run: `npm run fuzz` runs 50,000.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { loadManifests } from '../../src/manifest/load-manifests.js';
import { hasErrors } from '../../src/model/diagnostics.js';
import { runCli } from '../support/run-cli.js';
import { mutateManifest } from './support/mutate.js';
import { createRandom } from './support/random.js';

const cases = Number(process.env.ERPSYNC_FUZZ_CASES ?? 2000);
const baseSeed = Number(process.env.ERPSYNC_FUZZ_SEED ?? 1);
const batchSize = 250;
const root = path.resolve(import.meta.dirname, '../..');

interface Source {
  file: string;
  text: string;
  /** The other files of its manifest set, sometimes added unchanged to exercise cross-file checks. */
  siblings: string[];
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/** The valid manifests among the examples' and scenarios' YAML files (CI workflows and the like are not manifests). */
async function readCorpus(): Promise<Source[]> {
  const candidates = [...yamlFiles(path.join(root, 'examples')), ...yamlFiles(path.join(root, 'test/scenarios'))];
  const corpus: Source[] = [];
  for (const file of candidates) {
    const loaded = await loadManifests([file], { cwd: root, env: variables, offline: true });
    if (hasErrors(loaded.diagnostics)) continue;
    const siblings = yamlFiles(path.dirname(file)).filter((f) => f !== file && path.dirname(f) === path.dirname(file));
    corpus.push({ file, text: readFileSync(file, 'utf8'), siblings });
  }
  return corpus;
}

const diagnosticLine = /^(?<file>[^\n]+?):(?<line>\d+):(?<col>\d+): (error|warning|note): [a-z0-9-]+: /;
const stackTrace = /^\s+at .+:\d+:\d+\)?$/m;

/** A control character other than the line feed, raw in text output: input driving the terminal. */
function rawControl(text: string): string | undefined {
  for (const c of text) {
    const code = c.codePointAt(0) ?? 0;
    if (c !== '\n' && (code < 0x20 || (code >= 0x7f && code <= 0x9f))) return `U+${code.toString(16).padStart(4, '0')}`;
  }
  return undefined;
}

/** The variables the corpus uses, set in every case (a mutation may still reach an unset one). */
const variables = { NFSE_SENHA_PREFEITURA: 'fuzz-password', NFSE_LOGIN_PREFEITURA: 'fuzz-login' };
let corpus: Source[] = [];
let emulator: Emulator;
let work: string;
/** Warnings the process emitted (a library printing to stderr on its own); the mutator itself emits none. */
const processWarnings: string[] = [];
const collectWarning = (warning: Error) => processWarnings.push(warning.message);
const tally = { cases: 0, valid: 0, invalid: 0, diagnostics: 0 };

beforeAll(async () => {
  corpus = await readCorpus();
  emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
  process.on('warning', collectWarning);
  work = mkdtempSync(path.join(tmpdir(), 'erpsync-fuzz-'));
});

afterAll(async () => {
  process.off('warning', collectWarning);
  await emulator.close();
  rmSync(work, { recursive: true, force: true });
  console.info(`fuzz: ${tally.cases} cases (${tally.valid} still valid, ${tally.invalid} invalid), ${tally.diagnostics} diagnostics checked`);
});

/** Lines of each case file, to check that diagnostics point inside them. */
type CaseFiles = Map<string, number>;

function checkPosition(files: CaseFiles, file: string, line: number, col: number): string | undefined {
  const lineCount = files.get(file);
  if (lineCount === undefined) return `diagnostic names ${file}, not a file of the case`;
  if (!(line >= 1 && line <= lineCount + 1)) return `line ${line} is outside ${file} (${lineCount} lines)`;
  if (!(col >= 1)) return `column ${col} is not a column`;
  return undefined;
}

async function runCase(index: number): Promise<void> {
  const seed = baseSeed * 1_000_003 + index;
  const random = createRandom(seed);
  const source = random.pick(corpus);
  const dir = path.join(work, `case-${seed}`);
  mkdirSync(dir);
  const files: CaseFiles = new Map();
  const mutated = mutateManifest(random, source.text);
  writeFileSync(path.join(dir, 'a-mutated.yaml'), mutated);
  files.set('a-mutated.yaml', mutated.toString('latin1').split('\n').length);
  if (source.siblings.length > 0 && random.chance(0.3)) {
    for (const [i, sibling] of source.siblings.entries()) {
      const text = readFileSync(sibling, 'utf8');
      writeFileSync(path.join(dir, `b-${i}.yaml`), text);
      files.set(`b-${i}.yaml`, text.split('\n').length);
    }
  }
  const replay = `case ${index} (ERPSYNC_FUZZ_SEED=${baseSeed}, seed ${seed}, from ${path.relative(root, source.file)}):\n${mutated.toString('utf8').slice(0, 1500)}`;
  const env = {
    ...variables,
    BLING_ACCESS_TOKEN: emulator.token,
    ERPSYNC_BASE_URL: emulator.baseUrl,
    ERPSYNC_RATE: '1000',
  };

  emulator.clearLog();
  const json = random.chance(0.5);
  const validated = await runCli(['validate', '.', ...(json ? ['--json'] : [])], { cwd: dir, env });
  const problems: string[] = [];
  if (validated.code !== 0 && validated.code !== 1) problems.push(`validate exited ${validated.code}`);
  if (stackTrace.test(validated.stdout + validated.stderr) || /internal error/.test(validated.stderr)) problems.push(`validate crashed:\n${validated.stderr}`);
  if (json) {
    const report = JSON.parse(validated.stdout) as { diagnostics: { file: string | null; line: number | null; col: number | null; code: string }[] };
    for (const d of report.diagnostics) {
      tally.diagnostics += 1;
      const problem = d.file === null || d.line === null || d.col === null ? `${d.code} has no position` : checkPosition(files, d.file, d.line, d.col);
      if (problem) problems.push(problem);
    }
  } else {
    const control = rawControl(validated.stdout + validated.stderr);
    if (control) problems.push(`raw control character ${control} in the text output`);
    for (const line of `${validated.stdout}${validated.stderr}`.split('\n')) {
      if (line === '' || line.startsWith('    hint: ') || /^(valid|invalid): /.test(line)) continue;
      tally.diagnostics += 1;
      const match = diagnosticLine.exec(line);
      const problem = match?.groups ? checkPosition(files, match.groups.file ?? '', Number(match.groups.line), Number(match.groups.col)) : `not a file:line:col diagnostic: ${JSON.stringify(line)}`;
      if (problem) problems.push(problem);
    }
  }
  if (emulator.requestLog().length > 0) problems.push('validate sent requests');

  if (validated.code === 0) {
    tally.valid += 1;
    // Still valid: the plan runs against the account (a fresh one; plans write nothing) and must
    // end in a plan or in diagnostics, never in a crash.
    const planned = await runCli(['plan', '.'], { cwd: dir, env });
    if (planned.code !== 0 && planned.code !== 1) problems.push(`plan of a valid case exited ${planned.code}:\n${planned.stderr}`);
    if (stackTrace.test(planned.stdout + planned.stderr) || /internal error/.test(planned.stderr)) problems.push(`plan crashed:\n${planned.stderr}`);
    const control = rawControl(planned.stdout + planned.stderr);
    if (control) problems.push(`raw control character ${control} in the plan output`);
  } else {
    tally.invalid += 1;
    const planned = await runCli(['plan', '.'], { cwd: dir, env });
    if (planned.code !== 1) problems.push(`plan of an invalid case exited ${planned.code}`);
    if (stackTrace.test(planned.stdout + planned.stderr) || /internal error/.test(planned.stderr)) problems.push(`plan crashed:\n${planned.stderr}`);
    const sent = emulator.requestLog();
    if (sent.length > 0) problems.push(`plan of an invalid case sent ${sent.length} request(s): ${sent.map((e) => `${e.method} ${e.path}`).join(', ')}`);
  }
  // Process warnings arrive on a later tick.
  await new Promise((resolve) => setImmediate(resolve));
  problems.push(...processWarnings.splice(0).map((message) => `a process warning reached stderr: ${message}`));
  tally.cases += 1;
  rmSync(dir, { recursive: true, force: true });
  expect(problems, replay).toEqual([]);
}

const batches = Array.from({ length: Math.ceil(cases / batchSize) }, (_, b) => ({ from: b * batchSize, to: Math.min(cases, (b + 1) * batchSize) }));

describe('mutation fuzzer over the valid manifests of the project', () => {
  it('has a corpus of examples and scenario manifests', () => {
    // examples/loja-nova/politica.yaml prunes kinds it does not declare: on its own it is refused.
    expect(corpus.filter((s) => s.file.includes('/examples/')).length).toBeGreaterThanOrEqual(7);
    expect(corpus.filter((s) => s.file.includes('/test/scenarios/')).length).toBeGreaterThanOrEqual(40);
  });

  it.each(batches)('cases $from–$to', async ({ from, to }) => {
    for (let index = from; index < to; index += 1) await runCase(index);
  }, 120_000);
});
