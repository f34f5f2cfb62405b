// Issue 23's IP ledger case for `npm run bench:fleet` (`-- --only concurrent` runs it alone): two
// erpsync processes started together on one machine share its per-IP budget as they run
// (src/state/local/ip-budget.ts). Two fleet plans of half the stores each, at once, against one
// process planning all of them, side by side: the time from the first request the sandbox
// accounts received to the last, against the floor (all requests ÷ the budget), and what the
// emulator's ledger of the per-IP rules recorded. The rules and the governor are scaled alike, as
// in test/cli/ip-ledger-concurrent.test.ts: a tenth of the thresholds (`--ip-runners 10`) and a
// tenth of the windows (ERPSYNC_IP_WINDOW_SCALE=0.1): 48 requests a second for erpsync, 60 the rule.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { createEmulator, createIpLedger, serviceIpRules } from '../src/emulator/index.js';
import type { Emulator } from '../src/emulator/index.js';
import { ipBudgetOf } from '../src/api/governor.js';
import { mostInAnyWindow } from './fleet-cases.js';
import { runBuiltCli } from './measure.js';

const perProcess = 60;
const scale = 10;
const rounds = 3;

export interface ConcurrentRound {
  /** First to last arrival at the accounts, one process planning every store. */
  aloneMs: number;
  /** The same, two processes of half the stores each, started together. */
  pairMs: number;
  requests: number;
  /** The most requests the accounts received within one window, two processes at once. */
  pairMostInWindow: number;
  violations: number;
  exits: (number | null)[];
}

export interface ConcurrentResult {
  rounds: ConcurrentRound[];
  floorMs: number;
  budget: number;
  limit: number;
  windowMs: number;
  /** The machine's 1-minute load average at the start (2 cores: above 2, the runs wait for CPU). */
  loadAverage: number;
}

export async function measureConcurrentProcesses(dir: string): Promise<ConcurrentResult> {
  const loadAverage = loadavg()[0] ?? 0;
  const rules = serviceIpRules.map((rule) => ({ ...rule, limit: rule.limit / scale, windowMs: rule.windowMs / scale }));
  const ledger = createIpLedger({ rules });
  const emulators: Emulator[] = [];
  const env: NodeJS.ProcessEnv = { ERPSYNC_IP_WINDOW_SCALE: String(1 / scale) };
  const config = ['version: 1', 'targets:'];
  mkdirSync(dir, { recursive: true });
  try {
    for (let i = 0; i < 2 * perProcess; i += 1) {
      const emulator = await createEmulator({ rateLimit: 0, ipRules: ledger, company: { id: `conta-${i}`, nome: `Loja ${i} Ltda` } });
      emulators.push(emulator);
      env[`TOKEN_${i}`] = emulator.token;
      config.push(`  ${i < perProcess ? 'a' : 'b'}-${i}:`, `    baseUrl: ${emulator.baseUrl}`, `    credentials: { tokenEnv: TOKEN_${i} }`, '    rate: 1000');
    }
    writeFileSync(path.join(dir, 'erpsync.config.yaml'), `${config.join('\n')}\n`);
    writeFileSync(path.join(dir, 'base.yaml'), 'version: 1\ngruposProdutos:\n  - nome: Revenda\n');
    const plan = (selection: string[], locks: string) => runBuiltCli(['plan', 'base.yaml', ...selection, '--json', '--parallel', '100', '--ip-runners', String(scale)], { ...env, ERPSYNC_LOCK_DIR: path.join(dir, locks) }, dir);
    const arrivals = () => emulators.flatMap((e) => e.requestLog().map((entry) => entry.at));
    const span = (times: readonly number[]) => Math.max(...times) - Math.min(...times);
    const fresh = async () => {
      // Each run starts with the IP's windows empty, and a lock folder of its own.
      await new Promise((resolve) => setTimeout(resolve, rules[0]!.windowMs + 100));
      for (const e of emulators) e.clearLog();
      ledger.reset();
    };
    const results: ConcurrentRound[] = [];
    for (let round = 0; round < rounds; round += 1) {
      await fresh();
      const alone = await plan(['--all-targets'], `locks-alone-${round}`);
      const aloneMs = span(arrivals());
      await fresh();
      const pair = await Promise.all([plan(['--target', 'a-*'], `locks-pair-${round}`), plan(['--target', 'b-*'], `locks-pair-${round}`)]);
      const times = arrivals();
      results.push({ aloneMs, pairMs: span(times), requests: times.length, pairMostInWindow: mostInAnyWindow(times, rules[0]!.windowMs), violations: ledger.violations().length, exits: [alone.code, ...pair.map((run) => run.code)] });
    }
    const budget = ipBudgetOf(scale, 1 / scale);
    const requests = results[0]?.requests ?? 0;
    // The first window's worth goes at once; each further one a window later.
    return { rounds: results, floorMs: Math.max(0, Math.ceil(requests / budget.requests) - 1) * budget.windowMs, budget: budget.requests, limit: rules[0]!.limit, windowMs: budget.windowMs, loadAverage };
  } finally {
    await Promise.all(emulators.map((e) => e.close()));
  }
}

/** The case's paragraph in bench/results.md; its first words find it again (`--only concurrent`). */
export function concurrentLines(r: ConcurrentResult): string[] {
  const rows = r.rounds.map((x) => `| ${x.requests} | ${(x.aloneMs / 1000).toFixed(2)} s | ${(x.pairMs / 1000).toFixed(2)} s | ${(x.pairMs / x.aloneMs).toFixed(2)}× | ${x.pairMostInWindow} (${r.budget}, ${r.limit}) | ${x.violations} | ${x.exits.join(', ')} |`);
  return [
    `Two erpsync processes at once on one IP (the IP ledger): two \`plan --parallel 100\` of ${perProcess} stores each, started together, against one process planning all ${2 * perProcess}, side by side, ${r.rounds.length} rounds. Rule and governor scaled alike: ${r.limit} requests per ${r.windowMs} ms the rule, ${r.budget} erpsync's budget (\`--ip-runners ${scale}\`, ERPSYNC_IP_WINDOW_SCALE=${1 / scale}); floor ${(r.floorMs / 1000).toFixed(1)} s (the first window's budget at once, each further one a window later). Span: first to last request the accounts received. Load average at the start: ${r.loadAverage.toFixed(1)} (one process planning every store is CPU-bound where the machine is busy; the pair runs on two cores).`,
    '',
    '| requests | one process, span | two at once, span | two ÷ one | most in one window, two at once (budget, rule) | per-IP violations | exits |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ];
}
