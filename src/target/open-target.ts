// Turns a command's target request, the environment and erpsync.config.yaml into an open API client:
// a real account, or the embedded sandbox started in this process when no credentials are
// configured (refused under CI unless --sandbox). plan, apply, drift and export share this request
// and this function. The decision itself is pure (resolve-target.ts); this file does the effects:
// reading the config, checking files, reading secret variables, starting the emulator, debug lines.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import {
  ACCOUNT_RATE_LIMIT,
  checkCredentialsBaseUrl,
  configureProcessGovernor,
  createApiClient,
  createOAuthProvider,
  createStaticTokenProvider,
  DEFAULT_CONFIG_FILE,
  DEFAULT_RATE_RESERVE,
  describeRoute,
  readAccountIdentity,
  routeFor,
  theProcessGovernor,
} from '../api/index.js';
import type { ApiClient, ApiClientOptions, ApiEvent, CredentialProvider, Governor, RemoteTarget, ResolvedTarget, SandboxTarget, TargetBase, TargetsConfig } from '../api/index.js';
import { describeTarget, resolveTarget } from './resolve-target.js';
import type { TargetRequest } from './resolve-target.js';
import { readTargetsConfig } from '../manifest/load-config.js';
import { parseEnvFile } from '../manifest/env-file.js';
import { displayPath } from '../manifest/find-files.js';
import type { AccountIdentity } from '../model/account.js';
import type { Diagnostic } from '../model/diagnostics.js';
import { hasErrors } from '../model/diagnostics.js';
import { renderDiagnosticsText } from '../report/diagnostics-report.js';
import { ErpsyncError } from '../model/errors.js';
import type { VariableScope } from '../model/variables.js';
import type { RunIO } from '../model/run-io.js';
import { writeLine } from '../model/run-io.js';
import type { AccountQuota } from './daily-quota.js';
import { refuseWhenNothingLeft } from './daily-quota.js';
import type { LoginStore, StateStore } from '../state/state-store.js';
import { stateStoreFor, warnWhenUnwritten } from './run-state.js';

export interface OpenedTarget {
  client: ApiClient;
  target: ResolvedTarget;
  /** The company behind the credentials, read once when the target opens (the apply lock keys on its id). */
  account: AccountIdentity;
  /** The first line of every command: the account, where it is, and the target. */
  banner: string;
  /** Requests spent reading the account's identity; a plan counts them in its read cost. */
  identityReads: number;
  /** What is left of the account's daily quota (daily-quota.ts); absent for a sandbox, which has none to keep. */
  dailyQuota?: AccountQuota;
  /** The run's state store (the target's backend): leases, logins, journal, read-back memory, counts. */
  state: StateStore;
  /** Closes the client; for the sandbox, also saves its state file. */
  close(): Promise<void>;
}

export interface OpenTargetOptions {
  /** Receives every client event (after the debug trace, when --debug is on). */
  onEvent?: (event: ApiEvent) => void;
  /** Extra client options (retry, timeouts, secrets of the manifests …). */
  client?: Partial<Omit<ApiClientOptions, 'baseUrl' | 'credentials' | 'onEvent'>>;
}

export async function openTarget(request: TargetRequest, io: RunIO, options: OpenTargetOptions = {}): Promise<OpenedTarget> {
  return openResolvedTarget(await resolveRunTarget(request, io), request, io, options);
}

