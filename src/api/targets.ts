// Where a command points, decided from flags, environment and the optional erpsync.config.yaml.
// Pure: the caller reads the config file and says which credential files exist. A resolved target
// holds no secret (only the names of the variables that hold them), so it may be written into a
// plan file or printed.
import { resolve } from 'node:path';
import type { AccountIdentity } from '../model/account.js';
import { describeAccount } from '../model/account.js';
import { ErpsyncError } from '../model/errors.js';
import { ACCOUNT_DAILY_QUOTA, ACCOUNT_RATE_LIMIT, DEFAULT_RATE } from './client.js';
import { BLING_API_BASE_URL, deriveOAuthEndpoints } from './oauth.js';
import { parseSecureUrl } from './url.js';

export const DEFAULT_BASE_URL = BLING_API_BASE_URL;
export const DEFAULT_CREDENTIALS_FILE = '.erpsync/credentials.json';
export const DEFAULT_SANDBOX_STATE = '.erpsync/sandbox.json';
export const DEFAULT_CONFIG_FILE = 'erpsync.config.yaml';
/** The journal of applies (workflows/journal), beside the repository's other state. */
export const DEFAULT_JOURNAL_DIR = '.erpsync/journal';
/** The requests sent to each account per service day (workflows/daily-quota), beside the repository's other state. */
export const DEFAULT_REQUEST_COUNT_FILE = '.erpsync/requests-per-day.json';

/** The target flags, their environment twins already read (the flag table, src/cli/flags.ts). */
export interface TargetFlags {
  'base-url'?: string;
  sandbox?: boolean;
  'sandbox-state'?: string;
  target?: string;
  rate?: string;
  'max-requests'?: string;
  /** The deadline of one request (ms), already read by the flag table. */
  'request-timeout'?: number | undefined;
  /** Runners sharing this machine's egress IP: the per-IP budget is divided among them. */
  'ip-runners'?: string;
  config?: string;
  debug?: boolean;
}

/** One entry of `targets:` in erpsync.config.yaml. Secrets are named by variable, never written. */
export interface TargetConfig {
  description?: string;
  baseUrl?: string;
  rate?: number;
  /** Requests per second left to the account's other integrations: the rate is the limit minus this. */
  reserve?: number;
  /** Requests per service day erpsync may send to the account (default: the account's 120,000 less the reserve's share). */
  dailyQuota?: number;
  maxRequests?: number;
  manifests?: string[];
  credentials?: CredentialsConfig;
  /** Values for the manifests' ${VARS}; they win over the environment. */
  variables?: Record<string, string>;
  /** A KEY=value file with more variables, relative to the config file's folder. */
  envFile?: string;
  /** A sandbox account instead of a real one: its state file, relative to the config file's folder. */
  sandbox?: { state: string };
  /** The journal folder, relative to the config file's folder (default DEFAULT_JOURNAL_DIR). */
  journal?: string;
}

export interface CredentialsConfig {
  /** Variable holding a plain bearer token. */
  tokenEnv?: string;
  clientId?: string;
  clientIdEnv?: string;
  clientSecretEnv?: string;
  /** Credentials file for OAuth refresh, relative to the config file's folder. */
  file?: string;
  tokenUrl?: string;
  authorizeUrl?: string;
}

export interface TargetsConfig {
  /** Folder of the config file; relative paths inside it resolve from here. */
  dir: string;
  targets: Record<string, TargetConfig>;
  /** Staged rollouts of fleet applies, by a glob of target names (the group they apply to). */
  rollouts?: Record<string, RolloutConfig>;
  /** The config's `backend:` as written (state/open-state resolves it with the environment). */
  backend?: BackendDocument;
  /** The egress IP's name the per-IP budget is shared under. */
  egress?: string;
}

/** `backend:` in erpsync.config.yaml: `local`, or a PostgreSQL server named by variables. */
export type BackendDocument = 'local' | { postgres: { urlEnv?: string; keyEnv?: string; schema?: string } };

/** The backend a run uses, resolved: the variables it reads are named, never their values. */
export type BackendChoice = { kind: 'local' } | { kind: 'postgres'; urlEnv: string; keyEnv: string; schema: string };

export const DEFAULT_DATABASE_URL_ENV = 'ERPSYNC_DATABASE_URL';
export const DEFAULT_STATE_KEY_ENV = 'ERPSYNC_STATE_KEY';
export const DEFAULT_BACKEND_SCHEMA = 'erpsync';
export const DEFAULT_EGRESS = 'default';

