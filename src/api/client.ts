// The API client: every request to the service goes through here. It authenticates (bearer token,
// one renewal after a 401), paces all requests with one schedule, retries what is safe to retry,
// stops the run before error bursts could get the IP blocked, unwraps the `data` envelope, walks
// pages, counts requests, and turns every failure into a typed error with secrets redacted.
// It does not know any resource kind, never prints, and never follows redirects (a redirect
// could carry the token to another origin).
import type { Dispatcher } from 'undici';
import { ErpsyncError } from '../model/errors.js';
import { BodyTooLargeError, readBodyWithin } from './bounded-body.js';
import { createCircuitBreaker } from './circuit-breaker.js';
import type { CredentialProvider } from './credentials.js';
import { ApiError, ApiOutcomeUnknownError, parseErrorBody } from './errors.js';
import { isPlainRecord } from '../model/paths.js';
import type { HttpMethod, ParsedErrorBody } from './errors.js';
import { describeNetworkError } from './oauth.js';
import { createPacer, sleep } from './pacing.js';
import { describeVia, NO_PROXY_SETTINGS, openDispatcher, proxySecrets, routeFor } from './proxy.js';
import type { ProxyRoute, ProxySettings } from './proxy.js';
import { createRedactor } from './redact.js';
import { backoffDelay, classifyStatus, defaultRetryPolicy, judgeFailure, mayRetry, parseRetryAfter } from './retry.js';
import type { FailureKind, RetryPolicy } from './retry.js';
import type { CircuitOptions } from './circuit-breaker.js';
import type { Governor } from './governor.js';
import { buildRequestPath, parseSecureUrl } from './url.js';
import type { Query } from './url.js';

/** The account's limit, shared by every integration of the store (api-facts §5). */
export const ACCOUNT_RATE_LIMIT = 3;
/** The account's requests per day, shared the same way (api-facts §5). */
export const ACCOUNT_DAILY_QUOTA = 120_000;
/** Requests per second left unused by default, so a brief overlap with another integration does not meet a 429. */
export const DEFAULT_RATE_RESERVE = 0.1;
export const DEFAULT_RATE = ACCOUNT_RATE_LIMIT - DEFAULT_RATE_RESERVE;
export const DEFAULT_PAGE_SIZE = 100;

export interface ApiClientOptions {
  /** e.g. `https://api.bling.com.br/Api/v3`; http:// only for loopback hosts (else INSECURE_URL). */
  baseUrl: string;
  credentials: CredentialProvider;
  /** Requests per second for all requests of this client; default the account's limit minus a small reserve; Infinity = unpaced. */
  rate?: number;
  /** Budget guard: the run fails (RATE_BUDGET_EXHAUSTED) rather than send more than this. */
  maxRequests?: number;
  /**
   * `requestMs`: the whole of one attempt, headers and body, however the server trickles them
   * (default 60 s); `headersMs`/`bodyMs` bound the wait for the headers and between body chunks.
   */
  timeouts?: { connectMs?: number; headersMs?: number; bodyMs?: number; requestMs?: number };
  /** The largest answer read (default 32 MiB): configuration lists are small, a bigger one is an error. */
  maxResponseBytes?: number;
  retry?: Partial<RetryPolicy>;
  circuit?: Partial<CircuitOptions>;
  /** The process's per-IP request governor (governor.ts); every request and error passes it. Absent: not governed (the sandbox). */
  governor?: Governor;
  /** Further strings to keep out of messages and events (e.g. secret manifest values). */
  secrets?: readonly string[];
  /** The run's proxy variables (proxy.ts); absent: every request goes direct. */
  proxy?: ProxySettings;
  signal?: AbortSignal;
  /**
   * Awaited right before each attempt leaves (after pacing), so nothing waits between it and the
   * send; a throw stops the request unsent (apply's lock fence). It may resolve to how long (ms)
   * its confirmation holds: an attempt that has not reached its socket by then (the process was
   * paused, or waited for a connection, between the two) is held back unsent and confirmed again.
   */
  beforeSend?: (req: ApiRequest) => Promise<number | void>;
  onEvent?: (event: ApiEvent) => void;
  /** Jitter source in [0, 1); tests seed it. */
  random?: () => number;
  /** Monotonic clock in ms; tests may replace it. */
  now?: () => number;
}