/** Opens a target already resolved (a fleet resolves all of its stores first), and names its account. */
export async function openResolvedTarget(target: ResolvedTarget, request: Pick<TargetRequest, 'debug'>, io: RunIO, options: OpenTargetOptions = {}): Promise<OpenedTarget> {
  // The backend first: one that cannot be reached stops the run before its first request to the service.
  const state = await stateStoreFor(target.backend, io);
  const debug = request.debug === true;
  let client: ApiClient | undefined;
  const onEvent = (event: ApiEvent): void => {
    if (debug && client) writeLine(io.stderr, client.redact(formatApiEvent(event)));
    options.onEvent?.(event);
  };
  const common = {
    rate: target.rate,
    maxRequests: target.maxRequests,
    ...(target.requestTimeoutMs === undefined ? {} : { timeouts: { requestMs: target.requestTimeoutMs } }),
    signal: io.signal,
    ...options.client,
    onEvent,
  };

  if (target.mode === 'remote') {
    // Every request to a service, and every token refresh, passes the process's one governor (per-IP rules).
    const governor = theProcessGovernor();
    await state.ipBudget.share(governor, target.egress);
    if (debug) for (const line of describeRoutes(target)) writeLine(io.stderr, `debug: proxy: ${line}`);
    return openCountedAccount(target, io, state, governor, async () => {
      client = createApiClient({ governor, ...common, proxy: target.proxy, baseUrl: target.baseUrl, credentials: await createCredentialProvider(target, state.logins, io.env, governor) });
      return client;
    });
  }

  // The debug trace redacts with the client it traces, whichever one the sandbox ends up using.
  return openSandbox(target, common, io, state, (opened) => (client = opened));
}

/**
 * The sandbox on a state file has one owner: a running `erpsync sandbox` on it is talked to (its
 * server holds the state), another command's embedded sandbox is waited for (refused), and
 * otherwise this run claims the file and starts its own emulator for the length of the command.
 */
async function openSandbox(target: SandboxTarget, common: Omit<ApiClientOptions, 'baseUrl' | 'credentials'>, io: RunIO, store: StateStore, track: (client: ApiClient) => ApiClient): Promise<OpenedTarget> {
  const { claimStateFile, createEmulator, modeFromEnvironment, readingsFromEnvironment } = await import('../emulator/index.js');
  const claim = await claimStateFile(target.stateFile, 'cli');
  if (!('release' in claim)) {
    const state = displayPath(target.stateFile, io.cwd);
    if (claim.role !== 'server' || !claim.baseUrl || !claim.token) {
      throw new ErpsyncError('SANDBOX_BUSY', `another erpsync run (pid ${claim.pid}) is using the sandbox state ${state}`, {
        details: ['wait for it to finish, or pass --sandbox-state with another file'],
      });
    }
    const rate = Number.isFinite(target.rate) || !(Number(claim.rateLimit) > 0) ? common.rate : serverPace(Number(claim.rateLimit), target.reserve);
    const client = track(createApiClient({ ...common, rate, baseUrl: claim.baseUrl, credentials: createStaticTokenProvider(claim.token) }));
    const served: SandboxTarget = { ...target, server: claim.baseUrl };
    return nameAccount(client, served, io.cwd, store, () => client.close()).catch((error: unknown) => {
      throw new ErpsyncError('SANDBOX_BUSY', `the sandbox server that owns ${state} (pid ${claim.pid}, ${claim.baseUrl}) does not answer`, {
        cause: error,
        details: ['stop it (Ctrl-C) and run again; the state file is never written by two processes'],
      });
    });
  }
  let emulator: Awaited<ReturnType<typeof createEmulator>> | undefined;
  let client: ApiClient | undefined;
  try {
    // The sandbox has no shared account to protect: its limit is off and the client unpaced unless --rate asks.
    // The run's own environment picks the emulator's reading (tests run the CLI in-process).
    const readings = { ...(io.env.ERPSYNC_EMULATOR_MODE ? { mode: modeFromEnvironment(io.env) } : {}), ...(io.env.ERPSYNC_EMULATOR_READINGS ? { readings: readingsFromEnvironment(io.env) } : {}) };
    emulator = await createEmulator({ seed: 'fresh', stateFile: target.stateFile, rateLimit: 0, ...readings });
    client = track(createApiClient({ ...common, baseUrl: emulator.baseUrl, credentials: createStaticTokenProvider(emulator.token) }));
  } catch (error) {
    await emulator?.close();
    await claim.release();
    throw error;
  }
  const opened = client;
  const running = emulator;
  return nameAccount(opened, target, io.cwd, store, async () => {
    await opened.close();
    await running.close();
    await claim.release();
  });
}

/** A target's key in the request count: the same name may reach another account through another base URL. */
function quotaKeyOf(target: RemoteTarget): string {
  return `${target.name} ${target.baseUrl}`;
}

