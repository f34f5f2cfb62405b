// The bench's CPU rows, where the machine and not the account's limit sets the pace: loading a
// manifest of 10k / 20k / 40k records of one kind (time per record must stay flat), buildPlan of
// a 10,000-record store in CPU time, and the start-up of the built CLI beside `node -e 0`.
// Loading and planning run in the bench process on the same sources the CLI is built from.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { loadManifests } from '../src/manifest/load-manifests.js';
import { forgetParsedFiles } from '../src/manifest/parse-once.js';
import { loadDesiredOrThrow, openClient, planFor, readAccount } from '../test/reliability/support/pipeline.js';
import type { Spread } from './measure.js';
import { bin, openAccount, runBuiltCli, spreadOf } from './measure.js';
import { buildAccountSeed, buildLargeStore, changeLargeStore } from './workloads.js';

export interface LoadRow {
  records: number;
  ms: Spread;
  /** Microseconds per record, from the median. */
  perRecordUs: number;
}

function writeGroups(dir: string, records: number): string {
  const file = path.join(dir, `groups-${records}.yaml`);
  writeFileSync(file, stringify({ version: 1, gruposProdutos: Array.from({ length: records }, (_, i) => ({ nome: `Grupo ${i}` })) }));
  return file;
}

async function timeLoad(file: string, cwd: string): Promise<number> {
  // A first load, as one store's run makes it: no read or parse kept from the load before.
  forgetParsedFiles();
  const started = performance.now();
  const result = await loadManifests([file], { cwd, env: {} });
  const elapsed = performance.now() - started;
  if (!result.desired) throw new Error(`${path.basename(file)} does not load`);
  return elapsed;
}

/** Loads one-kind manifests of each size `runs` times (after a warm-up load); the median per size. */
export async function measureManifestLoading(sizes: readonly number[], runs: number, workDir: string): Promise<LoadRow[]> {
  const dir = path.join(workDir, 'loading');
  mkdirSync(dir, { recursive: true });
  await timeLoad(writeGroups(dir, 1_000), dir);
  const rows: LoadRow[] = [];
  for (const records of sizes) {
    const file = writeGroups(dir, records);
    const times: number[] = [];
    for (let run = 0; run < runs; run += 1) times.push(await timeLoad(file, dir));
    const ms = spreadOf(times);
    rows.push({ records, ms, perRecordUs: (ms.median * 1000) / records });
  }
  return rows;
}

export interface PlanRow {
  records: number;
  changes: number;
  runs: number;
  /** buildPlan alone, in the bench process. */
  cpuMs: Spread;
  /** The whole `erpsync plan` process (start-up, loading, reading over HTTP with the limit off, planning, output). */
  cliCpuMs: Spread;
}

/** Prints the process's CPU time on its way out, for a child the bench cannot time from outside. */
const reportCpuAtExit = `data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('\\nbench-cpu-us '+(u.user+u.system)+'\\n')})`;

/** CPU milliseconds of one run of the built CLI, from the line its exit hook printed. */
async function cliCpuMs(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  const run = await runBuiltCli(args, env, cwd, ['--import', reportCpuAtExit, bin]);
  const used = /bench-cpu-us (\d+)/.exec(run.stderr)?.[1];
  if (run.code !== 0 || used === undefined) throw new Error(`erpsync ${args.join(' ')} failed (exit ${run.code}): ${run.stderr.slice(0, 500)}`);
  return Number(used) / 1000;
}

/**
 * buildPlan of the large store scaled to `records`, 5% changed, against an account holding the
 * unchanged store (read once); CPU time of the planning alone, after a warm-up plan.
 */
export async function measureBuildPlan(records: number, runs: number, workDir: string): Promise<PlanRow> {
  const dir = path.join(workDir, `plan-${records}`);
  mkdirSync(path.join(dir, 'base'), { recursive: true });
  mkdirSync(path.join(dir, 'target'), { recursive: true });
  const store = buildLargeStore(records);
  writeFileSync(path.join(dir, 'base/manifest.yaml'), stringify(store));
  writeFileSync(path.join(dir, 'target/manifest.yaml'), stringify(changeLargeStore(store, records).store));
  const seed = await buildAccountSeed('fresh', path.join(dir, 'base'), path.join(dir, 'seed.json'), {});
  const account = await openAccount(seed, 0);
  try {
    const desired = await loadDesiredOrThrow(['target'], dir, {});
    const client = openClient(account.emulator);
    const live = await readAccount(client, desired).finally(() => client.close());
    const changes = planFor(desired, live, account.emulator).changes.length;
    const cpu: number[] = [];
    for (let run = 0; run < runs; run += 1) {
      const before = process.cpuUsage();
      planFor(desired, live, account.emulator);
      const used = process.cpuUsage(before);
      cpu.push((used.user + used.system) / 1000);
    }
    const cli: number[] = [];
    for (let run = 0; run < runs; run += 1) cli.push(await cliCpuMs(['plan', 'target', '--json'], account.env, dir));
    return { records, changes, runs, cpuMs: spreadOf(cpu), cliCpuMs: spreadOf(cli) };
  } finally {
    await account.close();
  }
}

export interface StartupTimes {
  node: Spread;
  version: Spread;
  validate: Spread;
  /** validate of a one-record manifest: the fixed cost of starting, with next to no YAML to parse. */
  validateOne: Spread;
}

export interface StartupRows {
  /** A bare environment (PATH only), as in a container or CI job with nothing set. */
  clean: StartupTimes;
  /** This shell's environment, whatever it sets for every node start (here NODE_EXTRA_CA_CERTS, when set). */
  shell: StartupTimes;
}

/**
 * `node -e 0`, `erpsync --version`, `erpsync validate <example>` and validate of a one-record
 * manifest, interleaved `runs` times in both environments; wall from spawn to exit.
 */
export async function measureStartup(example: string, runs: number, workDir: string): Promise<StartupRows> {
  const oneRecord = path.join(workDir, 'one-record.yaml');
  writeFileSync(oneRecord, stringify({ version: 1, depositos: [{ descricao: 'Loja' }] }));
  const files = { example, oneRecord };
  return { clean: await timeStartup(files, runs, {}), shell: await timeStartup(files, runs, process.env) };
}

async function timeStartup(files: { example: string; oneRecord: string }, runs: number, base: NodeJS.ProcessEnv): Promise<StartupTimes> {
  const times = { node: [] as number[], version: [] as number[], validate: [] as number[], validateOne: [] as number[] };
  const cwd = process.cwd();
  const env = { ...base, NFSE_SENHA_PREFEITURA: 'demo' };
  const timed = async (list: number[], run: Promise<{ code: number | null; stderr: string; wallMs: number }>, what: string) => {
    const done = await run;
    if (done.code !== 0) throw new Error(`${what} failed (exit ${done.code}): ${done.stderr.slice(0, 500)}`);
    list.push(done.wallMs);
  };
  for (let run = 0; run < runs; run += 1) {
    await timed(times.node, runBuiltCli([], env, cwd, ['-e', '0']), 'node -e 0');
    await timed(times.version, runBuiltCli(['--version'], env, cwd), 'erpsync --version');
    await timed(times.validate, runBuiltCli(['validate', files.example], env, cwd), 'erpsync validate');
    await timed(times.validateOne, runBuiltCli(['validate', files.oneRecord], env, cwd), 'erpsync validate (one record)');
  }
  return { node: spreadOf(times.node), version: spreadOf(times.version), validate: spreadOf(times.validate), validateOne: spreadOf(times.validateOne) };
}