export interface ApiRequest {
  method: HttpMethod;
  /** Relative to the base URL, starting with `/`. */
  path: string;
  query?: Query;
  body?: unknown;
  /** Resource kind, for accounting only. */
  kind?: string;
}

export interface ApiResponse<T> {
  status: number;
  /** `data` unwrapped from the envelope when present, the raw body otherwise, undefined for no body. */
  data: T;
}

export interface RequestStats {
  /** HTTP requests sent, retries included (what the account's quota counts). */
  total: number;
  byMethod: Partial<Record<HttpMethod, number>>;
  /** Requests sent per resource kind, for those made with a kind. */
  byKind: Record<string, number>;
  retries: number;
  /** 429 responses met. */
  throttled: number;
  /** Error responses and failed connections (what the circuit breaker counts). */
  errors: number;
  /** The service answered a daily 429: the account's quota is spent, and this client sends nothing more. */
  dailyQuotaMet: boolean;
}

interface EventBase {
  requestId: number;
  attempt: number;
  method: HttpMethod;
  /** Relative path with query, redacted. */
  path: string;
  kind?: string;
}

export type ApiEvent =
  | ({ type: 'request-start' } & EventBase)
  | ({ type: 'request-end'; status?: number; error?: string; durationMs: number } & EventBase)
  | ({ type: 'retry'; reason: string; delayMs: number } & EventBase)
  | ({ type: 'throttled'; rate: number } & EventBase)
  | ({ type: 'auth-renewed' } & EventBase);

export interface ApiClient {
  request<T = unknown>(req: ApiRequest): Promise<ApiResponse<T>>;
  /** GETs `pagina` 1, 2, … until a page is shorter than the limit; returns all items. */
  listAll<T = unknown>(path: string, query?: Query, options?: { kind?: string; limit?: number }): Promise<T[]>;
  stats(): RequestStats;
  /** Lists this client found not to page as documented, in the order met (judgePage). */
  listNotes(): readonly ListNote[];
  /** Records such a list met by a walk of its own (a name search that pages by hand). */
  noteList(note: ListNote): void;
  /** The client's redaction, for any output path that shows API-related text. */
  redact(text: string): string;
  /** Adds a secret to redact from then on. */
  registerSecret(secret: string): void;
  close(): Promise<void>;
}

const defaultTimeouts = { connectMs: 10_000, headersMs: 30_000, bodyMs: 30_000, requestMs: 60_000 };
const defaultMaxResponseBytes = 32 * 1024 * 1024;

type Outcome =
  | { type: 'response'; status: number; contentType: string | undefined; retryAfter: string | undefined; text: string }
  | { type: 'network'; failure: Extract<FailureKind, 'connect-failed' | 'connection-lost' | 'timeout'>; error: unknown }
  | { type: 'held-back' };

/** An attempt stopped at its socket, before a byte of it was written: its confirmation had lapsed. */
class HeldBackError extends Error {}

/**
 * Checks, at the moment undici hands the request to its socket (before writing it), that the
 * confirmation from beforeSend still holds (by the monotonic clock, which runs on while the
 * process is stopped); otherwise the request is aborted there, unsent. Only the method the handler
 * has is wrapped: undici tells old handlers from new ones by the methods they have.
 */
