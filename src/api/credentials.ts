// Where access tokens come from: a static bearer token, or OAuth refresh with a credentials file.
// Refresh tokens rotate (each refresh invalidates the previous one), so the new set is written to
// disk (temp file, fsync, rename, fsync of the folder; mode 0600: model/write-file-atomically)
// BEFORE the new access token is handed out: once a refresh has returned, no crash can leave the
// only valid refresh token in a dead process's memory. A credentials file that is a symbolic link
// is refused before a refresh spends the old token, since the new one could not be stored there.
// One refresh at a time per credentials file, across processes (a lease lock beside it): a
// waiting process re-reads the file and uses what the other one stored. The one window no client
// can close is a crash between the token endpoint's answer and the write: the next run is refused
// (invalid_grant) and says to log in again. Concurrent callers of one process share one refresh.
// Nothing here prints; secrets are exposed only through `secrets()`.
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ProxySettings } from './proxy.js';
import { ErpsyncError, isErpsyncError } from '../model/errors.js';
import { makeDirectory, refuseSymbolicLink, writeFileAtomically } from '../model/write-file-atomically.js';
import type { Governor } from './governor.js';
import { acquireLeaseLock } from './lease-lock.js';
import { requestToken } from './oauth.js';
import type { TokenSet } from './oauth.js';
import { isPlainRecord } from '../model/paths.js';

export interface CredentialProvider {
  readonly kind: 'token' | 'oauth';
  /** A token to send now; refreshes first when the current one is about to expire. */
  accessToken(signal?: AbortSignal): Promise<string>;
  /**
   * Called once per request after a 401 answered `rejected`: another token worth one more try, or
   * undefined when there is none (a static token, or one that was refreshed a moment ago).
   */
  renewAfterRejection(rejected: string, signal?: AbortSignal): Promise<string | undefined>;
  /** Every secret value this provider has held, for redaction. */
  secrets(): readonly string[];
}

export function createStaticTokenProvider(token: string): CredentialProvider {
  if (token.trim() === '') throw new ErpsyncError('AUTH_MISSING', 'the access token is empty');
  return {
    kind: 'token',
    accessToken: async () => token,
    renewAfterRejection: async () => undefined,
    secrets: () => [token],
  };
}

/** The credentials file (JSON, mode 0600). Times are ISO strings so a person can read them. */
export interface StoredCredentials {
  version: 1;
  /** The API base URL the tokens were issued for: they are never sent anywhere else. */
  baseUrl?: string;
  clientId?: string;
  tokenUrl?: string;
  refreshToken: string;
  accessToken?: string;
  expiresAt?: string;
  scope?: string;
  updatedAt: string;
}

export async function readCredentialsFile(file: string): Promise<StoredCredentials> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ErpsyncError('AUTH_MISSING', `cannot read the credentials file ${file}`, { cause: stripError(error), details: ['run `erpsync login` to create it'] });
  }
  return parseStoredCredentials(text, file);
}

export function parseStoredCredentials(text: string, file: string): StoredCredentials {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ErpsyncError('CONFIG', `the credentials file ${file} is not valid JSON`, { details: ['run `erpsync login` to write it again'] });
  }
  if (!isPlainRecord(raw) || raw.version !== 1 || typeof raw.refreshToken !== 'string' || raw.refreshToken === '') {
    throw new ErpsyncError('CONFIG', `the credentials file ${file} has no refresh token (or an unknown format)`, {
      details: ['run `erpsync login` to write it again'],
    });
  }
  const optional = (key: string): string | undefined => (typeof raw[key] === 'string' ? raw[key] : undefined);
  return {
    version: 1,
    baseUrl: optional('baseUrl'),
    clientId: optional('clientId'),
    tokenUrl: optional('tokenUrl'),
    refreshToken: raw.refreshToken,
    accessToken: optional('accessToken'),
    expiresAt: optional('expiresAt'),
    scope: optional('scope'),
    updatedAt: optional('updatedAt') ?? new Date(0).toISOString(),
  };
}