/**
 * The backend from the config's `backend:` and the environment: ERPSYNC_BACKEND (`local` or
 * `postgres`) overrides the config's kind, ERPSYNC_BACKEND_SCHEMA its schema. Decided once per run.
 */
export function backendChoiceOf(config: Pick<TargetsConfig, 'backend'> | undefined, env: Readonly<Record<string, string | undefined>>): BackendChoice {
  const named = nonEmpty(env.ERPSYNC_BACKEND);
  if (named !== undefined && named !== 'local' && named !== 'postgres') {
    throw new ErpsyncError('CONFIG', `ERPSYNC_BACKEND is ${JSON.stringify(named.slice(0, 40))}; it takes \`local\` or \`postgres\``);
  }
  const document = config?.backend;
  const postgres = typeof document === 'object' ? document.postgres : {};
  const kind = named ?? (typeof document === 'object' ? 'postgres' : 'local');
  if (kind === 'local') return { kind: 'local' };
  return {
    kind: 'postgres',
    urlEnv: postgres.urlEnv ?? DEFAULT_DATABASE_URL_ENV,
    keyEnv: postgres.keyEnv ?? DEFAULT_STATE_KEY_ENV,
    schema: nonEmpty(env.ERPSYNC_BACKEND_SCHEMA) ?? postgres.schema ?? DEFAULT_BACKEND_SCHEMA,
  };
}

/** The egress name: ERPSYNC_EGRESS, else the config's `egress`, else `default`. */
export function egressOf(config: Pick<TargetsConfig, 'egress'> | undefined, env: Readonly<Record<string, string | undefined>>): string {
  const named = nonEmpty(env.ERPSYNC_EGRESS);
  if (named !== undefined && !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/.test(named)) throw new ErpsyncError('CONFIG', 'ERPSYNC_EGRESS must be a short name of letters, digits, `.`, `_` and `-`');
  return named ?? config?.egress ?? DEFAULT_EGRESS;
}

/** How a fleet apply of a target group goes out: a canary set, then waves, halting after failures. */
export interface RolloutConfig {
  /** Names or globs (a comma list or a list), or a count of the group's first stores. */
  canary?: string | string[] | number;
  /** Stores per wave after the canary stage; default all the rest in one wave. */
  waveSize?: number;
  /** Stop after this many failed stores; default 1 (any failure). */
  haltAfter?: number;
}

export interface TokenCredentials {
  type: 'token';
  /** Name of the variable that holds the token. */
  tokenEnv: string;
}

export interface OAuthCredentials {
  type: 'oauth';
  /** Absolute path of the credentials file. */
  file: string;
  clientId?: string;
  clientIdEnv: string;
  clientSecretEnv: string;
  tokenUrl: string;
  authorizeUrl: string;
}

export interface TargetBase {
  /** `default`, the config's target name, or `sandbox`. */
  name: string;
  /** Where what outlives the run is kept (the config's `backend:` and its env twins, decided once here). */
  backend: BackendChoice;
  /** The egress IP's name whose per-IP budget the run shares with every process naming it. */
  egress: string;
  /** Stable identity for plan files: the base URL, or `sandbox:<state file>`. */
  id: string;
  /** Requests per second; Infinity = unpaced (the sandbox unless --rate says otherwise). */
  rate: number;
  maxRequests?: number;
  /** The deadline of one request, headers and body (--request-timeout); the client's default when absent. */
  requestTimeoutMs?: number;
  /** Manifest paths the target names (absolute), when the config gives them: layers, base first. */
  manifests?: string[];
  /** The target's own values for ${VARS} (over the environment and its env file). */
  variables?: Record<string, string>;
  /** Absolute path of the target's env file. */
  envFile?: string;
  /** Absolute path of the journal folder its applies append to; absent: DEFAULT_JOURNAL_DIR in the working folder. */
  journal?: string;
}

export interface RemoteTarget extends TargetBase {
  mode: 'remote';
  baseUrl: string;
  credentials: TokenCredentials | OAuthCredentials;
  dailyQuota: DailyQuotaTarget;
}

/** How much of the account's daily quota erpsync may use, and where it counts what it sent (a sandbox has no quota to keep). */
export interface DailyQuotaTarget {
  perDay: number;
  /** Absolute path of the count, in the repository's state folder (beside the config file, else the working folder). */
  countFile: string;
}