function holdBackAfter(until: number): Dispatcher.DispatcherComposeInterceptor {
  const lapsed = (): HeldBackError | undefined => (performance.now() > until ? new HeldBackError('the lock confirmation lapsed before the request reached its socket') : undefined);
  return (dispatch) => (opts, handler) =>
    dispatch(
      opts,
      new Proxy(handler, {
        get(target, property, receiver) {
          const original: unknown = Reflect.get(target, property, receiver);
          if (typeof original !== 'function') return original;
          if (property === 'onConnect') {
            return (abort: (error: Error) => void, context: unknown) => {
              const error = lapsed();
              return error ? abort(error) : original.call(target, abort, context);
            };
          }
          if (property === 'onRequestStart') {
            return (controller: { abort(error: Error): void }, context: unknown) => {
              const error = lapsed();
              return error ? controller.abort(error) : original.call(target, controller, context);
            };
          }
          return original.bind(target);
        },
      }),
    );
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const state = openClientState(options);
  const request = <T>(req: ApiRequest): Promise<ApiResponse<T>> => sendRequest<T>(state, req);
  return {
    request,
    listAll: (path, query, listOptions) => listAllPages(request, state, path, query, listOptions),
    listNotes: () => [...state.listNotes],
    noteList: (note) => state.listNotes.push(note),
    stats: () => ({ ...state.stats, byMethod: { ...state.stats.byMethod }, byKind: { ...state.stats.byKind } }),
    redact: state.redact,
    registerSecret: (secret) => state.redactor.add(secret),
    async close() {
      if (state.closed) return;
      state.closed = true;
      await (await state.agent)?.close();
    },
  };
}

/** What one client holds across its requests. */
interface ClientState {
  options: ApiClientOptions;
  origin: string;
  basePath: string;
  timeouts: typeof defaultTimeouts;
  policy: RetryPolicy;
  now: () => number;
  random: () => number;
  pacer: ReturnType<typeof createPacer>;
  circuit: ReturnType<typeof createCircuitBreaker>;
  redactor: ReturnType<typeof createRedactor>;
  redact: (text: string) => string;
  /** Through a proxy or direct: decided once for the base URL's origin. */
  route: ProxyRoute;
  /** undici loads with the first request, so a command that sends none (validate) starts without it. */
  agent?: Promise<Dispatcher>;
  stats: RequestStats;
  listNotes: ListNote[];
  nextRequestId: number;
  closed: boolean;
}

function openClientState(options: ApiClientOptions): ClientState {
  const base = parseSecureUrl(options.baseUrl);
  const now = options.now ?? (() => performance.now());
  const rate = options.rate ?? DEFAULT_RATE;
  if (!(rate > 0)) throw new ErpsyncError('CONFIG', `the request rate must be a positive number (got ${rate})`);
  const proxy = options.proxy ?? NO_PROXY_SETTINGS;
  const redactor = createRedactor([...(options.secrets ?? []), ...proxySecrets(proxy)]);
  return {
    options,
    origin: base.origin,
    route: routeFor(proxy, base),
    basePath: base.pathname.replace(/\/+$/, ''),
    timeouts: { ...defaultTimeouts, ...options.timeouts },
    policy: { ...defaultRetryPolicy, ...options.retry },
    now,
    random: options.random ?? Math.random,
    pacer: createPacer(rate, now),
    circuit: createCircuitBreaker(options.circuit, now),
    redactor,
    redact: (text) => {
      for (const secret of options.credentials.secrets()) redactor.add(secret);
      return redactor.redact(text);
    },
    stats: { total: 0, byMethod: {}, byKind: {}, retries: 0, throttled: 0, errors: 0, dailyQuotaMet: false },
    listNotes: [],
    nextRequestId: 1,
    closed: false,
  };
}

function dispatcherOf(state: ClientState): Promise<Dispatcher> {
  state.agent ??= openDispatcher(state.route, { ...state.timeouts, keepAliveMs: 10_000 });
  return state.agent;
}

function countSend(state: ClientState, req: ApiRequest): void {
  const { stats } = state;
  stats.total += 1;
  stats.byMethod[req.method] = (stats.byMethod[req.method] ?? 0) + 1;
  if (req.kind !== undefined) stats.byKind[req.kind] = (stats.byKind[req.kind] ?? 0) + 1;
}

function countError(state: ClientState): void {
  state.stats.errors += 1;
  state.circuit.record();
  state.options.governor?.recordError();
}