/**
 * A real account's client, whose requests are added to the account's count for the day when it
 * closes (with a daily 429, if one came); refused before its first request when the count says the
 * account has nothing left today, and once the account is named. A count that cannot be written is
 * a warning: the run itself went as it went, and the service still answers its own daily 429.
 */
async function openCountedAccount(target: RemoteTarget, io: RunIO, state: StateStore, governor: Governor, openClient: () => Promise<ApiClient>): Promise<OpenedTarget> {
  const quota = target.dailyQuota;
  const counts = state.quota;
  const key = quotaKeyOf(target);
  const known = await counts.knownAccount(quota, key);
  if (known !== undefined) refuseWhenNothingLeft(await counts.left(quota, known, 0), 0);
  const client = await openClient();
  let accountId = known;
  const warnUnwritten = warnWhenUnwritten(io, 'the daily request count');
  const close = async (): Promise<void> => {
    try {
      const { total, dailyQuotaMet } = client.stats();
      if (accountId !== undefined) await counts.record(quota, accountId, total, dailyQuotaMet).catch(warnUnwritten);
      await state.ipBudget.handOn(governor);
    } finally {
      await client.close();
    }
  };
  const opened = await nameAccount(client, target, io.cwd, state, close);
  const named = opened.account.id;
  accountId = named;
  try {
    await counts.rememberAccount(quota, key, named).catch(warnUnwritten);
    const sent = client.stats().total;
    refuseWhenNothingLeft(await counts.left(quota, named, sent), sent);
  } catch (error) {
    await close();
    throw error;
  }
  return { ...opened, dailyQuota: { left: () => counts.left(quota, named, client.stats().total) } };
}

