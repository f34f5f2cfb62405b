// Which login each target of a command keeps, and what the login store holds for it: for token
// upkeep (`login --refresh`) and `targets --check --json`. A target's login is found the way a
// run finds it (api/targets' resolveTarget: the same name, base URL, file and client), except that
// whether it exists is asked of the login store, not of the disk. It only reads; it never prints,
// and what it returns holds tokens only inside StoredCredentials, for the caller to keep in memory.
import { checkCredentialsBaseUrl, resolveTarget } from '../api/index.js';
import type { StoredCredentials, TargetFlags, TargetsConfig } from '../api/index.js';
import type { ErrorCode } from '../model/errors.js';
import { isErpsyncError } from '../model/errors.js';
import type { LoginRef, LoginStore } from '../state/state-store.js';
import { forEachStore } from './fleet-workflow.js';
import type { LoginDescription, UpkeepClient, UpkeepLogin } from './login-upkeep.js';
import { describeLogin, loginCommandOf, loginHintOf } from './login-upkeep.js';
import type { RunIO } from './run-io.js';

export type TargetLogin =
  /** The target keeps no OAuth login (a sandbox account, or a static token). */
  | { target: string; status: 'none'; reason: string }
  | { target: string; status: 'missing'; ref: LoginRef; client: UpkeepClient }
  | { target: string; status: 'stored'; ref: LoginRef; client: UpkeepClient; credentials: StoredCredentials }
  /** Its login cannot be used as it is (unreadable, another key, issued for another base URL …). */
  | { target: string; status: 'failed'; code: ErrorCode; message: string };

/** Reads a handful at once: enough to keep a backend's pool busy, not so many that a folder of files is opened at once. */
const readsAtOnce = 8;

/**
 * The logins of `names` (undefined: the default target, the one of no `--target`), in their order.
 * `flags` are the command line's target flags (a --base-url applies to each, as in a run).
 */
export function readTargetLogins(names: readonly (string | undefined)[], flags: TargetFlags, config: TargetsConfig | undefined, logins: LoginStore, io: Pick<RunIO, 'cwd' | 'env'>): Promise<TargetLogin[]> {
  const keys = names.map((name) => name ?? '');
  return forEachStore(keys, Promise.resolve(readsAtOnce), (_key, index) => readTargetLogin(names[index], flags, config, logins, io));
}

async function readTargetLogin(name: string | undefined, flags: TargetFlags, config: TargetsConfig | undefined, logins: LoginStore, io: Pick<RunIO, 'cwd' | 'env'>): Promise<TargetLogin> {
  let target = name ?? 'default';
  try {
    // Whether a login exists is the store's to say: resolved as if every credentials file existed.
    const resolved = resolveTarget({ flags: { ...flags, target: name }, env: io.env, cwd: io.cwd, config, fileExists: () => true });
    target = resolved.name;
    if (resolved.mode === 'sandbox') return { target, status: 'none', reason: 'a sandbox account needs no login' };
    const credentials = resolved.credentials;
    if (credentials.type === 'token') return { target, status: 'none', reason: `uses the token in ${credentials.tokenEnv}` };
    const ref: LoginRef = { target, baseUrl: resolved.baseUrl, file: credentials.file };
    const client: UpkeepClient = { clientId: credentials.clientId ?? nonEmpty(io.env[credentials.clientIdEnv]), clientSecret: nonEmpty(io.env[credentials.clientSecretEnv]), tokenUrl: credentials.tokenUrl };
    const slot = logins.slot(ref);
    const stored = await slot.read().catch((error: unknown) => {
      if (isErpsyncError(error) && error.code === 'AUTH_MISSING') return undefined;
      throw error;
    });
    if (stored === undefined) return { target, status: 'missing', ref, client };
    // A login issued for another API is never sent to this target's token endpoint.
    checkCredentialsBaseUrl(stored, slot.describe, ref.baseUrl, target === 'default' ? `erpsync login --base-url ${ref.baseUrl}` : loginCommandOf(target));
    return { target, status: 'stored', ref, client, credentials: stored };
  } catch (error) {
    return { target, status: 'failed', code: isErpsyncError(error) ? error.code : 'INTERNAL', message: error instanceof Error ? error.message : String(error) };
  }
}

/** A target's login as `targets --check --json` reports it: its age, expiry and scopes, never a token. */
export type LoginReport = ({ status: 'stored' } & LoginDescription) | { status: 'missing'; hint: string } | { status: 'failed'; code: ErrorCode; message: string };

/** The report of a target's login; undefined when the target keeps none (sandbox, static token). */
export function reportLogin(login: TargetLogin, now: number): LoginReport | undefined {
  switch (login.status) {
    case 'none':
      return undefined;
    case 'missing':
      return { status: 'missing', hint: loginHintOf(login.target) };
    case 'failed':
      return { status: 'failed', code: login.code, message: login.message };
    case 'stored':
      return { status: 'stored', ...describeLogin(login.credentials, now) };
  }
}

/** What the upkeep plans from: the targets that keep an OAuth login, stored or missing. */
export function upkeepLoginsOf(found: readonly TargetLogin[]): UpkeepLogin[] {
  return found.flatMap((login): UpkeepLogin[] => {
    if (login.status === 'stored') return [{ target: login.target, credentials: login.credentials }];
    return login.status === 'missing' ? [{ target: login.target, credentials: undefined }] : [];
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