function ensureMaySend(state: ClientState): void {
  const { options } = state;
  if (state.closed) throw new ErpsyncError('INTERNAL', 'the API client was used after close()');
  if (options.signal?.aborted) throw interrupted();
  // Requests already waiting for their slot when a daily 429 came are not sent: each would be one more 429.
  if (state.stats.dailyQuotaMet) throw dailyQuotaSpent();
  if (state.circuit.isOpen()) {
    throw new ErpsyncError('CIRCUIT_OPEN', `stopped: ${state.circuit.describe()}; the service blocks an IP address after 300 errors in 10 s`, {
      details: ['check the errors above, then run again'],
    });
  }
  if (options.maxRequests !== undefined && state.stats.total >= options.maxRequests) {
    throw new ErpsyncError('RATE_BUDGET_EXHAUSTED', `the request budget of this run (${options.maxRequests}) is used up`, {
      details: ['raise --max-requests if the run really needs more'],
    });
  }
}

/** One HTTP exchange within its deadline: the answer as text, or where the connection failed. */
async function sendOnce(state: ClientState, req: ApiRequest, requestPath: string, token: string, confirmedUntil?: number): Promise<Outcome> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
  let body: string | undefined;
  if (req.body !== undefined) {
    headers['content-type'] = 'application/json; charset=utf-8';
    body = JSON.stringify(req.body);
  }
  const agent = await dispatcherOf(state);
  const sender = confirmedUntil === undefined ? agent : agent.compose(holdBackAfter(confirmedUntil));
  const deadline = AbortSignal.timeout(state.timeouts.requestMs);
  const signal = state.options.signal ? AbortSignal.any([state.options.signal, deadline]) : deadline;
  // A deadline that fired is a timeout, whatever undici calls the abort.
  const failed = (error: unknown, phase: 'headers' | 'body'): Outcome =>
    deadline.aborted && !state.options.signal?.aborted
      ? { type: 'network', failure: 'timeout', error: new Error(`no complete answer within ${seconds(state.timeouts.requestMs)} s`) }
      : { type: 'network', failure: classifyNetworkError(error, phase), error };
  try {
    const res = await sender.request({ origin: state.origin, path: requestPath, method: req.method, headers, body, signal });
    const status = res.statusCode;
    const contentType = firstHeader(res.headers['content-type']);
    const retryAfter = firstHeader(res.headers['retry-after']);
    try {
      return { type: 'response', status, contentType, retryAfter, text: await readBounded(res, state, req, requestPath) };
    } catch (error) {
      if (error instanceof ErpsyncError) throw error;
      return failed(error, 'body');
    }
  } catch (error) {
    if (error instanceof ErpsyncError) throw error;
    if (error instanceof HeldBackError) return { type: 'held-back' };
    return failed(error, 'headers');
  }
}

/** An answer read up to the size cap (a huge or endless body is never held); past it a read fails and a write's outcome is unknown. */
async function readBounded(res: Dispatcher.ResponseData, state: ClientState, req: ApiRequest, requestPath: string): Promise<string> {
  try {
    return await readBodyWithin(res.body as unknown as AsyncIterable<Buffer> & { destroy(): unknown }, firstHeader(res.headers['content-length']), state.options.maxResponseBytes ?? defaultMaxResponseBytes);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    const shown = state.redact(requestPath.slice(state.basePath.length));
    const reason = `${error.message}, far more than a configuration list holds; erpsync stopped reading it`;
    throw req.method === 'GET' ? new ErpsyncError('API_ERROR', `${req.method} ${shown}: ${reason}`) : new ApiOutcomeUnknownError({ method: req.method, path: shown, reason });
  }
}

function seconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}

/** One request through its attempts: what each attempt knows of the ones before. */
interface Attempts {
  req: ApiRequest;
  requestId: number;
  requestPath: string;
  shownPath: string;
  started: number;
  attempt: number;
  /** Attempts the retry policy counts (a retry after a 401 renewal does not). */
  policyAttempts: number;
  renewedToken?: string;
  authRenewed: boolean;
}

const tagOf = (a: Attempts): EventBase => ({ requestId: a.requestId, attempt: a.attempt, method: a.req.method, path: a.shownPath, ...(a.req.kind ? { kind: a.req.kind } : {}) });