export interface SandboxTarget extends TargetBase {
  mode: 'sandbox';
  /** Absolute path of the emulator's state file. */
  stateFile: string;
  /** `requested` by --sandbox, a `target` of the config that is a sandbox, or chosen because no credentials are configured. */
  reason: 'requested' | 'target' | 'no-credentials';
  /** Base URL of the running `erpsync sandbox` that owns the state file, when this run talks to it. */
  server?: string;
  /** The target's `reserve`: against such a server with its limit on, the share of it left to others. */
  reserve?: number;
}

export type ResolvedTarget = RemoteTarget | SandboxTarget;

export interface ResolveInput {
  flags: TargetFlags;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  config?: TargetsConfig;
  /** Whether a credentials file exists (the only fact from disk the resolution needs). */
  fileExists: (path: string) => boolean;
}

export function resolveTarget(input: ResolveInput): ResolvedTarget {
  const backend = backendChoiceOf(input.config, input.env);
  const shared = { backend, egress: egressOf(input.config, input.env) };
  // With a shared backend, a named target's login lives in the backend: whether it exists is known
  // when the target opens. The default target keeps to the sandbox unless an OAuth app is named.
  const inBackend = (path: string): boolean => input.fileExists(path) || nonEmpty(input.flags.target) !== undefined || nonEmpty(input.env.BLING_CLIENT_ID) !== undefined;
  const withBackend = backend.kind === 'postgres' ? { ...input, fileExists: inBackend } : input;
  const target = { ...resolveTargetOf(withBackend), ...shared };
  const requestTimeoutMs = input.flags['request-timeout'];
  return requestTimeoutMs === undefined ? target : { ...target, requestTimeoutMs };
}

type Unshared<T> = T extends unknown ? Omit<T, 'backend' | 'egress'> : never;

function resolveTargetOf(input: ResolveInput): Unshared<ResolvedTarget> {
  const { flags, env } = input;
  const targetName = nonEmpty(flags.target);
  const explicitBaseUrl = nonEmpty(flags['base-url']);
  const rateOverride = parseRate(flags.rate);
  const maxRequestsOverride = parseCount(flags['max-requests'], '--max-requests');

  if (flags.sandbox === true) {
    if (targetName !== undefined || nonEmpty(flags['base-url']) !== undefined) {
      throw new ErpsyncError('USAGE', '--sandbox cannot be combined with --target or --base-url', {
        details: [`to try a target in a sandbox, give it \`sandbox: true\` in ${DEFAULT_CONFIG_FILE} (see docs/config.md)`],
      });
    }
    return sandboxTarget(input, 'requested', rateOverride, maxRequestsOverride);
  }

  if (targetName !== undefined) {
    const config = input.config;
    const entry = config?.targets[targetName];
    if (!config || !entry) {
      const known = config ? Object.keys(config.targets) : [];
      throw new ErpsyncError('CONFIG', `unknown target '${targetName}'`, {
        details: [known.length > 0 ? `targets in the config: ${known.join(', ')}` : `no targets are defined (add them under \`targets:\` in ${DEFAULT_CONFIG_FILE})`],
      });
    }
    if (entry.sandbox) return configuredSandboxTarget(targetName, entry, config.dir, input.flags, rateOverride, maxRequestsOverride);
    const baseUrl = normalizeBaseUrl(explicitBaseUrl ?? entry.baseUrl ?? DEFAULT_BASE_URL);
    const credentials = targetCredentials(entry.credentials, baseUrl, config.dir, targetName, input);
    if (!credentials) {
      throw new ErpsyncError('AUTH_MISSING', `target '${targetName}' has no credentials available`, {
        details: [describeMissing(entry.credentials, targetName)],
      });
    }
    return {
      mode: 'remote',
      name: targetName,
      id: baseUrl,
      baseUrl,
      credentials,
      rate: rateOverride ?? entry.rate ?? (entry.reserve === undefined ? DEFAULT_RATE : ACCOUNT_RATE_LIMIT - entry.reserve),
      maxRequests: maxRequestsOverride ?? entry.maxRequests,
      dailyQuota: { perDay: entry.dailyQuota ?? dailyShareOf(entry.reserve), countFile: resolve(config.dir, DEFAULT_REQUEST_COUNT_FILE) },
      ...targetInputs(entry, config.dir),
    };
  }

  const baseUrl = normalizeBaseUrl(explicitBaseUrl ?? DEFAULT_BASE_URL);
  const credentials = defaultCredentials(baseUrl, input);
  if (credentials) {
    const dailyQuota = { perDay: ACCOUNT_DAILY_QUOTA, countFile: resolve(input.cwd, DEFAULT_REQUEST_COUNT_FILE) };
    return { mode: 'remote', name: 'default', id: baseUrl, baseUrl, credentials, rate: rateOverride ?? DEFAULT_RATE, maxRequests: maxRequestsOverride, dailyQuota };
  }
  if (explicitBaseUrl !== undefined) {
    throw new ErpsyncError('AUTH_MISSING', `no credentials for ${baseUrl}`, {
      details: ['set BLING_ACCESS_TOKEN, or run `erpsync login` to store OAuth credentials'],
    });
  }
  if (isCi(env)) {
    throw new ErpsyncError('SANDBOX_REFUSED', 'no credentials are configured and CI is set: refusing to fall back to the sandbox', {
      details: ['set BLING_ACCESS_TOKEN (or OAuth credentials), or pass --sandbox to run against the sandbox on purpose'],
    });
  }
  return sandboxTarget(input, 'no-credentials', rateOverride, maxRequestsOverride);
}

