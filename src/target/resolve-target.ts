// Where a command points, decided from its target request (its target flags, each read and checked
// once by the flag table, src/cli/flags.ts), the environment and the optional erpsync.config.yaml:
// the target, its backend and egress name, where `erpsync login` stores a login, and the banner
// naming the account. Pure, and it parses no flag again: the caller reads the config file and says
// which credential files exist (target/open-target does the effects).
import { resolve } from 'node:path';
import { ACCOUNT_DAILY_QUOTA, ACCOUNT_RATE_LIMIT, DEFAULT_BASE_URL, DEFAULT_CONFIG_FILE, DEFAULT_CREDENTIALS_FILE, DEFAULT_JOURNAL_DIR, DEFAULT_RATE, DEFAULT_REQUEST_COUNT_FILE, DEFAULT_SANDBOX_STATE, defaultSandboxState, defaultTargetCredentialsFile, deriveOAuthEndpoints, isCi, normalizeBaseUrl, readProxySettings } from '../api/index.js';
import type { BackendChoice, CredentialsConfig, OAuthCredentials, ResolvedTarget, SandboxTarget, TargetBase, TargetConfig, TargetsConfig, TokenCredentials } from '../api/index.js';
import type { AccountIdentity } from '../model/account.js';
import { describeAccount } from '../model/account.js';
import { ErpsyncError } from '../model/errors.js';

/** Where a command asks to point: its target flags with their env twins, already read and checked (numbers as numbers). */
export interface TargetRequest {
  /** A target of the config (--target); absent: the default target. */
  target?: string | undefined;
  baseUrl?: string | undefined;
  sandbox?: boolean | undefined;
  sandboxState?: string | undefined;
  /** Requests per second, over the target's own. */
  rate?: number | undefined;
  maxRequests?: number | undefined;
  /** The deadline of one request (ms). */
  requestTimeoutMs?: number | undefined;
  /** Runners sharing this machine's egress IP: the per-IP budget is divided among them. */
  ipRunners?: number | undefined;
  /** The config file (--config); absent: erpsync.config.yaml when it exists. */
  config?: string | undefined;
  debug?: boolean | undefined;
}

const DEFAULT_DATABASE_URL_ENV = 'ERPSYNC_DATABASE_URL';
const DEFAULT_STATE_KEY_ENV = 'ERPSYNC_STATE_KEY';
const DEFAULT_BACKEND_SCHEMA = 'erpsync';
const DEFAULT_EGRESS = 'default';

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

export interface ResolveInput {
  request: TargetRequest;
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
  const inBackend = (path: string): boolean => input.fileExists(path) || nonEmpty(input.request.target) !== undefined || nonEmpty(input.env.BLING_CLIENT_ID) !== undefined;
  const withBackend = backend.kind === 'postgres' ? { ...input, fileExists: inBackend } : input;
  const resolved = resolveTargetOf(withBackend);
  // The embedded sandbox is served in this process: only a remote target's requests leave the machine's loopback.
  const target = resolved.mode === 'remote' ? { ...resolved, ...shared, proxy: readProxySettings(input.env) } : { ...resolved, ...shared };
  const requestTimeoutMs = input.request.requestTimeoutMs;
  return requestTimeoutMs === undefined ? target : { ...target, requestTimeoutMs };
}

type Unshared<T> = T extends unknown ? Omit<T, 'backend' | 'egress' | 'proxy'> : never;