async function sendRequest<T>(state: ClientState, req: ApiRequest): Promise<ApiResponse<T>> {
  const requestPath = buildRequestPath(state.basePath, req.path, req.query);
  const a: Attempts = { req, requestId: state.nextRequestId++, requestPath, shownPath: state.redact(requestPath.slice(state.basePath.length)), started: state.now(), attempt: 0, policyAttempts: 0, authRenewed: false };
  const { options } = state;
  for (;;) {
    ensureMaySend(state);
    await state.pacer.acquire(options.signal).catch(() => {
      throw interrupted();
    });
    await options.governor?.acquireRequest(options.signal).catch(() => {
      throw interrupted();
    });
    ensureMaySend(state);
    const token = a.renewedToken ?? (await options.credentials.accessToken(options.signal));
    a.renewedToken = undefined;
    const holdsMs = await options.beforeSend?.(req);
    const confirmedUntil = typeof holdsMs === 'number' ? performance.now() + holdsMs : undefined;
    a.attempt += 1;
    a.policyAttempts += 1;
    countSend(state, req);
    options.onEvent?.({ type: 'request-start', ...tagOf(a) });
    const sentAt = state.now();
    const outcome = await sendOnce(state, req, requestPath, token, confirmedUntil);
    const durationMs = Math.round(state.now() - sentAt);
    if (outcome.type === 'held-back') {
      // Nothing was written: confirmed again (which refuses a lock lost meanwhile), then sent.
      options.onEvent?.({ type: 'request-end', ...tagOf(a), error: 'held back unsent: the lock confirmation lapsed', durationMs });
      a.policyAttempts -= 1;
      continue;
    }
    if (outcome.type === 'network') {
      await handleNetworkFailure(state, a, outcome, durationMs);
      continue;
    }
    options.onEvent?.({ type: 'request-end', ...tagOf(a), status: outcome.status, durationMs });
    if (outcome.status >= 200 && outcome.status < 300) {
      state.pacer.onSuccess();
      return { status: outcome.status, data: parseSuccessBody(outcome, req.method, a.shownPath) as T };
    }
    await handleErrorStatus(state, a, outcome, token);
  }
}

/** Returns when the request may be sent again (after the wait), throws otherwise. */
async function handleNetworkFailure(state: ClientState, a: Attempts, outcome: Extract<Outcome, { type: 'network' }>, durationMs: number): Promise<void> {
  const { req } = a;
  if (state.options.signal?.aborted) throw interrupted();
  countError(state);
  const described = state.redact(describeNetworkError(outcome.error));
  state.options.onEvent?.({ type: 'request-end', ...tagOf(a), error: described, durationMs });
  const verdict = judgeFailure(req.method, outcome.failure);
  if (verdict === 'outcome-unknown') {
    throw new ApiOutcomeUnknownError({ method: req.method, path: a.shownPath, reason: `${failureText[outcome.failure]}: ${described}`, cause: new Error(described) });
  }
  const delay = backoffDelay(a.policyAttempts, state.policy, state.random);
  if (verdict === 'retry' && mayRetry(a.policyAttempts, state.now() - a.started, delay, state.policy)) {
    await waitBeforeRetry(state, tagOf(a), failureText[outcome.failure], delay);
    return;
  }
  throw new ErpsyncError(
    outcome.failure === 'timeout' ? 'API_TIMEOUT' : 'API_UNREACHABLE',
    `${req.method} ${a.shownPath}: ${failureText[outcome.failure]}${a.attempt > 1 ? ` after ${a.attempt} attempts` : ''} (${described})`,
    { cause: new Error(described), ...(state.route.via === 'proxy' ? { details: [`the requests to ${state.origin} go ${describeVia(state.route)}`] } : {}) },
  );
}