/**
 * The requests a day erpsync may send to an account: all of them, or, when the target leaves a
 * `reserve` of the per-second limit to the account's other integrations, as large a share of the
 * day as of the second — they spend the same daily quota, unseen by erpsync's count.
 */
function dailyShareOf(reserve: number | undefined): number {
  return reserve === undefined ? ACCOUNT_DAILY_QUOTA : Math.floor((ACCOUNT_DAILY_QUOTA * (ACCOUNT_RATE_LIMIT - reserve)) / ACCOUNT_RATE_LIMIT);
}

/** A target of the config that is a sandbox account: its own state file, no credentials, allowed under CI (it is explicit). */
function configuredSandboxTarget(name: string, entry: TargetConfig, dir: string, flags: TargetFlags, rate: number | undefined, maxRequests: number | undefined): Unshared<SandboxTarget> {
  const state = entry.sandbox?.state ?? defaultSandboxState(name);
  if (nonEmpty(flags['base-url']) !== undefined) throw new ErpsyncError('USAGE', `target '${name}' is a sandbox: --base-url does not apply to it`);
  return {
    mode: 'sandbox',
    name,
    id: `sandbox:${state}`,
    stateFile: resolve(dir, state),
    reason: 'target',
    rate: rate ?? entry.rate ?? Number.POSITIVE_INFINITY,
    maxRequests: maxRequests ?? entry.maxRequests,
    ...(entry.reserve === undefined ? {} : { reserve: entry.reserve }),
    ...targetInputs(entry, dir),
  };
}

/** What a target's manifests are made of, from its entry: paths resolved from the config's folder. */
function targetInputs(entry: TargetConfig, dir: string): Pick<TargetBase, 'manifests' | 'variables' | 'envFile' | 'journal'> {
  return {
    journal: resolve(dir, entry.journal ?? DEFAULT_JOURNAL_DIR),
    ...(entry.manifests ? { manifests: entry.manifests.map((m) => resolve(dir, m)) } : {}),
    ...(entry.variables ? { variables: entry.variables } : {}),
    ...(entry.envFile ? { envFile: resolve(dir, entry.envFile) } : {}),
  };
}

function sandboxTarget(input: ResolveInput, reason: SandboxTarget['reason'], rate: number | undefined, maxRequests: number | undefined): Unshared<SandboxTarget> {
  const state = nonEmpty(input.flags['sandbox-state']) ?? DEFAULT_SANDBOX_STATE;
  const stateFile = resolve(input.cwd, state);
  return { mode: 'sandbox', name: 'sandbox', id: `sandbox:${state}`, stateFile, reason, rate: rate ?? Number.POSITIVE_INFINITY, maxRequests };
}

function defaultCredentials(baseUrl: string, input: ResolveInput): TokenCredentials | OAuthCredentials | undefined {
  if (nonEmpty(input.env.BLING_ACCESS_TOKEN) !== undefined) return { type: 'token', tokenEnv: 'BLING_ACCESS_TOKEN' };
  const file = resolve(input.cwd, nonEmpty(input.env.ERPSYNC_CREDENTIALS_FILE) ?? DEFAULT_CREDENTIALS_FILE);
  if (!input.fileExists(file)) return undefined;
  return { type: 'oauth', file, clientIdEnv: 'BLING_CLIENT_ID', clientSecretEnv: 'BLING_CLIENT_SECRET', ...deriveOAuthEndpoints(baseUrl) };
}

