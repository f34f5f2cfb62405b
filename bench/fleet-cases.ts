// The fleet every case of `npm run bench:fleet` builds (sandbox accounts, a working folder whose
// config names one target per account, the env that points a run at them), and two of issue 23's
// fleet cases:
// - 100 OAuth targets whose access tokens have all expired: one `plan --all-targets` must refresh
//   every token through the governor (at most 20 token calls in any token window, as the emulator's
//   shared per-IP ledger counts them) and every store must run. The per-IP windows are scaled by
//   `windowScale` in the ledger and, through ERPSYNC_IP_WINDOW_SCALE, in the governor alike, so
//   minutes of 60 s windows take seconds; counts and limits are the service's.
// - A running `erpsync sandbox` server at 3 req/s: applies through it alone and beside a neighbour
//   sending 1 req/s with the same token; erpsync's answers are read from its own --debug trace.
//   With a `reserve`, the apply goes through a sandbox target of a config that sets it (the
//   documented remedy for a known neighbour), instead of `--sandbox`.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { requestToken, storedFromTokenSet, writeCredentialsFile } from '../src/api/index.js';
import type { StoredCredentials } from '../src/api/index.js';
import { createEmulator, createIpLedger, defaultOAuthClient, serviceIpRules } from '../src/emulator/index.js';
import type { Emulator, IpLedger } from '../src/emulator/index.js';
import { stringify } from 'yaml';
import { bin, runBuiltCli } from './measure.js';

/** examples/loja-nova's one secret field, read from the environment. */
const secrets = { NFSE_SENHA_PREFEITURA: 'demo' };

/** `count` sandbox accounts judged by `ledger`, numbered from `from` (their company ids differ), each a fresh account or one opened from `seed`. */
export async function openAccounts(count: number, ledger: IpLedger, from = 0, seed = 'fresh'): Promise<Emulator[]> {
  const accounts: Emulator[] = [];
  for (let i = from; i < from + count; i += 1) accounts.push(await createEmulator({ seed, rateLimit: 3, ipRules: ledger, company: { id: `conta-${i}`, nome: `Loja ${i} Ltda` } }));
  return accounts;
}

/**
 * A ledger for sandbox accounts whose judge can be swapped: the bench's own set-up (authorizations,
 * the upkeep) goes to one that only counts, each measured run to its own.
 */
export function switchableLedger(initial: IpLedger): IpLedger & { use(ledger: IpLedger): void } {
  let active = initial;
  return {
    get enforce() {
      return active.enforce;
    },
    admit: (ip, tokenCall) => active.admit(ip, tokenCall),
    recordError: (ip) => active.recordError(ip),
    violations: () => active.violations(),
    refused: () => active.refused(),
    reset: () => active.reset(),
    use: (ledger) => (active = ledger),
  };
}

export type FleetBase = 'loja-nova' | 'small';

/**
 * A fleet's working folder: its config (one target per account, numbered from `from`) and its
 * manifests in `base/`, an hour old as a checkout is (a file changed within two seconds is read
 * again for every store). `small` is the fleet rows' base: three groups and two categories.
 */
export function writeFleetFolder(dir: string, accounts: readonly Emulator[], base: FleetBase, from = 0): void {
  mkdirSync(path.join(dir, 'base'), { recursive: true });
  const config = ['version: 1', 'targets:'];
  accounts.forEach((account, at) => {
    const i = from + at;
    config.push(`  lojas/loja-${String(i).padStart(3, '0')}:`, `    baseUrl: ${account.baseUrl}`, `    credentials: { tokenEnv: TOKEN_${i} }`, '    manifests: [base]', `    variables: { LOJA: "${i}" }`);
  });
  writeFileSync(path.join(dir, 'erpsync.config.yaml'), `${config.join('\n')}\n`);
  if (base === 'loja-nova') cpSync(path.join(process.cwd(), 'examples/loja-nova'), path.join(dir, 'base'), { recursive: true });
  else writeFileSync(path.join(dir, 'base/grupos.yaml'), stringify({ version: 1, gruposProdutos: [{ nome: 'Revenda' }, { nome: 'Brindes' }, { nome: 'Loja ${LOJA}' }], categoriasProdutos: [{ descricao: 'Cabelos' }, { descricao: 'Shampoos', categoriaPai: 'Cabelos' }] }));
  const hourAgo = new Date(Date.now() - 3_600_000);
  for (const file of readdirSync(path.join(dir, 'base'))) utimesSync(path.join(dir, 'base', file), hourAgo, hourAgo);
}