/** An answer of 3xx–5xx: returns when the request may be sent again (renewed token, or after the wait), throws otherwise. */
async function handleErrorStatus(state: ClientState, a: Attempts, outcome: Extract<Outcome, { type: 'response' }>, token: string): Promise<void> {
  const { req } = a;
  const { status } = outcome;
  const { options, pacer, policy } = state;
  countError(state);
  const body = redactBody(parseErrorBody(outcome.text, outcome.contentType), state.redact);
  if (status === 401 && !a.authRenewed) {
    a.authRenewed = true;
    const next = await options.credentials.renewAfterRejection(token, options.signal);
    if (next !== undefined) {
      options.onEvent?.({ type: 'auth-renewed', ...tagOf(a) });
      a.renewedToken = next;
      // A 401 means the request was not processed: one more try with the new token is safe for any method.
      a.policyAttempts -= 1;
      return;
    }
  }
  // Before the pacer hears of it: a 429's wait holds every later request of the run.
  if (status === 429 && body.period !== 'day') refuseLongWait(state, a, outcome);
  if (status === 429) {
    state.stats.throttled += 1;
    pacer.onThrottled(parseRetryAfter(outcome.retryAfter, Date.now()));
    options.onEvent?.({ type: 'throttled', ...tagOf(a), rate: pacer.currentRate() });
    if (body.period === 'day') {
      state.stats.dailyQuotaMet = true;
      throw dailyQuotaSpent();
    }
  }
  const verdict = judgeFailure(req.method, classifyStatus(status));
  if (verdict === 'outcome-unknown') throw new ApiOutcomeUnknownError({ method: req.method, path: a.shownPath, reason: `the server answered ${status}`, status });
  if (verdict === 'retry') {
    refuseLongWait(state, a, outcome);
    const waitHint = parseRetryAfter(outcome.retryAfter, Date.now()) ?? 0;
    const delay = Math.max(backoffDelay(a.policyAttempts, policy, state.random), Math.min(waitHint, policy.maxDelayMs));
    if (mayRetry(a.policyAttempts, state.now() - a.started, delay, policy)) {
      await waitBeforeRetry(state, tagOf(a), `${status}`, delay);
      return;
    }
  }
  throw new ApiError({ status, method: req.method, path: a.shownPath, body, attempts: a.attempt, ...(req.kind ? { kind: req.kind } : {}) });
}

/** A server that asks for a wait beyond the cap (seconds or an HTTP date) fails the request at once, naming the wait. */
function refuseLongWait(state: ClientState, a: Attempts, outcome: Extract<Outcome, { type: 'response' }>): void {
  const asked = parseRetryAfter(outcome.retryAfter, Date.now());
  if (asked === undefined || asked <= state.policy.maxWaitMs) return;
  // The header is the server's text: shown only when it looks like a number of seconds or a date.
  const raw = outcome.retryAfter ?? '';
  const header = /^[\w ,:+-]{1,64}$/.test(raw) ? ` (Retry-After: ${raw.trim()})` : '';
  throw new ErpsyncError('API_ERROR', state.redact(`${a.req.method} ${a.shownPath}: the server answered ${outcome.status} and asked to wait ${describeWait(asked)}${header}, longer than erpsync waits (${seconds(state.policy.maxWaitMs)} s)`), {
    details: ['nothing more was sent for this request; try again later'],
  });
}