function targetCredentials(
  config: CredentialsConfig | undefined,
  baseUrl: string,
  dir: string,
  name: string,
  input: ResolveInput,
): TokenCredentials | OAuthCredentials | undefined {
  const tokenEnv = config?.tokenEnv ?? 'BLING_ACCESS_TOKEN';
  if (nonEmpty(input.env[tokenEnv]) !== undefined) return { type: 'token', tokenEnv };
  const file = resolve(dir, config?.file ?? defaultTargetCredentialsFile(name));
  if (!input.fileExists(file)) return undefined;
  const endpoints = deriveOAuthEndpoints(baseUrl);
  return {
    type: 'oauth',
    file,
    clientId: config?.clientId,
    clientIdEnv: config?.clientIdEnv ?? 'BLING_CLIENT_ID',
    clientSecretEnv: config?.clientSecretEnv ?? 'BLING_CLIENT_SECRET',
    tokenUrl: config?.tokenUrl ?? endpoints.tokenUrl,
    authorizeUrl: config?.authorizeUrl ?? endpoints.authorizeUrl,
  };
}

/** What a target's manifests are made of, without its credentials (for offline validation). */
export function describeTargetManifests(config: TargetsConfig | undefined, name: string): Pick<TargetBase, 'name' | 'manifests' | 'variables' | 'envFile'> {
  const entry = config?.targets[name];
  if (!config || !entry) throw new ErpsyncError('CONFIG', `unknown target '${name}'`, { details: [`targets in the config: ${Object.keys(config?.targets ?? {}).join(', ') || 'none'}`] });
  return { name, ...targetInputs(entry, config.dir) };
}

/**
 * The state file of a sandbox target (`sandbox: true`), relative to the config: one per target, so
 * each is an account of its own. A '/' of the name becomes '.', which names cannot hold: no two
 * targets share a file.
 */
export function defaultSandboxState(name: string): string {
  return `.erpsync/sandbox-${name.replaceAll('/', '.')}.json`;
}

/** Each named target keeps its own refresh token: one login per store. */
export function defaultTargetCredentialsFile(name: string): string {
  return `.erpsync/credentials-${name}.json`;
}

function describeMissing(config: CredentialsConfig | undefined, name: string): string {
  const tokenEnv = config?.tokenEnv ?? 'BLING_ACCESS_TOKEN';
  const file = config?.file ?? defaultTargetCredentialsFile(name);
  return `set ${tokenEnv}, or run \`erpsync login --target ${name}\` to create ${file}`;
}

/**
 * Where `erpsync login` stores what it obtains and which endpoints it uses, for the default
 * target or a named one. Unlike resolveTarget it does not require credentials to exist yet.
 */
export function resolveLoginTarget(input: Omit<ResolveInput, 'fileExists'>): {
  name: string;
  baseUrl: string;
  file: string;
  clientId?: string;
  clientIdEnv: string;
  clientSecretEnv: string;
  tokenUrl: string;
  authorizeUrl: string;
} {
  const { flags, env, cwd } = input;
  if (flags.sandbox === true) throw new ErpsyncError('USAGE', 'login is for real accounts; the sandbox needs no login');
  const targetName = nonEmpty(flags.target);
  const explicitBaseUrl = nonEmpty(flags['base-url']);
  if (targetName === undefined) {
    const baseUrl = normalizeBaseUrl(explicitBaseUrl ?? DEFAULT_BASE_URL);
    return {
      name: 'default',
      baseUrl,
      file: resolve(cwd, nonEmpty(env.ERPSYNC_CREDENTIALS_FILE) ?? DEFAULT_CREDENTIALS_FILE),
      clientIdEnv: 'BLING_CLIENT_ID',
      clientSecretEnv: 'BLING_CLIENT_SECRET',
      ...deriveOAuthEndpoints(baseUrl),
    };
  }
  const entry = input.config?.targets[targetName];
  if (!input.config || !entry) throw new ErpsyncError('CONFIG', `unknown target '${targetName}'`);
  if (entry.sandbox) throw new ErpsyncError('USAGE', `target '${targetName}' is a sandbox account: it needs no login`);
  const baseUrl = normalizeBaseUrl(explicitBaseUrl ?? entry.baseUrl ?? DEFAULT_BASE_URL);
  const endpoints = deriveOAuthEndpoints(baseUrl);
  const c = entry.credentials;
  return {
    name: targetName,
    baseUrl,
    file: resolve(input.config.dir, c?.file ?? defaultTargetCredentialsFile(targetName)),
    clientId: c?.clientId,
    clientIdEnv: c?.clientIdEnv ?? 'BLING_CLIENT_ID',
    clientSecretEnv: c?.clientSecretEnv ?? 'BLING_CLIENT_SECRET',
    tokenUrl: c?.tokenUrl ?? endpoints.tokenUrl,
    authorizeUrl: c?.authorizeUrl ?? endpoints.authorizeUrl,
  };
}