/** What points a run at its accounts (their tokens) and keeps its per-user state in its own folder. */
export function runEnv(dir: string, accounts: readonly Emulator[], from = 0): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...secrets, HOME: dir, ERPSYNC_LOCK_DIR: path.join(dir, '.locks') };
  accounts.forEach((account, at) => (env[`TOKEN_${from + at}`] = account.token));
  return env;
}

export interface OAuthFleetResult {
  stores: number;
  storesOk: number;
  tokenCalls: number;
  /** The most token calls the ledger saw in any window of `windowMs`. */
  mostInWindow: number;
  windowMs: number;
  violations: number;
  wallMs: number;
}

/** The most marks within any window: a sliding window over the sorted times. */
export function mostInAnyWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; last < sorted.length; last += 1) {
    while ((sorted[last] ?? 0) - (sorted[first] ?? 0) >= windowMs) first += 1;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

/** Authorizes the emulator's OAuth app as a browser would: the login `erpsync login` would store. */
export async function authorizeAccount(emulator: Emulator): Promise<StoredCredentials> {
  const app = defaultOAuthClient;
  const url = new URL(`${emulator.baseUrl}/oauth/authorize`);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', app.clientId);
  url.searchParams.set('state', 'bench');
  const code = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location') ?? 'http://x/').searchParams.get('code');
  if (!code) throw new Error('the emulator gave no authorization code');
  const tokenUrl = `${emulator.baseUrl}/oauth/token`;
  const set = await requestToken({ tokenUrl, clientId: app.clientId, clientSecret: app.clientSecret, grant: { type: 'authorization_code', code } });
  return storedFromTokenSet(set, { baseUrl: emulator.baseUrl, clientId: app.clientId, tokenUrl, now: Date.now() });
}

/** Authorizes and stores the tokens as already expired. */
async function storeExpiredTokens(emulator: Emulator, file: string): Promise<void> {
  await writeCredentialsFile(file, { ...(await authorizeAccount(emulator)), expiresAt: new Date(0).toISOString() });
}

export async function measureOAuthFleet(dir: string, stores: number, windowScale: number): Promise<OAuthFleetResult> {
  const rules = serviceIpRules.map((rule) => ({ ...rule, windowMs: rule.windowMs * windowScale, blockMs: rule.blockMs * windowScale }));
  // The bench's own authorizations go to a ledger that only counts; the run's to the blocking one.
  const measured = createIpLedger({ rules });
  const ledger = switchableLedger(createIpLedger({ rules, enforce: false }));
  const emulators: Emulator[] = [];
  const config = ['version: 1', 'targets:'];
  mkdirSync(path.join(dir, 'base'), { recursive: true });
  writeFileSync(path.join(dir, 'base/grupos.yaml'), 'version: 1\ngruposProdutos:\n  - nome: Revenda\n');
  try {
    for (let i = 0; i < stores; i += 1) {
      const emulator = await createEmulator({ rateLimit: 3, ipRules: ledger, company: { id: `conta-${i}`, nome: `Loja ${i} Ltda` } });
      emulators.push(emulator);
      await storeExpiredTokens(emulator, path.join(dir, 'creds', `loja-${i}.json`));
      config.push(`  lojas/loja-${String(i).padStart(3, '0')}:`, `    baseUrl: ${emulator.baseUrl}`, `    credentials: { file: creds/loja-${i}.json }`, '    manifests: [base]');
    }
    writeFileSync(path.join(dir, 'erpsync.config.yaml'), `${config.join('\n')}\n`);
    ledger.use(measured);
    for (const e of emulators) e.clearLog();
    const env = { BLING_CLIENT_ID: defaultOAuthClient.clientId, BLING_CLIENT_SECRET: defaultOAuthClient.clientSecret, ERPSYNC_IP_WINDOW_SCALE: String(windowScale), ERPSYNC_LOCK_DIR: path.join(dir, '.locks') };
    const run = await runBuiltCli(['plan', '--all-targets', '--parallel', String(stores), '--json'], env, dir);
    const times = emulators.flatMap((e) => e.requestLog().filter((r) => r.path === '/oauth/token').map((r) => r.at));
    // The fleet report is one JSON document; a run that failed as a whole prints none.
    let report: { rows?: { exitCode: number }[] } | undefined;
    try {
      report = JSON.parse(run.stdout) as typeof report;
    } catch {
      process.stderr.write(`bench:fleet: the OAuth plan printed no fleet report (exit ${run.code}): ${run.stderr.slice(-600)}\n`);
    }
    const windowMs = (rules.find((r) => r.name === 'token-calls')?.windowMs ?? 0);
    return {
      stores,
      // A plan exits 0 (no changes) or 2 (changes) per store; anything else did not run.
      storesOk: (report?.rows ?? []).filter((row) => row.exitCode === 0 || row.exitCode === 2).length,
      tokenCalls: times.length,
      mostInWindow: mostInAnyWindow(times, windowMs),
      windowMs,
      violations: ledger.violations().length,
      wallMs: run.wallMs,
    };
  } finally {
    await Promise.all(emulators.map((e) => e.close()));
  }
}

export interface ServerApplyResult {
  label: string;
  neighbour: boolean;
  /** The target's `reserve` (req/s left to others), when the apply ran through a target that sets one. */
  reserve?: number;
  requests: number;
  throttled: number;
  failed: number;
  exit: number | null;
  wallMs: number;
  neighbourSent: number;
}

/** Starts `erpsync sandbox` on `state` at 3 req/s; resolves with its URL and token, and how to stop it. */
async function startSandboxServer(dir: string, state: string, seed: string): Promise<{ url: string; token: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [bin, 'sandbox', '--state', state, '--seed', seed, '--rate-limit', '3'], { cwd: dir, env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Press Ctrl-C')) resolve();
    });
    child.once('close', (code) => reject(new Error(`erpsync sandbox exited ${code}: ${out}`)));
  });
  const url = /listening on (\S+)/.exec(out)?.[1] ?? '';
  const token = /token:\s+(\S+)/.exec(out)?.[1] ?? '';
  return {
    url,
    token,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** One apply of `manifests` through a sandbox server at 3 req/s opened from `seed`, with or without a 1 req/s neighbour. */
export async function measureServerApply(dir: string, label: string, manifests: string, seed: string, neighbour: boolean, env: NodeJS.ProcessEnv, reserve?: number): Promise<ServerApplyResult> {
  mkdirSync(dir, { recursive: true });
  if (reserve !== undefined) writeFileSync(path.join(dir, 'erpsync.config.yaml'), `version: 1\ntargets:\n  shared:\n    sandbox: { state: state.json }\n    reserve: ${reserve}\n`);
  const how = reserve === undefined ? ['--sandbox', '--sandbox-state', 'state.json'] : ['--target', 'shared'];
  const server = await startSandboxServer(dir, 'state.json', seed);
  let neighbourSent = 0;
  const timer = neighbour
    ? setInterval(() => {
        neighbourSent += 1;
        fetch(`${server.url}/empresas/me/dados-basicos`, { headers: { Authorization: `Bearer ${server.token}` } }).then((r) => r.arrayBuffer(), () => undefined);
      }, 1_000)
    : undefined;
  try {
    const run = await runBuiltCli(['apply', manifests, ...how, '--auto-approve', '--debug'], { ...env, ERPSYNC_LOCK_DIR: path.join(dir, '.locks') }, dir);
    const answers = run.stderr.split('\n').filter((line) => / ← \d{3} /.test(line));
    return {
      label,
      neighbour,
      ...(reserve === undefined ? {} : { reserve }),
      requests: answers.length,
      throttled: answers.filter((line) => / ← 429 /.test(line)).length,
      failed: answers.filter((line) => / ← [45]\d\d /.test(line) && !/ ← 429 /.test(line)).length,
      exit: run.code,
      wallMs: run.wallMs,
      neighbourSent,
    };
  } finally {
    if (timer) clearInterval(timer);
    await server.stop();
  }
}
