// `npm run bench`: issue 16's figures in one run. Prepares the workloads (bench/workloads.ts), then
// for each: the peer script once with the emulator's limit off, and erpsync's apply (the built CLI
// over HTTP) on new accounts at the account's real limit and erpsync's default pace; the shared
// account case (a second client at 1 req/s); the CPU rows (manifest loading, buildPlan,
// start-up); the fleet dashboard's size and render times (bench/dashboard.ts). Prints a markdown
// report and writes it to bench/results.md. A benchmark, not a test:
// it asserts nothing, but exits 1 when a workload could not be run. ERPSYNC_BENCH_QUICK=1 runs
// everything once (a smoke pass) instead of the medians of three (start-up: of fifteen).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { loadManifests } from '../src/manifest/load-manifests.js';
import { measureBuildPlan, measureManifestLoading, measureStartup } from './cpu-rows.js';
import { measureDashboard, renderDashboardSection } from './dashboard.js';
import { fleetMarkers } from './fleet-markers.js';
import { measureApply, measurePeer } from './measure.js';
import type { BenchResults, WorkloadResult } from './report.js';
import { renderReport } from './report.js';
import type { Workload } from './workloads.js';
import { prepareWorkloads } from './workloads.js';

const quick = process.env.ERPSYNC_BENCH_QUICK === '1';
const runs = quick ? 1 : 3;
const startupRuns = quick ? 3 : 15;
const root = process.cwd();
const example = path.join(root, 'examples/loja-nova');
const env = { NFSE_SENHA_PREFEITURA: 'demo' };
const problems: string[] = [];

const say = (line: string) => process.stderr.write(`bench: ${line}\n`);
const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function measurePeerOn(workload: Workload, workDir: string): Promise<WorkloadResult['peer']> {
  const { desired } = await loadManifests([workload.manifests], { cwd: workDir, env });
  if (!desired) throw new Error(`${workload.manifests} does not load`);
  const peer = await measurePeer(workload.seed, workload.manifests, desired, env);
  if (peer.error) problems.push(`${workload.title}: the peer script stopped: ${peer.error}`);
  else if (!peer.reachesNoChange) problems.push(`${workload.title}: after the peer script, erpsync plan still finds changes (a bug in the peer)`);
  return peer;
}

/** erpsync's applies of one workload; a failed run is a problem, and its figures are kept. */
async function measureApplies(workload: Workload, neighbour: boolean): Promise<WorkloadResult['runs']> {
  const applies: WorkloadResult['runs'] = [];
  for (let run = 1; run <= runs; run += 1) {
    say(`${workload.key}${neighbour ? ' (shared account)' : ''}: erpsync apply ${run}/${runs}…`);
    const applied = await measureApply(workload.seed, workload.manifests, env, { neighbour });
    if (applied.exit !== 0 || !applied.converged) problems.push(`${workload.title}${neighbour ? ' (shared)' : ''}, run ${run}: erpsync apply exited ${applied.exit}${applied.converged ? '' : ', and the account did not converge'}`);
    applies.push(applied);
  }
  return applies;
}

async function measureWorkload(workload: Workload, workDir: string): Promise<WorkloadResult> {
  const result: WorkloadResult = { workload, runs: [] };
  try {
    say(`${workload.key}: peer script…`);
    const peer = await measurePeerOn(workload, workDir);
    if (peer) result.peer = peer;
    result.runs = await measureApplies(workload, false);
  } catch (error) {
    problems.push(`${workload.title}: could not be measured: ${describe(error)}`);
  }
  return result;
}

async function main(workDir: string): Promise<void> {
  const loadAtStart = loadavg()[0] ?? Number.NaN;
  say(`preparing the workloads in ${workDir}…`);
  const workloads = await prepareWorkloads(example, workDir, env);
  const results: WorkloadResult[] = [];
  for (const workload of workloads) results.push(await measureWorkload(workload, workDir));
  const bootstrap = workloads[0] as Workload;
  const shared: WorkloadResult = { workload: bootstrap, runs: [] };
  try {
    shared.runs = await measureApplies(bootstrap, true);
  } catch (error) {
    problems.push(`shared account: could not be measured: ${describe(error)}`);
  }
  say('manifest loading…');
  const loading = await measureManifestLoading([10_000, 20_000, 40_000], runs, workDir);
  say('buildPlan…');
  const plan = await measureBuildPlan(10_000, quick ? 1 : 5, workDir);
  say('start-up…');
  const startup = await measureStartup(example, startupRuns, workDir);
  say('fleet dashboard…');
  let dashboard = '';
  try {
    dashboard = renderDashboardSection(await measureDashboard(workDir, runs), runs);
  } catch (error) {
    problems.push(`fleet dashboard: could not be measured: ${describe(error)}`);
  }
  const report: BenchResults = { runs, workloads: results, shared, loading, plan, startup, startupRuns, problems, loadAtStart };
  const markdown = `${renderReport(report, new Date().toISOString().slice(0, 10)).trimEnd()}\n\n${dashboard}`;
  process.stdout.write(markdown);
  writeFileSync(path.join(root, 'bench/results.md'), `${markdown.trimEnd()}\n${keptFleetSection()}`);
  if (problems.length > 0) process.exitCode = 1;
}

/** `npm run bench:fleet`'s section of results.md (bench/fleet.ts), kept when this bench rewrites the file. */
function keptFleetSection(): string {
  const current = existsSync(path.join(root, 'bench/results.md')) ? readFileSync(path.join(root, 'bench/results.md'), 'utf8') : '';
  const start = current.indexOf(fleetMarkers[0]);
  const end = current.indexOf(fleetMarkers[1]);
  return start >= 0 && end > start ? `\n${current.slice(start, end + fleetMarkers[1].length)}\n` : '';
}

const workDir = mkdtempSync(path.join(tmpdir(), 'erpsync-bench-'));
try {
  await main(workDir);
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
