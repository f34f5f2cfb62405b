// The bench's markdown report: one table per section and the "Must show" table of issue 16, every
// figure computed from the runs (medians with min and max), each target judged met or missed.
import { cpus, loadavg } from 'node:os';
import type { LoadRow, PlanRow, StartupRows, StartupTimes } from './cpu-rows.js';
import type { ApplyRun, PeerRun, Spread } from './measure.js';
import { accountLimit, spreadOf } from './measure.js';
import type { Workload, WorkloadKey } from './workloads.js';

export interface WorkloadResult {
  workload: Workload;
  /** erpsync alone at the account's limit, one entry per run. */
  runs: ApplyRun[];
  peer?: PeerRun;
}

export interface BenchResults {
  runs: number;
  workloads: WorkloadResult[];
  shared: WorkloadResult;
  loading: LoadRow[];
  plan: PlanRow;
  startup: StartupRows;
  startupRuns: number;
  /** What could not be measured; the bench exits non-zero when there is any. */
  problems: string[];
  /** The machine's 1-minute load average when the run began: other work on it slows every timing. */
  loadAtStart: number;
}

/** Requests erpsync may send against the peer's, per workload (issue 16, "Must show"). */
const requestTargets: Record<WorkloadKey, number> = {
  bootstrap: 0.8,
  'bootstrap-again': 1,
  'large-changed': 1,
  'large-unchanged': 0.06,
  'change-mix': 1,
};
const floorTarget = 1.08;
const predictionTolerance = 0.05;
const sharedThrottleShare = 0.02;
const startupTarget = 2;
/** Time per record at 40k within this factor of 10k's counts as linear (quadratic loading gives ~4×). */
const linearTolerance = 1.3;
const planCpuTargetMs = 1_500;
/** A second client uses 1 req/s of the account's limit in the shared case. */
const neighbourRate = 1;

const fixed = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
const count = (value: number) => (Number.isInteger(value) ? value.toLocaleString('en-US') : value.toLocaleString('en-US', { maximumFractionDigits: 1 }));
const spread = (s: Spread, show: (v: number) => string = count) => (s.min === s.max ? show(s.median) : `${show(s.median)} [${show(s.min)}–${show(s.max)}]`);
const percent = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)}%`;
const share = (value: number) => `${(value * 100).toFixed(1)}%`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const mark = (ok: boolean) => (ok ? 'met' : '**missed**');

const requestsOf = (r: WorkloadResult) => spreadOf(r.runs.map((run) => run.requests));
const ratioToPeer = (r: WorkloadResult) => (r.peer ? requestsOf(r).median / r.peer.requests : Number.NaN);
const predictionErrors = (r: WorkloadResult) => r.runs.map((run) => run.predicted / run.requests - 1);
const floorRatios = (r: WorkloadResult, perSecond: number) => r.runs.map((run) => run.wallMs / ((run.requests / perSecond) * 1000));
const throttled = (r: WorkloadResult) => r.runs.reduce((sum, run) => sum + run.throttled, 0);
const measured = (r: WorkloadResult) => r.runs.length > 0;

function requestsSection(results: BenchResults): string[] {
  const lines = ['## Requests: erpsync against the peer script', ''];
  lines.push('| workload | erpsync | peer | erpsync ÷ peer | target | writes (erpsync / peer) | peer reaches "no changes" | erpsync converged |', '|---|---:|---:|---:|---:|---:|:--:|:--:|');
  for (const r of results.workloads) {
    const writes = `${measured(r) ? spread(spreadOf(r.runs.map((run) => run.writes))) : '–'} / ${r.peer ? count(r.peer.writes) : '–'}`;
    const peer = r.peer ? `${count(r.peer.requests)}${r.peer.error ? ' (stopped)' : ''}` : '–';
    const converged = measured(r) ? (r.runs.every((run) => run.converged) ? 'yes' : '**no**') : '–';
    const reaches = r.peer ? (r.peer.reachesNoChange ? 'yes' : '**no**') : '–';
    lines.push(`| ${r.workload.title} | ${measured(r) ? spread(requestsOf(r)) : '–'} | ${peer} | ${fixed(ratioToPeer(r))} | ≤ ${requestTargets[r.workload.key]} | ${writes} | ${reaches} | ${converged} |`);
  }
  lines.push(
    '',
    `erpsync: every request of \`erpsync apply <dir> --auto-approve\` (the built CLI over HTTP: plan reads, writes, read-back), median [min–max] of ${results.runs} run(s) at the account's limit. ` +
      'Peer: `bench/peer-sync.ts` on the SDK `bling-erp-api` 5.8, counted once with the emulator\'s limit off — its requests do not depend on pacing. ' +
      '"Reaches no changes": `erpsync plan` on the peer\'s account afterwards finds nothing to do; "converged": the same after erpsync\'s own apply.',
    '',
  );
  return lines;
}

