// Token upkeep (issue 34): keeps every stored login's access token fresh between runs, so a nightly
// fleet starts with valid tokens instead of spending its token budget refreshing. planLoginUpkeep
// decides (pure) which logins are due; runLoginUpkeep refreshes them through the very provider a
// run uses (api/credentials: the login store's exclusive rotate, the new tokens committed before
// they are used, the governor's token-call budget), a few at a time; describeLogin says how old a
// login is and when its token expires. It receives its login store's slots and its governor and
// opens nothing itself; it never prints, and nothing it returns holds a token.
//
// The rule that spreads the refreshes. An access token lives 6 h. Run the upkeep every hour with
// `--within 2h` (the default): a login is refreshed by the first run that finds 2 h or less left
// on its token. Refreshed during the run of hour t, it expires a little after t+6 and is next due
// at the run of hour t+5, with between 1 h and 2 h left: no token is ever found with less than an
// hour left, and each hourly run refreshes a fifth of a fleet whose logins are spread over the
// hours. The governor lets 16 token calls a minute through per egress name (the service's 20, less
// its margin), so 1,000 logins are 200 calls an hour: about 12.5 minutes of each hourly run. A
// fleet logged in all at once stays in step: every fifth run refreshes all of it (1,000 logins
// take about 63 minutes, soonest-expiring first, each still with an hour left when its turn comes).
import { createOAuthProvider, createRedactor } from '../api/index.js';
import type { CredentialSlot, Governor, ProxySettings, StoredCredentials } from '../api/index.js';
import type { ErrorCode } from '../model/errors.js';
import { ErpsyncError, isErpsyncError } from '../model/errors.js';
import { forEachStore } from './fleet-workflow.js';

const hourMs = 3_600_000;

/** Run hourly, 2 h leaves every token at least an hour when its refresh comes (see the file header). */
export const DEFAULT_UPKEEP_WITHIN_MS = 2 * hourMs;

/** Logins refreshed at once: the governor paces their token calls; more would only wait on it, holding connections. */
const refreshesAtOnce = 4;

/** A target's login as the store holds it; undefined when it holds none. */
export interface UpkeepLogin {
  target: string;
  credentials: StoredCredentials | undefined;
}

/** A login's access-token expiry: null when the login holds no access token or no readable expiry. */
export interface LoginExpiry extends Expiry {
  target: string;
}

interface Expiry {
  expiresAt: string | null;
  expiresInMs: number | null;
}

export interface UpkeepPlan {
  now: number;
  withinMs: number;
  /** To refresh now: soonest-expiring first, those of no known expiry before all. */
  due: LoginExpiry[];
  /** Left as they are, soonest-expiring first. */
  fresh: LoginExpiry[];
  /** No login stored: only the authorization in a browser makes one. */
  missing: { target: string; hint: string }[];
}

/** Which logins to refresh now (their token expires within `withinMs`, or when is unknown), which are fresh, which are missing. */
export function planLoginUpkeep(logins: readonly UpkeepLogin[], options: { now: number; withinMs: number }): UpkeepPlan {
  const plan: UpkeepPlan = { now: options.now, withinMs: options.withinMs, due: [], fresh: [], missing: [] };
  for (const { target, credentials } of logins) {
    if (credentials === undefined) {
      plan.missing.push({ target, hint: loginHintOf(target) });
      continue;
    }
    const expiry = { target, ...expiryOf(credentials, options.now) };
    (expiry.expiresInMs === null || expiry.expiresInMs <= options.withinMs ? plan.due : plan.fresh).push(expiry);
  }
  plan.due.sort(soonestFirst);
  plan.fresh.sort(soonestFirst);
  return plan;
}

/** The command that stores a target's login (`default` is the login of no named target). */
export function loginCommandOf(target: string): string {
  return target === 'default' ? 'erpsync login' : `erpsync login --target ${target}`;
}

/** What to do about a missing login. */
export function loginHintOf(target: string): string {
  return `run \`${loginCommandOf(target)}\``;
}

/** What `targets --check --json` and `login --refresh --dry-run` say of a login: never a token. */
export interface LoginDescription {
  updatedAt: string;
  /** Since the login was stored or last refreshed; null when its time is unreadable. */
  ageMs: number | null;
  expiresAt: string | null;
  expiresInMs: number | null;
  scopes: string[];
}

export function describeLogin(credentials: StoredCredentials, now: number): LoginDescription {
  const updated = Date.parse(credentials.updatedAt);
  return {
    updatedAt: credentials.updatedAt,
    ageMs: Number.isFinite(updated) ? now - updated : null,
    ...expiryOf(credentials, now),
    scopes: (credentials.scope ?? '').split(/\s+/).filter((scope) => scope !== ''),
  };
}