/** Atomic and durable replace, mode 0600 exactly (see the file header); a link at `file` is refused. */
export async function writeCredentialsFile(file: string, credentials: StoredCredentials): Promise<void> {
  try {
    await makeDirectory(dirname(file), { mode: 0o700 });
    await writeFileAtomically(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  } catch (error) {
    if (isErpsyncError(error)) throw error;
    throw new ErpsyncError('STATE_FILE', `cannot write the credentials file ${file}`, { cause: stripError(error) });
  }
}

export function storedFromTokenSet(tokens: TokenSet, context: { baseUrl?: string; clientId?: string; tokenUrl?: string; now: number }): StoredCredentials {
  return {
    version: 1,
    ...(context.baseUrl !== undefined ? { baseUrl: context.baseUrl } : {}),
    clientId: context.clientId,
    tokenUrl: context.tokenUrl,
    refreshToken: tokens.refreshToken,
    accessToken: tokens.accessToken,
    expiresAt: tokens.expiresIn > 0 ? new Date(context.now + tokens.expiresIn * 1000).toISOString() : undefined,
    scope: tokens.scope,
    updatedAt: new Date(context.now).toISOString(),
  };
}

/**
 * The base URL stored credentials belong to: the one `login` recorded, or for a file written
 * without it (older logins, a refresh that did not carry it over) the API its token URL belongs to.
 */
export function issuedBaseUrl(stored: Pick<StoredCredentials, 'baseUrl' | 'tokenUrl'>): string | undefined {
  if (stored.baseUrl !== undefined) return stored.baseUrl;
  const suffix = '/oauth/token';
  return stored.tokenUrl?.endsWith(suffix) ? stored.tokenUrl.slice(0, -suffix.length) : undefined;
}

/**
 * Refuses to send credentials to a base URL other than the one they were issued for: tokens of
 * a test account must never reach production because a later run forgot --base-url.
 */
export function checkCredentialsBaseUrl(stored: StoredCredentials, file: string, baseUrl: string, loginCommand: string): void {
  const issued = issuedBaseUrl(stored);
  if (issued === baseUrl) return;
  throw new ErpsyncError(
    'CREDENTIALS_MISMATCH',
    issued === undefined
      ? `the credentials in ${file} do not say which API they were issued for; refusing to send them to ${baseUrl}`
      : `the credentials in ${file} were issued for ${issued}, not for ${baseUrl}; refusing to send them there`,
    { details: [`run \`${loginCommand}\` to log in to ${baseUrl}${issued === undefined ? '' : `, or pass --base-url ${issued} to use them where they belong`}`] },
  );
}

/**
 * Where a login lives: a credentials file (the local state store) or a row of the shared backend.
 * `rotate` is the one refresh across every process that shares the slot: `work` runs alone with
 * what the slot holds now and returns what it should hold next, which is committed before
 * `rotate` resolves with it.
 */
export interface CredentialSlot {
  /** Names the slot in messages (a file's path, or `target X in the backend`); never a secret. */
  readonly describe: string;
  read(): Promise<StoredCredentials>;
  rotate(work: (current: StoredCredentials) => Promise<StoredCredentials>): Promise<StoredCredentials>;
}

/** A credentials file as a slot: one refresh at a time per file across processes (a lease lock beside it). */
export function fileCredentialSlot(file: string): CredentialSlot {
  return {
    describe: file,
    read: () => readCredentialsFile(file),
    rotate: (work) =>
      withCredentialsLock(file, async () => {
        const current = await readCredentialsFile(file);
        // The new tokens could not be stored through a link: refuse before the old refresh token is spent.
        await refuseSymbolicLink(file);
        const next = await work(current);
        if (next !== current) await writeCredentialsFile(file, next);
        return next;
      }),
  };
}

export interface OAuthProviderOptions {
  /** Where the login is read from and rotated into (read lazily, rewritten on every refresh). */
  slot: CredentialSlot;
  /** Overrides the client id recorded in the file. */
  clientId?: string;
  /** Needed only when a refresh is due; a missing secret fails then, with AUTH_MISSING. */
  clientSecret?: string;
  /** Overrides the token URL recorded in the file. */
  tokenUrl?: string;
  /** Refresh this long before the recorded expiry. */
  refreshBeforeMs?: number;
  now?: () => number;
  /** The run's proxy variables (proxy.ts): the token host is reached as they say. */
  proxy?: ProxySettings;
  /** Refreshes go through the process's request governor (token calls per IP). */
  governor?: Governor;
}

/** A token obtained this recently and already rejected is not worth another refresh. */
const FRESH_TOKEN_MS = 60_000;

export function createOAuthProvider(options: OAuthProviderOptions): CredentialProvider {
  const now = options.now ?? Date.now;
  const refreshBeforeMs = options.refreshBeforeMs ?? 5 * 60_000;
  const seen = new Set<string>();
  if (options.clientSecret) seen.add(options.clientSecret);
  let stored: StoredCredentials | undefined;
  let loading: Promise<StoredCredentials> | undefined;
  let refreshedAt = -Infinity;
  let inFlight: Promise<string> | undefined;

  const remember = (credentials: StoredCredentials): void => {
    stored = credentials;
    seen.add(credentials.refreshToken);
    if (credentials.accessToken) seen.add(credentials.accessToken);
  };

  const load = (): Promise<StoredCredentials> => {
    loading ??= options.slot.read().then((credentials) => {
      remember(credentials);
      return credentials;
    });
    // After a refresh, `stored` is newer than what the slot held when it was first read.
    return loading.then((initial) => stored ?? initial);
  };

  const refresh = (signal?: AbortSignal): Promise<string> => {
    // One refresher per login across processes: a refresh token works once, so two processes
    // refreshing with the same one would leave one of them with a dead token.
    inFlight ??= refreshOnce(signal).finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };

  /** The slot is the truth: another process may have rotated the tokens while this one waited. */
  const adoptNewer = async (): Promise<string | undefined> => {
    const known = await load();
    const current = await options.slot.read();
    if (current.refreshToken === known.refreshToken) return undefined;
    remember(current);
    return isUsable(current) ? current.accessToken : undefined;
  };

  const refreshOnce = async (signal?: AbortSignal): Promise<string> => {
    const known = await load();
    let next: StoredCredentials;
    try {
      next = await options.slot.rotate(async (current) => {
        // Rotated by another process meanwhile: its tokens are taken as they are while they last.
        if (current.refreshToken !== known.refreshToken && isUsable(current)) return current;
        const exchanged = await exchangeRefreshToken(options, current, now, signal);
        seen.add(exchanged.tokens.accessToken);
        seen.add(exchanged.tokens.refreshToken);
        return exchanged.next;
      });
    } catch (error) {
      // Refused: if another process rotated after all (outside this lock's reach), its tokens are in the slot.
      const rotated = error instanceof ErpsyncError && error.code === 'AUTH_FAILED' ? await adoptNewer() : undefined;
      if (rotated) return rotated;
      throw error;
    }
    remember(next);
    refreshedAt = now();
    return next.accessToken ?? '';
  };

  const isUsable = (credentials: StoredCredentials): credentials is StoredCredentials & { accessToken: string } => hasUsableAccessToken(credentials, now() + refreshBeforeMs);

  return {
    kind: 'oauth',
    async accessToken(signal) {
      const current = await load();
      if (inFlight) return inFlight;
      return isUsable(current) ? current.accessToken : refresh(signal);
    },
    async renewAfterRejection(rejected, signal) {
      const current = await load();
      if (inFlight) return inFlight;
      if (current.accessToken && current.accessToken !== rejected) return current.accessToken;
      if (now() - refreshedAt < FRESH_TOKEN_MS) return undefined;
      return refresh(signal);
    },
    secrets: () => [...seen],
  };
}

/** Runs `work` holding the lock of a credentials file (see createOAuthProvider's refresh). */
async function withCredentialsLock<T>(file: string, work: () => Promise<T>): Promise<T> {
  const lockFile = `${file}.lock`;
  const lock = await acquireLeaseLock(lockFile, { key: `the credentials in ${file}`, command: 'erpsync (token refresh)', timeoutMs: 60_000, leaseMs: 30_000, pollMs: 100 });
  try {
    return await work();
  } finally {
    await lock.release();
  }
}

/** Whether the stored access token is still good at `at` (its expiry is known and later). */
function hasUsableAccessToken(credentials: StoredCredentials, at: number): credentials is StoredCredentials & { accessToken: string } {
  if (!credentials.accessToken) return false;
  const expiresAt = credentials.expiresAt ? Date.parse(credentials.expiresAt) : Number.NaN;
  return Number.isFinite(expiresAt) && expiresAt > at;
}

/** Trades the stored refresh token for new tokens, and the credentials to store for them. */
async function exchangeRefreshToken(options: OAuthProviderOptions, current: StoredCredentials, now: () => number, signal?: AbortSignal): Promise<{ tokens: TokenSet; next: StoredCredentials }> {
  const clientId = options.clientId ?? current.clientId;
  const tokenUrl = options.tokenUrl ?? current.tokenUrl;
  if (!clientId || !options.clientSecret) {
    throw new ErpsyncError('AUTH_MISSING', 'the access token must be refreshed but the OAuth client id or secret is not set', {
      details: ['set BLING_CLIENT_ID and BLING_CLIENT_SECRET (or the variables your target names)'],
    });
  }
  if (!tokenUrl) throw new ErpsyncError('CONFIG', `no token URL for the credentials in ${options.slot.describe}`);
  const tokens = await requestToken({ tokenUrl, clientId, clientSecret: options.clientSecret, grant: { type: 'refresh_token', refreshToken: current.refreshToken }, signal, proxy: options.proxy, ...(options.governor ? { governor: options.governor } : {}) });
  // The credentials stay bound to the base URL they were issued for.
  const next = storedFromTokenSet(tokens, { ...(current.baseUrl === undefined ? {} : { baseUrl: current.baseUrl }), clientId, tokenUrl, now: now() });
  return { tokens, next };
}

/** File-system errors keep their code and message (paths, never secrets) but lose the stack noise. */
function stripError(error: unknown): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  const code = (error as { code?: unknown }).code;
  return new Error(typeof code === 'string' ? `${code}: ${error.message}` : error.message);
}