function predictionSection(results: BenchResults): string[] {
  const lines = ['## Cost prediction: the plan\'s cost line against what apply sent', ''];
  lines.push('| workload | predicted (reads + writes + verify) | sent | difference | within 5% |', '|---|---:|---:|---:|:--:|');
  for (const r of results.workloads.filter(measured)) {
    const errors = predictionErrors(r);
    lines.push(`| ${r.workload.title} | ${spread(spreadOf(r.runs.map((run) => run.predicted)))} | ${spread(requestsOf(r))} | ${spread(spreadOf(errors), percent)} | ${errors.every((e) => Math.abs(e) <= predictionTolerance) ? 'yes' : '**no**'} |`);
  }
  lines.push('', 'Predicted: the cost of the plan the apply itself made (the `plan` event of `--json`); "within 5%" holds for every run.', '');
  return lines;
}

function wallSection(results: BenchResults): string[] {
  const lines = [`## Wall time at the account's limit (${accountLimit} req/s), erpsync alone at its default pace`, ''];
  lines.push('| workload | requests | floor | wall | wall ÷ floor | first to last request ÷ floor | 429s |', '|---|---:|---:|---:|---:|---:|---:|');
  for (const r of results.workloads.filter(measured)) {
    const floorMs = spreadOf(r.runs.map((run) => (run.requests / accountLimit) * 1000));
    const span = spreadOf(r.runs.map((run) => run.spanMs / ((run.requests / accountLimit) * 1000)));
    lines.push(`| ${r.workload.title} | ${spread(requestsOf(r))} | ${spread(floorMs, seconds)} | ${spread(spreadOf(r.runs.map((run) => run.wallMs)), seconds)} | ${spread(spreadOf(floorRatios(r, accountLimit)), fixed)} | ${spread(span, fixed)} | ${throttled(r)} |`);
  }
  lines.push(
    '',
    `Floor: requests ÷ ${accountLimit} per second. Wall: spawn to exit of the CLI, start-up included (the pass/fail figure); first to last request: the same span without start-up and exit. ` +
      'A new account per run, its bucket full (3 requests go at once). 429s: all runs together.',
    '',
  );
  return lines;
}

function sharedSection(results: BenchResults): string[] {
  const r = results.shared;
  const lines = [`## Shared account: a second client uses ${neighbourRate} req/s of the same limit`, ''];
  if (!measured(r)) return [...lines, 'Not measured (see problems).', ''];
  const shares = r.runs.map((run) => run.throttled / run.requests);
  const neighbour = r.runs.map((run) => `${run.neighbour?.sent ?? 0}/${run.neighbour?.throttled ?? 0}`).join(', ');
  lines.push('| workload | erpsync requests | 429s | 429 share | failed requests | failed changes | wall ÷ floor at 2 req/s | wall ÷ floor at 3 req/s | neighbour sent/429 per run |', '|---|---:|---:|---:|---:|---:|---:|---:|---|');
  lines.push(
    `| ${r.workload.title} | ${spread(requestsOf(r))} | ${spread(spreadOf(r.runs.map((run) => run.throttled)))} | ${spread(spreadOf(shares), share)} | ${r.runs.reduce((s, run) => s + run.errors, 0)} | ${r.runs.reduce((s, run) => s + run.failed, 0)} | ${spread(spreadOf(floorRatios(r, accountLimit - neighbourRate)), fixed)} | ${spread(spreadOf(floorRatios(r, accountLimit)), fixed)} | ${neighbour} |`,
  );
  lines.push('', 'The second client is a GET a second with the same token, for the whole apply; its requests are left out of erpsync\'s. Failed requests: erpsync\'s answered with an error other than 429, all runs. Floor at 2 req/s: what the account has left for erpsync.', '');
  return lines;
}

