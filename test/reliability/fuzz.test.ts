// Hostile input: a mutation fuzzer over every valid manifest of the project (the examples and the
// scenario manifests). Each case runs `erpsync validate` (text or --json) with credentials of a
// live emulator in the environment, then `erpsync plan` against it. Cases also set variables
// whose values are YAML syntax or passwords, and now and then put a file that is no manifest in
// the folder (a FIFO, a link to /dev/zero, a link loop, a broken link, a link to a folder). No
// case may crash or print a stack trace, every diagnostic must point at file:line:col inside the
// case's files, an invalid case must not send a single request, and no output may show the
// value of a secret or credential variable. ERPSYNC_FUZZ_CASES (default
// 2,000) and ERPSYNC_FUZZ_SEED replay or extend the run: `npm run fuzz` runs 50,000.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { loadManifests } from '../../src/manifest/load-manifests.js';
import { hasErrors } from '../../src/model/diagnostics.js';
import { runCli } from '../support/run-cli.js';
import { leakForms, leaksIn } from './support/leaks.js';
import { mutateManifest, pickVariableValues } from './support/mutate.js';
import type { Random } from './support/random.js';
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
const variables = { NFSE_SENHA_PREFEITURA: 'fuzz-password', ERPSYNC_VAR_NFSE_LOGIN_PREFEITURA: 'fuzz-login' };
let corpus: Source[] = [];
let emulator: Emulator;
let work: string;
/** Warnings the process emitted (a library printing to stderr on its own); the mutator itself emits none. */
const processWarnings: string[] = [];
const collectWarning = (warning: Error) => processWarnings.push(warning.message);
const tally = { cases: 0, valid: 0, invalid: 0, diagnostics: 0, withVariables: 0, withSpecialFile: 0, withLookalikes: 0 };

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
  console.info(
    `fuzz: ${tally.cases} cases (${tally.valid} still valid, ${tally.invalid} invalid), ${tally.diagnostics} diagnostics checked; ` +
      `${tally.withVariables} with variables of YAML-syntax or secret values, ${tally.withSpecialFile} with a file that is no manifest, ${tally.withLookalikes} with look-alike names`,
  );
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

const clientSecret = 'fuzz-client-secret-5e1f9a';
/** The plan run's output of the current case, for the leak check. */
const lastPlanOutput: string[] = [];

