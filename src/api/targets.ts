// The vocabulary of targets, below every layer that needs it: erpsync.config.yaml's `targets:` as
// read (manifest/load-config makes it), the resolved target that a plan file names and the state
// store is chosen by, the default paths of what a repository keeps, and the fleet's selection of
// target names by globs. Pure; resolving a target from flags, environment and config is
// target/resolve-target's. A resolved target holds no secret (only the names of the variables
// that hold them), so it may be written into a plan file or printed.
import { ErpsyncError } from '../model/errors.js';
import { BLING_API_BASE_URL } from './oauth.js';
import type { ProxySettings } from './proxy.js';
import { parseSecureUrl } from './url.js';

export const DEFAULT_BASE_URL = BLING_API_BASE_URL;
export const DEFAULT_CREDENTIALS_FILE = '.erpsync/credentials.json';
export const DEFAULT_SANDBOX_STATE = '.erpsync/sandbox.json';
export const DEFAULT_CONFIG_FILE = 'erpsync.config.yaml';
/** The journal of applies (workflows/journal), beside the repository's other state. */
export const DEFAULT_JOURNAL_DIR = '.erpsync/journal';
/** The requests sent to each account per service day (target/daily-quota), beside the repository's other state. */
export const DEFAULT_REQUEST_COUNT_FILE = '.erpsync/requests-per-day.json';

/** One entry of `targets:` in erpsync.config.yaml. Secrets are named by variable, never written. */
export interface TargetConfig {
  description?: string;
  /** Who owns the store (logins, teams, e-mail addresses), besides its groups' owners. */
  owners?: string[];
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
  /** Owners per target group, by a glob of target names: every store it matches has them. */
  owners?: Record<string, string[]>;
  /** The config's `backend:` as written (state/open-state resolves it with the environment). */
  backend?: BackendDocument;
  /** The egress IP's name the per-IP budget is shared under. */
  egress?: string;
  /** CI concurrency groups: every target belongs to one of a fixed number, by a hash of its name (workflows/fleet-shards). */
  concurrency?: ConcurrencyConfig;
}

/** `concurrency:` in erpsync.config.yaml: how many concurrency groups the targets hash into (1–1000). */
export interface ConcurrencyConfig {
  groups: number;
}

/** `backend:` in erpsync.config.yaml: `local`, or a PostgreSQL server named by variables. */
export type BackendDocument = 'local' | { postgres: { urlEnv?: string; keyEnv?: string; schema?: string } };

/** The backend a run uses, resolved: the variables it reads are named, never their values. */
export type BackendChoice = { kind: 'local' } | { kind: 'postgres'; urlEnv: string; keyEnv: string; schema: string };

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
  /** The folder of the config that names the target: the working tree its journal must stay inside. Absent: the working folder. */
  configDir?: string;
}

export interface RemoteTarget extends TargetBase {
  mode: 'remote';
  baseUrl: string;
  credentials: TokenCredentials | OAuthCredentials;
  dailyQuota: DailyQuotaTarget;
  /** The run's HTTPS_PROXY / HTTP_PROXY / NO_PROXY, read once: the service and its token host are reached as they say. */
  proxy: ProxySettings;
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

/** A base URL as erpsync keeps it: checked (https, or http on loopback) and without a trailing slash. */
export function normalizeBaseUrl(raw: string): string {
  const url = parseSecureUrl(raw);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
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

/**
 * A store's owners: its own `owners`, then those of every group of `owners:` whose glob matches its
 * name, in the config's order, each once (`maria` and `@maria` are one login).
 */
export function ownersOf(config: TargetsConfig | undefined, name: string): string[] {
  const own = config?.targets[name]?.owners ?? [];
  const grouped = Object.entries(config?.owners ?? {}).flatMap(([glob, owners]) => (targetGlob(glob).test(name) ? owners : []));
  const seen = new Set<string>();
  return [...own, ...grouped].filter((owner) => {
    const key = owner.replace(/^@/, '').toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Whether a --target value names a fleet (several names, or a glob) rather than one target. */
export function isFleetSelection(patterns: string | undefined): boolean {
  return patterns !== undefined && /[,*?]/.test(patterns);
}

export function isCi(env: Readonly<Record<string, string | undefined>>): boolean {
  const ci = env.CI;
  return ci !== undefined && ci.trim() !== '' && !/^(0|false|no)$/i.test(ci.trim());
}