/** Where the requests of a workload go, erpsync (its first run) beside the peer. */
function routesSection(result: WorkloadResult | undefined): string[] {
  const first = result?.runs[0];
  if (!result || !first || !result.peer) return [];
  const peer = result.peer.routes;
  const pathThenMethod = (route: string) => {
    const [method = '', path = ''] = route.split(' ');
    return `${path} ${method}`;
  };
  const routes = [...new Set([...Object.keys(first.routes), ...Object.keys(peer)])].sort((a, b) => pathThenMethod(a).localeCompare(pathThenMethod(b)));
  const lines = [`## Requests by route: ${result.workload.title}`, '', '| route | erpsync | peer |', '|---|---:|---:|'];
  for (const route of routes) lines.push(`| \`${route}\` | ${first.routes[route] ?? 0} | ${peer[route] ?? 0} |`);
  lines.push(`| all | ${first.requests} | ${result.peer.requests} |`, '');
  return lines;
}

function cpuSections(results: BenchResults): string[] {
  const base = results.loading[0];
  const lines = ['## Manifest loading (one kind, in process)', '', '| records | time | per record | ÷ per record at the smallest size |', '|---:|---:|---:|---:|'];
  for (const row of results.loading) lines.push(`| ${count(row.records)} | ${spread(row.ms, (v) => `${Math.round(v)} ms`)} | ${fixed(row.perRecordUs, 1)} µs | ${fixed(base ? row.perRecordUs / base.perRecordUs : Number.NaN)} |`);
  lines.push('', `Median [min–max] of ${results.runs} load(s) per size after a warm-up; flat per-record time is linear loading.`, '');
  const plan = results.plan;
  const ms = (v: number) => `${Math.round(v)} ms`;
  lines.push(`## Planning ${count(plan.records)} records`, '', '| what | changes | CPU | target |', '|---|---:|---:|---:|');
  lines.push(`| \`erpsync plan target --json\` (the built CLI, limit off) | ${count(plan.changes)} | ${spread(plan.cliCpuMs, ms)} | < ${count(planCpuTargetMs)} ms |`);
  lines.push(`| \`buildPlan\` alone, in process | ${count(plan.changes)} | ${spread(plan.cpuMs, ms)} | |`, '');
  lines.push(`The large store scaled to ${count(plan.records)} records, 5% changed, against an account holding the rest. The CLI's CPU covers start-up, loading and checking the manifest, reading the account over HTTP with the limit off, planning and printing; ${plan.runs} run(s) each, \`buildPlan\` after a warm-up.`, '');
  lines.push(`## Start-up (${results.startupRuns} interleaved runs, spawn to exit)`, '', '| command | bare environment | ÷ `node -e 0` | this shell | ÷ `node -e 0` |', '|---|---:|---:|---:|---:|');
  const { clean, shell } = results.startup;
  const row = (name: string, pick: (t: StartupTimes) => Spread) =>
    `| ${name} | ${spread(pick(clean), ms)} | ${fixed(pick(clean).median / clean.node.median)} | ${spread(pick(shell), ms)} | ${fixed(pick(shell).median / shell.node.median)} |`;
  lines.push(row('`node -e 0`', (t) => t.node), row('`erpsync --version`', (t) => t.version), row('`erpsync validate examples/loja-nova`', (t) => t.validate), row('`erpsync validate` of a one-record manifest', (t) => t.validateOne), '');
  lines.push('The pass/fail figure is validate of `examples/loja-nova` (9 files, 10 KB): it includes parsing its YAML with a cold JIT. The one-record manifest shows the fixed cost of starting alone.', '');
  lines.push(`Bare: PATH only. This shell: the bench's own environment${process.env.NODE_EXTRA_CA_CERTS ? ', which sets NODE_EXTRA_CA_CERTS: every node start, `node -e 0` too, first parses that CA bundle' : ''}.`, '');
  return lines;
}