function resolveTargetOf(input: ResolveInput): Unshared<ResolvedTarget> {
  const { request, env } = input;
  const targetName = nonEmpty(request.target);
  const explicitBaseUrl = nonEmpty(request.baseUrl);

  if (request.sandbox === true) {
    if (targetName !== undefined || explicitBaseUrl !== undefined) {
      throw new ErpsyncError('USAGE', '--sandbox cannot be combined with --target or --base-url', {
        details: [`to try a target in a sandbox, give it \`sandbox: true\` in ${DEFAULT_CONFIG_FILE} (see docs/config.md)`],
      });
    }
    return sandboxTarget(input, 'requested');
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
    if (entry.sandbox) return configuredSandboxTarget(targetName, entry, config.dir, request);
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
      rate: request.rate ?? entry.rate ?? (entry.reserve === undefined ? DEFAULT_RATE : ACCOUNT_RATE_LIMIT - entry.reserve),
      maxRequests: request.maxRequests ?? entry.maxRequests,
      dailyQuota: { perDay: entry.dailyQuota ?? dailyShareOf(entry.reserve), countFile: resolve(config.dir, DEFAULT_REQUEST_COUNT_FILE) },
      ...targetInputs(entry, config.dir),
    };
  }

  const baseUrl = normalizeBaseUrl(explicitBaseUrl ?? DEFAULT_BASE_URL);
  const credentials = defaultCredentials(baseUrl, input);
  if (credentials) {
    const dailyQuota = { perDay: ACCOUNT_DAILY_QUOTA, countFile: resolve(input.cwd, DEFAULT_REQUEST_COUNT_FILE) };
    return { mode: 'remote', name: 'default', id: baseUrl, baseUrl, credentials, rate: request.rate ?? DEFAULT_RATE, maxRequests: request.maxRequests, dailyQuota };
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
  return sandboxTarget(input, 'no-credentials');
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
function configuredSandboxTarget(name: string, entry: TargetConfig, dir: string, request: TargetRequest): Unshared<SandboxTarget> {
  const state = entry.sandbox?.state ?? defaultSandboxState(name);
  if (nonEmpty(request.baseUrl) !== undefined) throw new ErpsyncError('USAGE', `target '${name}' is a sandbox: --base-url does not apply to it`);
  return {
    mode: 'sandbox',
    name,
    id: `sandbox:${state}`,
    stateFile: resolve(dir, state),
    reason: 'target',
    rate: request.rate ?? entry.rate ?? Number.POSITIVE_INFINITY,
    maxRequests: request.maxRequests ?? entry.maxRequests,
    ...(entry.reserve === undefined ? {} : { reserve: entry.reserve }),
    ...targetInputs(entry, dir),
  };
}

/** What a target's manifests are made of, from its entry: paths resolved from the config's folder. */
function targetInputs(entry: TargetConfig, dir: string): Pick<TargetBase, 'manifests' | 'variables' | 'envFile' | 'journal' | 'configDir'> {
  return {
    journal: resolve(dir, entry.journal ?? DEFAULT_JOURNAL_DIR),
    configDir: dir,
    ...(entry.manifests ? { manifests: entry.manifests.map((m) => resolve(dir, m)) } : {}),
    ...(entry.variables ? { variables: entry.variables } : {}),
    ...(entry.envFile ? { envFile: resolve(dir, entry.envFile) } : {}),
  };
}

function sandboxTarget(input: ResolveInput, reason: SandboxTarget['reason']): Unshared<SandboxTarget> {
  const { request } = input;
  const state = nonEmpty(request.sandboxState) ?? DEFAULT_SANDBOX_STATE;
  const stateFile = resolve(input.cwd, state);
  return { mode: 'sandbox', name: 'sandbox', id: `sandbox:${state}`, stateFile, reason, rate: request.rate ?? Number.POSITIVE_INFINITY, maxRequests: request.maxRequests };
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

function describeMissing(config: CredentialsConfig | undefined, name: string): string {
  const tokenEnv = config?.tokenEnv ?? 'BLING_ACCESS_TOKEN';
  const file = config?.file ?? defaultTargetCredentialsFile(name);
  return `set ${tokenEnv}, or run \`erpsync login --target ${name}\` to create ${file}`;
}

/**
 * Where `erpsync login` stores what it obtains and which endpoints it uses, for the default
 * target or a named one. Unlike resolveTarget it does not require credentials to exist yet.
 */
export function resolveLoginTarget(input: Omit<ResolveInput, 'fileExists'>): Omit<OAuthCredentials, 'type'> & { name: string; baseUrl: string } {
  const { request, env, cwd } = input;
  if (request.sandbox === true) throw new ErpsyncError('USAGE', 'login is for real accounts; the sandbox needs no login');
  const targetName = nonEmpty(request.target);
  const explicitBaseUrl = nonEmpty(request.baseUrl);
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

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