const canMakeFifo = (() => {
  try {
    execFileSync('mkfifo', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Puts an entry that is not a regular manifest file into the case's folder; says which, for the replay line. */
function addNonRegularFile(random: Random, dir: string, files: CaseFiles): string {
  const kinds = ['link to /dev/zero', 'link loop', 'broken link', 'link to a folder', ...(canMakeFifo ? ['FIFO'] : [])].filter((k) => k !== 'link to /dev/zero' || existsSync('/dev/zero'));
  const kind = random.pick(kinds);
  const name = 'c-special.yaml';
  const at = path.join(dir, name);
  if (kind === 'FIFO') execFileSync('mkfifo', [at]);
  else if (kind === 'link to /dev/zero') symlinkSync('/dev/zero', at);
  else if (kind === 'link loop') {
    symlinkSync('c-special-2.yaml', at);
    symlinkSync(name, path.join(dir, 'c-special-2.yaml'));
    files.set('c-special-2.yaml', 1);
  } else if (kind === 'broken link') symlinkSync('nowhere.yaml', at);
  else symlinkSync('.', at);
  files.set(name, 1);
  return kind;
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
  const special = random.chance(0.06) ? addNonRegularFile(random, dir, files) : undefined;
  const env: NodeJS.ProcessEnv = {
    ...variables,
    ...pickVariableValues(random),
    BLING_CLIENT_SECRET: clientSecret,
    BLING_ACCESS_TOKEN: emulator.token,
    ERPSYNC_BASE_URL: emulator.baseUrl,
    ERPSYNC_RATE: '1000',
  };

  const replay = `case ${index} (ERPSYNC_FUZZ_SEED=${baseSeed}, seed ${seed}, from ${path.relative(root, source.file)}${special ? `, with ${special}` : ''}; ERPSYNC_VAR_FUZZ_TEXT=${JSON.stringify(env.ERPSYNC_VAR_FUZZ_TEXT)} ERPSYNC_VAR_FUZZ_NUMBER=${JSON.stringify(env.ERPSYNC_VAR_FUZZ_NUMBER)} NFSE_SENHA_PREFEITURA=${JSON.stringify(env.NFSE_SENHA_PREFEITURA)}):\n${mutated.toString('utf8').slice(0, 1500)}`;
  const text = mutated.toString('utf8');
  if (/\$\{(FUZZ_|NFSE_SENHA_PREFEITURA|BLING_)/.test(text)) tally.withVariables += 1;
  if (special) tally.withSpecialFile += 1;
  if (['\u0430', '\u043e', '\u03a1', '\u03bf', '\u200b', '\u200d', '\u00ad'].some((c) => text.includes(c))) tally.withLookalikes += 1;
  // An ordinary variable may hold the password's very text: in an ordinary field it is a value like any other, printed as itself.
  const password = env.NFSE_SENHA_PREFEITURA ?? '';
  const sameAsPlain = password === env.ERPSYNC_VAR_FUZZ_TEXT || password === env.ERPSYNC_VAR_FUZZ_NUMBER;
  const secrets = [...(sameAsPlain ? [] : [password]), clientSecret, emulator.token].flatMap((secret) => leakForms(secret));
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
  const validateLeaks = leaksIn(validated.stdout + validated.stderr, secrets);
  if (validateLeaks.length > 0) problems.push(`validate showed a secret: ${JSON.stringify(validateLeaks)}`);

  if (validated.code === 0) {
    tally.valid += 1;
    // Still valid: the plan runs against the account (a fresh one; plans write nothing) and must
    // end in a plan or in diagnostics, never in a crash.
    const planned = await runCli(['plan', '.'], { cwd: dir, env });
    lastPlanOutput.push(planned.stdout, planned.stderr);
    if (planned.code !== 0 && planned.code !== 1) problems.push(`plan of a valid case exited ${planned.code}:\n${planned.stderr}`);
    if (stackTrace.test(planned.stdout + planned.stderr) || /internal error/.test(planned.stderr)) problems.push(`plan crashed:\n${planned.stderr}`);
    const control = rawControl(planned.stdout + planned.stderr);
    if (control) problems.push(`raw control character ${control} in the plan output`);
  } else {
    tally.invalid += 1;
    const planned = await runCli(['plan', '.'], { cwd: dir, env });
    lastPlanOutput.push(planned.stdout, planned.stderr);
    if (planned.code !== 1) problems.push(`plan of an invalid case exited ${planned.code}`);
    if (stackTrace.test(planned.stdout + planned.stderr) || /internal error/.test(planned.stderr)) problems.push(`plan crashed:\n${planned.stderr}`);
    const sent = emulator.requestLog();
    if (sent.length > 0) problems.push(`plan of an invalid case sent ${sent.length} request(s): ${sent.map((e) => `${e.method} ${e.path}`).join(', ')}`);
  }
  const planOutput = lastPlanOutput.splice(0).join('\n');
  const planLeaks = leaksIn(planOutput, secrets);
  if (planLeaks.length > 0) problems.push(`plan showed a secret: ${JSON.stringify(planLeaks)}`);
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

  it('exercised the variable, non-regular file and look-alike families', () => {
    if (tally.cases < 500) return;
    expect(tally.withVariables).toBeGreaterThan(tally.cases / 20);
    expect(tally.withSpecialFile).toBeGreaterThan(tally.cases / 50);
    expect(tally.withLookalikes).toBeGreaterThan(tally.cases / 100);
  });
});