function describeWait(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 360) / 10} h`;
}

async function waitBeforeRetry(state: ClientState, event: EventBase, reason: string, delayMs: number): Promise<void> {
  state.stats.retries += 1;
  state.options.onEvent?.({ type: 'retry', ...event, reason, delayMs });
  await sleep(delayMs, state.options.signal).catch(() => {
    throw interrupted();
  });
}

/**
 * A list that does not page as documented (real-observations #1: one list answered every record
 * to `limite=1`): a page longer than `limite`, or one that repeats the page before, holds the
 * whole list. The list is taken as complete and read once, and the client notes it.
 */
export interface ListNote {
  path: string;
  kind?: string;
  /** `over-limit`: a page answered more than `limite` records; `repeated-page`: page N answered page N-1 again. */
  reason: 'over-limit' | 'repeated-page';
  records: number;
  limit: number;
}

/** What one page of a list walk says: read on, the list ended, or the whole list came at once. */
export type PageVerdict = 'more' | 'ended' | ListNote['reason'];

/** Judges a page against the one before it (serialized), for every walk of a list. */
export function judgePage(rows: readonly unknown[], limit: number, previous: string | undefined): { verdict: PageVerdict; serialized: string } {
  const serialized = JSON.stringify(rows);
  if (rows.length === 0) return { verdict: 'ended', serialized };
  if (rows.length > limit) return { verdict: 'over-limit', serialized };
  if (serialized === previous) return { verdict: 'repeated-page', serialized };
  return { verdict: rows.length < limit ? 'ended' : 'more', serialized };
}

/** The line a report shows for a list read whole. */
export function describeListNote(note: ListNote): string {
  const how = note.reason === 'over-limit'
    ? `answered ${note.records} records to limite=${note.limit}`
    : `answered the same ${note.records} records for every pagina`;
  return `GET ${note.path} ${how}: the service does not page this list, so erpsync read it whole in one request`;
}

async function listAllPages<T>(
  request: <R>(req: ApiRequest) => Promise<ApiResponse<R>>,
  state: Pick<ClientState, 'redact' | 'listNotes'>,
  path: string,
  query?: Query,
  listOptions: { kind?: string; limit?: number } = {},
): Promise<T[]> {
  const limit = listOptions.limit ?? DEFAULT_PAGE_SIZE;
  const items: T[] = [];
  let previousPage: string | undefined;
  for (let pagina = 1; ; pagina += 1) {
    const { data } = await request<unknown>({ method: 'GET', path, query: { ...query, pagina, limite: limit }, kind: listOptions.kind });
    if (!Array.isArray(data)) {
      throw new ErpsyncError('API_ERROR', state.redact(`GET ${path}: expected a list in \`data\`, got ${describeShape(data)}`));
    }
    const { verdict, serialized } = judgePage(data, limit, previousPage);
    previousPage = serialized;
    if (verdict === 'over-limit' || verdict === 'repeated-page') {
      state.listNotes.push({ path, ...(listOptions.kind ? { kind: listOptions.kind } : {}), reason: verdict, records: data.length, limit });
      // A repeated page is the list already read; an over-long one is all of it.
      return verdict === 'over-limit' ? (data as T[]) : items;
    }
    items.push(...(data as T[]));
    if (verdict === 'ended') return items;
  }
}

const failureText: Record<'connect-failed' | 'connection-lost' | 'timeout', string> = {
  'connect-failed': 'could not connect',
  'connection-lost': 'the connection broke',
  timeout: 'timed out',
};

/** A daily 429 cannot be waited out within a run (api-facts §5: "try again tomorrow"): never retried. */
function dailyQuotaSpent(): ErpsyncError {
  return new ErpsyncError('DAILY_QUOTA', "the account's daily request quota is used up (the service answered 429 for the day); this run stopped sending", {
    details: ['the quota is shared by every integration of the account and renews the next day; run again then'],
  });
}

function interrupted(): ErpsyncError {
  return new ErpsyncError('INTERRUPTED', 'interrupted');
}

const connectErrorCodes: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Where the failure happened decides whether the server may have acted on the request. */
export function classifyNetworkError(error: unknown, phase: 'headers' | 'body'): 'connect-failed' | 'connection-lost' | 'timeout' {
  const code = errorCode(error);
  if (phase === 'headers' && code !== undefined && connectErrorCodes.has(code)) return 'connect-failed';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'timeout';
  return 'connection-lost';
}

function errorCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  return error.cause === undefined ? undefined : errorCode(error.cause);
}

function parseSuccessBody(outcome: Extract<Outcome, { type: 'response' }>, method: HttpMethod, path: string): unknown {
  if (outcome.status === 204 || outcome.text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(outcome.text);
  } catch {
    throw new ApiError({ status: outcome.status, method, path, body: { fields: [], nonJson: true, message: 'the success response is not JSON' } });
  }
  return isPlainRecord(parsed) && 'data' in parsed ? parsed.data : parsed;
}

function redactBody(body: ParsedErrorBody, redact: (text: string) => string): ParsedErrorBody {
  const r = (text: string | undefined): string | undefined => (text === undefined ? undefined : redact(text));
  return {
    ...body,
    type: r(body.type),
    message: r(body.message),
    description: r(body.description),
    fields: body.fields.map((f) => ({ ...f, message: redact(f.message), element: r(f.element), namespace: r(f.namespace) })),
  };
}

function describeShape(value: unknown): string {
  if (value === undefined) return 'no body';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? (value === null ? 'null' : 'an object') : typeof value;
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
