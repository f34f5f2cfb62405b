// `npm run bench`: builds accounts of 100, 1,000 and 10,000 records in the emulator and measures
// the built CLI (dist/cli/bin.js) against them: requests per plan against the minimum and against
// reading every detail, plan wall/CPU time and memory with the limit off and the time projected at
// 3 req/s, buildPlan alone, apply at the account's real limit (write requests against changes,
// achieved against configured rate, 429s), and the start-up of `--version` and `validate`. Prints
// a markdown report and writes it to bench/results.md. A benchmark, not a test: it asserts nothing.
// ERPSYNC_BENCH_SIZES=100,1000 measures other sizes.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createEmulator } from '../src/emulator/index.js';
import type { Emulator, EmulatorState, RequestLogEntry } from '../src/emulator/index.js';
import { applyOnce, loadDesiredOrThrow, openClient, planFor, readAccount } from '../test/reliability/support/pipeline.js';
import { buildBenchStore } from './bench-store.js';
import type { BenchStore } from './bench-store.js';

const root = process.cwd();
const bin = path.join(root, 'dist/cli/bin.js');
const preload = pathToFileURL(path.join(import.meta.dirname, 'usage-preload.js')).href;
const sizes = (process.env.ERPSYNC_BENCH_SIZES ?? '100,1000,10000').split(',').map(Number);
const limit = 3;
const pageSize = 100;

interface ChildRun {
  code: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
  cpuMs: number;
  maxRssMb: number;
}

/** Runs the built CLI with the usage preload; wall time from spawn to exit. */
function runBuiltCli(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Promise<ChildRun> {
  const usageFile = path.join(mkdtempSync(path.join(tmpdir(), 'erpsync-usage-')), 'usage.json');
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', preload, bin, ...args], {
    cwd,
    env: { PATH: process.env.PATH, ...env, ERPSYNC_BENCH_USAGE: usageFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      const wallMs = performance.now() - started;
      const usage = JSON.parse(readFileSync(usageFile, 'utf8')) as { cpuMs: number; maxRssKb: number };
      rmSync(path.dirname(usageFile), { recursive: true, force: true });
      resolve({ code, stdout, stderr, wallMs, cpuMs: usage.cpuMs, maxRssMb: usage.maxRssKb / 1024 });
    });
  });
}

const pages = (items: number) => Math.floor(items / pageSize) + 1;

/**
 * The fewest reads a plan of this store can make: every list page of the kinds it declares, the
 * situation modules and the one module it uses, and the detail of each declared payment method
 * (the manifests set `destino`, which only the detail carries). Reading every detail instead adds
 * one GET per record of those kinds.
 */
function readBounds(state: EmulatorState, store: BenchStore): { minimum: number; everyDetail: number } {
  const vendas = state.modulos.find((m) => m.nome === 'Vendas')?.id;
  const lists = [
    state.formasPagamentos.length,
    state.categoriasReceitasDespesas.length,
    state.categoriasProdutos.length,
    state.gruposProdutos.length,
    state.logisticas.length,
    state.servicosLogisticas.length,
  ];
  const listPages = lists.reduce((sum, n) => sum + pages(n), 0) + 2;
  const situations = state.situacoes.filter((s) => s.idModuloSistema === vendas).length;
  return {
    minimum: listPages + (store.counts.formasPagamentos ?? 0),
    everyDetail: listPages + lists.reduce((sum, n) => sum + n, 0) + situations,
  };
}