/**
 * The first line of every command that reaches an account: which company, where, and through
 * which target — `Account: Loja Nova Ltda (CNPJ …) · api.bling.com.br · target producao`.
 */
export function describeTarget(target: ResolvedTarget, cwd: string, account: AccountIdentity): string {
  const head = `Account: ${describeAccount(account)}`;
  if (target.mode === 'remote') {
    const credentials = target.credentials;
    const via =
      target.name !== 'default'
        ? `target ${target.name}`
        : credentials.type === 'token'
          ? `token from ${credentials.tokenEnv}`
          : `OAuth credentials in ${relativeOrAbsolute(credentials.file, cwd)}`;
    return `${head} · ${new URL(target.baseUrl).host} · ${via}`;
  }
  const state = relativeOrAbsolute(target.stateFile, cwd);
  const named = target.reason === 'target' ? ` · target ${target.name}` : '';
  if (target.server !== undefined) return `${head} · sandbox server ${new URL(target.server).host} (state in ${state})${named}`;
  return target.reason === 'no-credentials'
    ? `${head} · local sandbox (state in ${state}; no credentials configured: set BLING_ACCESS_TOKEN or run \`erpsync login\` to use a real account)`
    : `${head} · local sandbox (state in ${state})${named}`;
}

function relativeOrAbsolute(path: string, cwd: string): string {
  const prefix = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}

/** A base URL as erpsync keeps it: checked (https, or http on loopback) and without a trailing slash. */
export function normalizeBaseUrl(raw: string): string {
  const url = parseSecureUrl(raw);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function parseRate(raw: string | undefined): number | undefined {
  if (nonEmpty(raw) === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new ErpsyncError('USAGE', `--rate must be a positive number of requests per second (got '${raw}')`);
  return value;
}

function parseCount(raw: string | undefined, flag: string): number | undefined {
  if (nonEmpty(raw) === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new ErpsyncError('USAGE', `${flag} must be a positive integer (got '${raw}')`);
  return value;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/**
 * The targets a fleet run selects: `--all-targets`, or `--target` with names and globs separated by
 * commas (`lojas/*`: `*` stays inside one segment, `**` crosses them). Sorted; a name or pattern
 * that selects nothing is an error, so a typo never shrinks a fleet silently.
 */
export function selectTargets(config: TargetsConfig | undefined, selection: { patterns?: string; all?: boolean }): string[] {
  const names = Object.keys(config?.targets ?? {}).sort();
  if (names.length === 0) throw new ErpsyncError('CONFIG', `no targets are defined (add them under \`targets:\` in ${DEFAULT_CONFIG_FILE})`);
  if (selection.all === true) return names;
  const selected = new Set<string>();
  for (const pattern of (selection.patterns ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const regex = targetGlob(pattern);
    const matching = names.filter((name) => regex.test(name));
    if (matching.length === 0) throw new ErpsyncError('CONFIG', `--target ${pattern} selects no target`, { details: [`targets in the config: ${names.join(', ')}`] });
    for (const name of matching) selected.add(name);
  }
  return [...selected].sort();
}

/** A target-name glob: `*` and `?` within a segment, `**` across segments. */
export function targetGlob(pattern: string): RegExp {
  const source = pattern
    .split('**')
    .map((part) => part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]'))
    .join('.*');
  return new RegExp(`^${source}$`);
}

/** Whether a --target value names a fleet (several names, or a glob) rather than one target. */
export function isFleetSelection(patterns: string | undefined): boolean {
  return patterns !== undefined && /[,*?]/.test(patterns);
}

export function isCi(env: Readonly<Record<string, string | undefined>>): boolean {
  const ci = env.CI;
  return ci !== undefined && ci.trim() !== '' && !/^(0|false|no)$/i.test(ci.trim());
}