function mustShow(results: BenchResults): [string, string, boolean][] {
  const byKey = (key: WorkloadKey) => results.workloads.find((r) => r.workload.key === key);
  const compared = results.workloads.filter((r) => measured(r) && r.peer);
  const ratioOf = (key: WorkloadKey) => {
    const result = byKey(key);
    return result ? ratioToPeer(result) : Number.NaN;
  };
  const alone = results.workloads.filter(measured);
  const worstFloor = Math.max(...alone.map((r) => spreadOf(floorRatios(r, accountLimit)).median));
  const worstPrediction = Math.max(...alone.flatMap((r) => predictionErrors(r).map(Math.abs)));
  const shared = results.shared;
  const sharedShare = measured(shared) ? Math.max(...shared.runs.map((run) => run.throttled / run.requests)) : Number.NaN;
  const sharedFailed = shared.runs.reduce((s, run) => s + run.errors + run.failed, 0);
  const sharedExits = shared.runs.filter((run) => run.exit !== 0).length;
  const loadRatio = (results.loading.at(-1)?.perRecordUs ?? Number.NaN) / (results.loading[0]?.perRecordUs ?? Number.NaN);
  const ratioIn = (t: StartupTimes) => t.validate.median / t.node.median;
  const startupRatio = ratioIn(results.startup.clean);
  return [
    ['Requests ≤ the peer script\'s on every workload (erpsync ÷ peer)', compared.map((r) => `${r.workload.key} ${fixed(ratioToPeer(r))}`).join(', '), compared.length === results.workloads.length && compared.every((r) => ratioToPeer(r) <= 1)],
    ['Bootstrap (loja-nova, fresh account) ≤ 0.8× the peer', fixed(ratioOf('bootstrap')), ratioOf('bootstrap') <= requestTargets.bootstrap],
    [`${count(1_000)} records, nothing to change ≤ 0.06× the peer`, fixed(ratioOf('large-unchanged'), 3), ratioOf('large-unchanged') <= requestTargets['large-unchanged']],
    [`Apply alone at the real limit within ${floorTarget}× the floor (worst workload median)`, `${fixed(worstFloor)}×`, worstFloor <= floorTarget],
    ['Zero 429s alone', `${alone.reduce((s, r) => s + throttled(r), 0)} in ${alone.reduce((s, r) => s + r.runs.length, 0)} applies`, alone.every((r) => throttled(r) === 0)],
    ['Shared account: zero failed requests', `${sharedFailed} failed requests or changes, ${sharedExits} failed applies`, measured(shared) && sharedFailed === 0 && sharedExits === 0],
    ['Shared account: 429s under 2% of erpsync\'s requests (worst run)', share(sharedShare), sharedShare < sharedThrottleShare],
    ['Cost prediction within 5% of what apply sends, every workload (worst run)', percent(worstPrediction), worstPrediction <= predictionTolerance],
    [
      '`validate` start-up ≤ 2× `node -e 0` (validate of loja-nova in a bare environment; this shell, and a one-record manifest, beside it)',
      `${fixed(startupRatio)}× (shell ${fixed(ratioIn(results.startup.shell))}×; one record ${fixed(results.startup.clean.validateOne.median / results.startup.clean.node.median)}×)`,
      startupRatio <= startupTarget,
    ],
    [`40k-record manifests load in linear time (per-record time 40k ÷ 10k ≤ ${linearTolerance})`, `${fixed(loadRatio)}×`, loadRatio <= linearTolerance],
    [`\`erpsync plan\` of ${count(results.plan.records)} records under 1.5 s CPU (the CLI process; \`buildPlan\` alone beside it)`, `${Math.round(results.plan.cliCpuMs.median)} ms (${Math.round(results.plan.cpuMs.median)} ms)`, results.plan.cliCpuMs.median < planCpuTargetMs],
  ];
}

export function renderReport(results: BenchResults, date: string): string {
  const cpu = cpus();
  const lines = ['# erpsync benchmark', ''];
  const load = `load average ${fixed(results.loadAtStart)} at the start, ${fixed(loadavg()[0] ?? Number.NaN)} at the end`;
  lines.push(`${date} · Node ${process.version} · ${cpu[0]?.model.trim() ?? 'unknown CPU'} × ${cpu.length} · ${load} · \`npm run bench\`${results.runs === 1 ? ' · **quick pass (1 run)**' : ''}`, '');
  lines.push('Issue 16\'s figures, side by side with a naive peer script on the public SDK, on identical emulated accounts (a new one per run, from the same seed). Ratios are the pass/fail figures; absolute times depend on the machine.', '');
  const targets = mustShow(results);
  lines.push('## Must show', '', '| target | measured | |', '|---|---|---|');
  for (const [target, figure, ok] of targets) lines.push(`| ${target} | ${figure} | ${mark(ok)} |`);
  lines.push('', '## Workloads', '', '| workload | what it holds |', '|---|---|');
  for (const r of results.workloads) lines.push(`| ${r.workload.title} | ${r.workload.about} |`);
  lines.push('');
  if (results.problems.length > 0) lines.push('## Problems', '', ...results.problems.map((p) => `- ${p}`), '');
  const bootstrap = results.workloads.find((r) => r.workload.key === 'bootstrap');
  lines.push(...requestsSection(results), ...routesSection(bootstrap), ...predictionSection(results), ...wallSection(results), ...sharedSection(results), ...cpuSections(results));
  return `${lines.join('\n')}\n`;
}