/** Reads the account's identity before anything else; a target that cannot name its account is closed again. */
async function nameAccount(client: ApiClient, target: ResolvedTarget, cwd: string, state: StateStore, close: () => Promise<void>): Promise<OpenedTarget> {
  try {
    const account = await readAccountIdentity(client);
    return { client, target, account, banner: describeTarget(target, cwd, account), identityReads: client.stats().total, state, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Resolves the target without opening anything; a fleet passes the config it read once. */
export async function resolveRunTarget(request: TargetRequest, io: RunIO, config?: TargetsConfig): Promise<ResolvedTarget> {
  // Every run resolves its targets before it sends anything: the process's IP share is set here.
  configureProcessGovernor(request.ipRunners, io.env.ERPSYNC_IP_WINDOW_SCALE);
  return resolveTarget({ request, env: io.env, cwd: io.cwd, config: config ?? (await loadTargetsConfig(request, io)), fileExists: existsSync });
}

/** Reads erpsync.config.yaml (or --config, whose env twin the flag table read); undefined when the default file is absent. */
export async function loadTargetsConfig(request: Pick<TargetRequest, 'config'>, io: RunIO): Promise<TargetsConfig | undefined> {
  const explicit = request.config;
  const file = resolve(io.cwd, explicit ?? DEFAULT_CONFIG_FILE);
  let bytes: Uint8Array;
  try {
    bytes = await readFile(file);
  } catch (error) {
    if (explicit === undefined && (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ErpsyncError('CONFIG', `cannot read the config file ${file}`, { cause: error });
  }
  const shown = displayPath(file, io.cwd);
  const read = readTargetsConfig(shown, bytes, dirname(file));
  throwOnDiagnostics(read.diagnostics, `${shown} is not a valid erpsync config (see docs/config.md)`);
  return read.config;
}

/**
 * The variables a target declares by name: its env file, then its `variables` over it (model/variables
 * says what else a manifest may read: ERPSYNC_VAR_* of the environment, and no other variable).
 */
export async function readTargetVariables(target: Pick<TargetBase, 'name' | 'envFile' | 'variables'>, io: Pick<RunIO, 'cwd'>): Promise<Record<string, string>> {
  let fromFile: Record<string, string> = {};
  if (target.envFile !== undefined) {
    const shown = displayPath(target.envFile, io.cwd);
    const text = await readFile(target.envFile, 'utf8').catch((error: unknown) => {
      throw new ErpsyncError('CONFIG', `cannot read the env file ${shown} of target ${target.name}`, { cause: error });
    });
    const parsed = parseEnvFile(shown, text);
    throwOnDiagnostics(parsed.diagnostics, `${shown} (env file of target ${target.name}) has lines erpsync cannot read`);
    fromFile = parsed.values;
  }
  return { ...fromFile, ...target.variables };
}

/** The variables a run's manifests and saved plans read (model/variables): the environment, and the target's own. */
export async function readVariableScope(target: Pick<TargetBase, 'name' | 'envFile' | 'variables'> | undefined, io: Pick<RunIO, 'env' | 'cwd'>): Promise<VariableScope> {
  return target ? { env: io.env, declared: await readTargetVariables(target, io) } : { env: io.env };
}

/** Input problems of the config or an env file: every one, positioned, in one refusal. */
function throwOnDiagnostics(diagnostics: readonly Diagnostic[], message: string): void {
  if (!hasErrors(diagnostics)) return;
  throw new ErpsyncError('CONFIG', message, { details: renderDiagnosticsText(diagnostics) });
}

async function createCredentialProvider(target: RemoteTarget, logins: LoginStore, env: NodeJS.ProcessEnv, governor: Governor): Promise<CredentialProvider> {
  const credentials = target.credentials;
  if (credentials.type === 'token') return createStaticTokenProvider(env[credentials.tokenEnv] ?? '');
  const slot = logins.slot({ target: target.name, baseUrl: target.baseUrl, file: credentials.file });
  // Checked before any client exists: refused credentials never leave this process.
  const login = target.name === 'default' ? `erpsync login --base-url ${target.baseUrl}` : `erpsync login --target ${target.name}`;
  checkCredentialsBaseUrl(await slot.read(), slot.describe, target.baseUrl, login);
  return createOAuthProvider({
    slot,
    clientId: credentials.clientId ?? emptyToUndefined(env[credentials.clientIdEnv]),
    clientSecret: emptyToUndefined(env[credentials.clientSecretEnv]),
    tokenUrl: credentials.tokenUrl,
    proxy: target.proxy,
    governor,
  });
}

/**
 * Which way the target's requests and its token calls go, one line per origin (a proxy's
 * credentials masked), for --debug and doctor: the very decision the client and the token call route by.
 */
export function describeRoutes(target: RemoteTarget): string[] {
  const urls = [new URL(target.baseUrl), ...(target.credentials.type === 'oauth' ? [new URL(target.credentials.tokenUrl)] : [])];
  const origins = [...new Map(urls.map((url) => [url.origin, url])).values()];
  return origins.map((url) => describeRoute(url, routeFor(target.proxy, url)));
}

/**
 * A server with its limit on is paced like the service (unless --rate or the target's `rate` says
 * otherwise): less the default reserve, or less the target's own `reserve` — the share of a 3 req/s
 * account it leaves to others, so at 3 req/s exactly `3 − reserve`, as against a real account.
 */
function serverPace(limit: number, reserve: number | undefined): number {
  if (reserve === undefined) return Math.max(limit - DEFAULT_RATE_RESERVE, limit / 2);
  return (limit * (ACCOUNT_RATE_LIMIT - reserve)) / ACCOUNT_RATE_LIMIT;
}

function emptyToUndefined(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** One debug line per client event (the caller redacts it). */
export function formatApiEvent(event: ApiEvent): string {
  const head = `debug: #${event.requestId}.${event.attempt} ${event.method} ${event.path}`;
  switch (event.type) {
    case 'request-start':
      return `${head} →`;
    case 'request-end':
      return `${head} ← ${event.status ?? event.error ?? '?'} (${event.durationMs} ms)`;
    case 'retry':
      return `${head} retry in ${event.delayMs} ms (${event.reason})`;
    case 'throttled':
      return `${head} throttled by the service; pacing at ${round(event.rate)} req/s`;
    case 'auth-renewed':
      return `${head} access token renewed after 401`;
  }
}

function round(value: number): string {
  return Number.isFinite(value) ? String(Math.round(value * 100) / 100) : 'unlimited';
}