function byRoute(log: readonly RequestLogEntry[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entry of log) {
    const key = entry.route ?? `${entry.method} ${entry.path}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

function achievedRate(log: readonly RequestLogEntry[]): number {
  const first = log[0];
  const last = log[log.length - 1];
  if (!first || !last || last.at === first.at) return Number.NaN;
  return (log.length - 1) / ((last.at - first.at) / 1000);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

interface SizeResult {
  records: number;
  plan: { requests: number; minimum: number; everyDetail: number; wallMs: number; cpuMs: number; maxRssMb: number; changes: number; buildPlanMs: number; routes: Record<string, number> };
  apply: { changes: number; writes: number; requests: number; rate: number; throttled: number; wallMs: number; cpuMs: number; maxRssMb: number; exit: number | null; converged: boolean };
}

async function measureSize(records: number): Promise<SizeResult> {
  const store = buildBenchStore(records);
  const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-bench-'));
  const emulator: Emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
  try {
    writeFileSync(path.join(dir, 'base.yaml'), store.base);
    const built = await applyOnce(emulator, await loadDesiredOrThrow(['base.yaml'], dir, {}), { concurrency: 8 });
    if (built.error !== undefined || (built.result?.failed ?? 1) > 0) throw new Error(`building the ${records}-record account failed: ${String(built.error ?? JSON.stringify(built.result?.outcomes.find((o) => o.outcome.status === 'failed')))}`);
    mkdirSync(path.join(dir, 'target'));
    writeFileSync(path.join(dir, 'target/manifest.yaml'), store.target);
    const env = { BLING_ACCESS_TOKEN: emulator.token, ERPSYNC_BASE_URL: emulator.baseUrl, ERPSYNC_RATE: '100000' };

    emulator.clearLog();
    const planned = await runBuiltCli(['plan', 'target', '--json'], env, dir);
    if (planned.code !== 0) throw new Error(`plan failed: ${planned.stderr}`);
    const planLog = emulator.requestLog();
    const plan = JSON.parse(planned.stdout) as { changes: { action: string }[] };
    const bounds = readBounds(emulator.snapshot(), store);

    // buildPlan alone, on the account as read: the median of five runs.
    const desired = await loadDesiredOrThrow(['target'], dir, {});
    const client = openClient(emulator);
    const live = await readAccount(client, desired);
    await client.close();
    const timings = Array.from({ length: 5 }, () => {
      const started = performance.now();
      planFor(desired, live, emulator);
      return performance.now() - started;
    });

    emulator.setRateLimit(limit);
    // A limit switched on starts with an empty bucket; an idle second fills it, as on a quiet account.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    emulator.clearLog();
    const applied = await runBuiltCli(['apply', 'target', '--auto-approve'], { ...env, ERPSYNC_RATE: String(limit) }, dir);
    const applyLog = emulator.requestLog();
    emulator.setRateLimit(0);
    const again = await runBuiltCli(['plan', 'target', '--detailed-exitcode'], env, dir);

    return {
      records,
      plan: {
        requests: planLog.length,
        ...bounds,
        wallMs: planned.wallMs,
        cpuMs: planned.cpuMs,
        maxRssMb: planned.maxRssMb,
        changes: plan.changes.filter((c) => c.action !== 'blocked').length,
        buildPlanMs: median(timings),
        routes: byRoute(planLog),
      },
      apply: {
        changes: store.changes,
        writes: applyLog.filter((e) => e.method !== 'GET').length,
        requests: applyLog.length,
        rate: achievedRate(applyLog),
        throttled: applyLog.filter((e) => e.status === 429).length,
        wallMs: applied.wallMs,
        cpuMs: applied.cpuMs,
        maxRssMb: applied.maxRssMb,
        exit: applied.code,
        converged: again.code === 0,
      },
    };
  } finally {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measureStartup(args: readonly string[], runs: number): Promise<{ median: number; min: number }> {
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const run = await runBuiltCli(args, { NFSE_SENHA_PREFEITURA: 'bench' }, root);
    if (run.code !== 0) throw new Error(`erpsync ${args.join(' ')} failed: ${run.stderr}`);
    times.push(run.wallMs);
  }
  return { median: median(times), min: Math.min(...times) };
}

const ms = (value: number) => `${Math.round(value).toLocaleString('en-US')} ms`;
const seconds = (value: number) => `${(value / 1000).toFixed(1)} s`;
const percent = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)}%`;
const mark = (ok: boolean) => (ok ? 'met' : '**missed**');

/** What a missed target comes from, in the measurements' own terms; a line saying so when none was missed. */
function closingNotes(results: readonly SizeResult[], targets: readonly [string, string, boolean][]): string[] {
  const missed = targets.filter(([, , ok]) => !ok).map(([name]) => name);
  if (missed.length === 0) return ['No target was missed in this run.'];
  const notes = [`Missed: ${missed.join('; ')}.`];
  for (const r of results) {
    const size = `${r.records.toLocaleString('en-US')} records`;
    if (r.plan.requests > r.plan.minimum * 1.05) notes.push(`- ${size}: the plan read ${r.plan.requests - r.plan.minimum} request(s) more than the minimum; the requests by route below show where.`);
    if (r.apply.writes !== r.apply.changes) notes.push(`- ${size}: ${r.apply.writes} write requests for ${r.apply.changes} changes (exit ${r.apply.exit}); writes beyond the changes are retries or unknown-outcome lookups, fewer mean changes that failed.`);
    if (r.apply.throttled > 0) notes.push(`- ${size}: ${r.apply.throttled} request(s) met 429; each halves the client's pace until successes bring it back, which lowers the achieved rate.`);
    else if (r.apply.rate < limit * 0.95) notes.push(`- ${size}: no 429, so the shortfall is time the client spent not sending (planning, re-reading) inside the measured span.`);
  }
  const largest = results[results.length - 1];
  if (largest && largest.plan.buildPlanMs >= 300) notes.push(`- \`buildPlan\` took ${ms(largest.plan.buildPlanMs)} for ${largest.records.toLocaleString('en-US')} records; \`node --cpu-prof\` on the benchmark shows where.`);
  return notes;
}

function report(results: readonly SizeResult[], version: { median: number; min: number }, validate: { median: number; min: number }): string {
  const lines: string[] = [];
  const cpu = cpus();
  lines.push('# erpsync benchmark', '');
  lines.push(`${new Date().toISOString().slice(0, 10)} · Node ${process.version} · ${cpu[0]?.model.trim() ?? 'unknown CPU'} × ${cpu.length} · \`npm run bench\``, '');
  lines.push('The emulator runs in the benchmark process; every measured command is the built CLI (`dist/cli/bin.js`) in its own process. `buildPlan` alone is timed in the benchmark process: the median of five runs on the account as the plan read it.', '');

  lines.push('## Plan (emulator limit off)', '');
  lines.push('| records | changes found | requests | minimum | vs minimum | every detail | wall | CPU | projected at 3 req/s | `buildPlan` | peak memory |');
  lines.push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    const p = r.plan;
    lines.push(`| ${r.records.toLocaleString('en-US')} | ${p.changes} of ${r.apply.changes} | ${p.requests} | ${p.minimum} | ${percent(p.requests / p.minimum - 1)} | ${p.everyDetail.toLocaleString('en-US')} | ${ms(p.wallMs)} | ${ms(p.cpuMs)} | ${seconds((p.requests / limit) * 1000)} | ${ms(p.buildPlanMs)} | ${p.maxRssMb.toFixed(0)} MB |`);
  }
  lines.push('', '"minimum": every list page of the declared kinds, the situation modules and the one module used, and the detail of each declared payment method (the manifests set `destino`, which only the detail has). "every detail": the same lists plus one detail GET per record. The projection counts requests only: at 3 req/s the account\'s limit, not CPU, sets the pace.', '');

  lines.push(`## Apply (emulator limit ${limit} req/s, client \`--rate ${limit}\`)`, '');
  lines.push('| records | changes | write requests | all requests | achieved rate | vs configured | 429s | wall | CPU | peak memory | re-plan empty |');
  lines.push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:--:|');
  for (const r of results) {
    const a = r.apply;
    lines.push(`| ${r.records.toLocaleString('en-US')} | ${a.changes} | ${a.writes} | ${a.requests} | ${a.rate.toFixed(2)} req/s | ${((a.rate / limit) * 100).toFixed(1)}% | ${a.throttled} | ${seconds(a.wallMs)} | ${ms(a.cpuMs)} | ${a.maxRssMb.toFixed(0)} MB | ${a.converged && a.exit === 0 ? 'yes' : `**no** (exit ${a.exit})`} |`);
  }
  lines.push('', 'The apply plans first (its reads count in "all requests"), writes, then re-reads the records it touched; the achieved rate is over all of its requests, first to last.', '');

  lines.push('## Start-up (median of 15 runs, wall time from spawn to exit)', '');
  lines.push('| command | median | fastest |', '|---|---:|---:|');
  lines.push(`| \`erpsync --version\` | ${ms(version.median)} | ${ms(version.min)} |`);
  lines.push(`| \`erpsync validate examples/loja-nova\` | ${ms(validate.median)} | ${ms(validate.min)} |`, '');

  const largest = results[results.length - 1];
  const targets: [string, string, boolean][] = [
    ['plan reads at most 5% above the minimum', results.map((r) => percent(r.plan.requests / r.plan.minimum - 1)).join(' / '), results.every((r) => r.plan.requests <= r.plan.minimum * 1.05)],
    ['write requests equal to changes', results.map((r) => `${r.apply.writes}/${r.apply.changes}`).join(' / '), results.every((r) => r.apply.writes === r.apply.changes)],
    ['achieved rate ≥ 95% of configured, zero 429s', results.map((r) => `${((r.apply.rate / limit) * 100).toFixed(1)}%, ${r.apply.throttled}`).join(' / '), results.every((r) => r.apply.rate >= limit * 0.95 && r.apply.throttled === 0)],
    [`\`buildPlan\` for ${largest?.records.toLocaleString('en-US') ?? '?'} records under 300 ms`, largest ? ms(largest.plan.buildPlanMs) : '-', (largest?.plan.buildPlanMs ?? Infinity) < 300],
    ['start-up under 300 ms', `${ms(version.median)} / ${ms(validate.median)}`, version.median < 300 && validate.median < 300],
  ];
  lines.push('## Targets', '', '| target | measured (per size, smallest first) | |', '|---|---|---|');
  for (const [name, measured, ok] of targets) lines.push(`| ${name} | ${measured} | ${mark(ok)} |`);
  lines.push('', ...closingNotes(results, targets), '');

  if (largest) {
    lines.push(`## Plan requests by route (${largest.records.toLocaleString('en-US')} records)`, '', '| route | requests |', '|---|---:|');
    for (const [route, count] of Object.entries(largest.plan.routes).sort(([a], [b]) => (a < b ? -1 : 1))) lines.push(`| \`${route}\` | ${count} |`);
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

const results: SizeResult[] = [];
for (const size of sizes) {
  process.stderr.write(`bench: ${size} records…\n`);
  results.push(await measureSize(size));
}
process.stderr.write('bench: start-up…\n');
const version = await measureStartup(['--version'], 15);
const validate = await measureStartup(['validate', 'examples/loja-nova'], 15);
const markdown = report(results, version, validate);
process.stdout.write(markdown);
writeFileSync(path.join(root, 'bench/results.md'), markdown);