/** The OAuth client a target refreshes with (api/targets names the variables; the secret is read from them). */
export interface UpkeepClient {
  clientId?: string | undefined;
  clientSecret?: string | undefined;
  tokenUrl?: string | undefined;
}

export interface UpkeepDeps {
  /** Where the target's login is read and rotated (its login store's slot). */
  slotOf(target: string): CredentialSlot;
  clientOf(target: string): UpkeepClient;
  /** Paces the token calls (per egress, across runners when its windows are shared). */
  governor: Governor;
  /** The run's proxy variables: the token hosts are reached as they say. */
  proxy: ProxySettings;
  signal: AbortSignal;
}

export type UpkeepResult =
  | { target: string; outcome: 'refreshed'; expiresAt: string | null }
  /** Another runner refreshed it after the plan was made: its tokens are kept, no token call was sent. */
  | { target: string; outcome: 'already-fresh'; expiresAt: string | null }
  | { target: string; outcome: 'failed'; code: ErrorCode; message: string };

/**
 * Refreshes every due login of the plan, a few at a time, each through createOAuthProvider's
 * accessToken with the plan's margin: the rotation rules, the store's compare-and-swap and the
 * governor's token budget all apply. One login's failure is its own result; the others go on.
 */
export function runLoginUpkeep(plan: UpkeepPlan, deps: UpkeepDeps): Promise<UpkeepResult[]> {
  const targets = plan.due.map((login) => login.target);
  return forEachStore(targets, Promise.resolve(refreshesAtOnce), (target) => refreshLogin(target, plan.withinMs, deps));
}

async function refreshLogin(target: string, withinMs: number, deps: UpkeepDeps): Promise<UpkeepResult> {
  if (deps.signal.aborted) return failure(target, new ErpsyncError('INTERRUPTED', 'not refreshed: the upkeep was interrupted'), []);
  let secrets: () => readonly (string | undefined)[] = () => [];
  try {
    const watched = watchSlot(deps.slotOf(target));
    const client = deps.clientOf(target);
    const provider = createOAuthProvider({ slot: watched.slot, ...client, refreshBeforeMs: withinMs, governor: deps.governor, proxy: deps.proxy });
    secrets = () => [...provider.secrets(), client.clientSecret];
    await provider.accessToken(deps.signal);
    return { target, outcome: watched.exchanged() ? 'refreshed' : 'already-fresh', expiresAt: watched.latest()?.expiresAt ?? null };
  } catch (error) {
    return failure(target, error, secrets());
  }
}

/** The slot as the provider uses it, noting what it last held and whether a token call replaced it. */
function watchSlot(slot: CredentialSlot): { slot: CredentialSlot; exchanged: () => boolean; latest: () => StoredCredentials | undefined } {
  let latest: StoredCredentials | undefined;
  let exchanged = false;
  const keep = (credentials: StoredCredentials): StoredCredentials => (latest = credentials);
  return {
    slot: {
      describe: slot.describe,
      read: () => slot.read().then(keep),
      // The provider hands back what the slot holds when another runner rotated it meanwhile; a new object is a token call's.
      rotate: (work) =>
        slot
          .rotate(async (current) => {
            const next = await work(current);
            exchanged = next !== current;
            return next;
          })
          .then(keep),
    },
    exchanged: () => exchanged,
    latest: () => latest,
  };
}

function failure(target: string, error: unknown, secrets: readonly (string | undefined)[]): UpkeepResult {
  const code: ErrorCode = isErpsyncError(error) ? error.code : 'INTERNAL';
  const message = error instanceof Error ? error.message : String(error);
  // The token endpoint's errors are redacted already; what the provider held is masked once more.
  return { target, outcome: 'failed', code, message: createRedactor(secrets).redact(message) };
}

/** When the stored access token expires; unknown without a token or a readable expiry. */
function expiryOf(credentials: StoredCredentials, now: number): Expiry {
  const at = credentials.accessToken && credentials.expiresAt ? Date.parse(credentials.expiresAt) : Number.NaN;
  if (!Number.isFinite(at)) return { expiresAt: null, expiresInMs: null };
  return { expiresAt: new Date(at).toISOString(), expiresInMs: at - now };
}

function soonestFirst(a: LoginExpiry, b: LoginExpiry): number {
  return (a.expiresInMs ?? -Infinity) - (b.expiresInMs ?? -Infinity) || a.target.localeCompare(b.target);
}
