// The HTTP edge of the emulator (node:http). One request goes: inspection routes (no auth, not
// logged) → fault injection → auth → rate and daily limits → route → JSON body → handler, with
// the handler's changes undone (its journal) if it fails half-way and persisted before the answer
// when it changed. It does not model resources itself: that is the resource modules' job.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import {
  ApiFailure,
  errorEnvelope,
  malformedBodyFailure,
  routeNotFound,
  ipBlockedPayload,
  serverErrorPayload,
  tooManyRequestsPayload,
} from './api-error.js';
import type { AuthStore } from './auth.js';
import { checkBearer } from './auth.js';
import type { FaultPlan } from './faults.js';
import { Journal } from './journal.js';
import { defaultHoldMs, defaultLatencyMs, dropMembers, pickFault } from './faults.js';
import type { RawResponse } from './oauth.js';
import { handleOAuth, jsonResponse } from './oauth.js';
import type { DailyCounter, TokenBucket } from './rate-limit.js';
import { countDailyRequest, takeToken } from './rate-limit.js';
import type { RequestLog } from './request-log.js';
import { appendLogEntry } from './request-log.js';
import type { CompiledRoute, RouteResult } from './router.js';
import { matchRoute, servesPath } from './router.js';
import type { ReadingId } from './readings.js';
import { truncateNames } from './readings.js';
import { applyReadings } from './answer-readings.js';
import type { EmulatorMode } from './rules.js';
import { enforces } from './rules.js';
import type { EmulatorState } from './state.js';
import type { FaultKind, OAuthClient, RequestLogEntry } from './types.js';
import type { IpLedger } from './ip-rules.js';

export const apiPrefix = '/Api/v3';
const maxBodyBytes = 1 << 20;

export interface EmulatorRuntime {
  state: EmulatorState;
  mode: EmulatorMode;
  readings: ReadonlySet<ReadingId>;
  routes: readonly CompiledRoute[];
  auth: AuthStore;
  oauthClients: readonly OAuthClient[];
  log: RequestLog;
  faults: FaultPlan | undefined;
  bucket: TokenBucket;
  daily: DailyCounter;
  /** The per-IP rules, shared by every emulator given the same ledger. */
  ip: IpLedger;
  now: () => number;
  /** Writes the state file (a no-op without one); resolves once the change is durable. */
  persist: () => Promise<void>;
  /** Answers /__sandbox/* inspection routes. */
  inspect: (method: string, path: string, body: string) => RawResponse;
}

/** Serves one request. A crash in a handler answers 500; a broken client connection rejects. */
export async function serveRequest(runtime: EmulatorRuntime, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://emulator.invalid');
  const method = (req.method ?? 'GET').toUpperCase();
  const sandboxPath = inspectionPath(url.pathname);
  if (sandboxPath !== undefined) {
    send(res, runtime.inspect(method, sandboxPath, await readRequestBody(req)));
    return;
  }
  const path = url.pathname.startsWith(`${apiPrefix}/`) ? url.pathname.slice(apiPrefix.length) : url.pathname;
  const entry: RequestLogEntry = { method, path, query: url.search.slice(1), status: 0, at: runtime.now() };
  const ip = req.socket.remoteAddress ?? 'unknown';
  // Rule ip-blocks: the edge counts every request of the IP before anything else sees it.
  const blockedForMs = runtime.ip.admit(ip, path === '/oauth/token');
  if (blockedForMs !== undefined) {
    entry.status = 403;
    appendLogEntry(runtime.log, entry);
    send(res, jsonResponse(403, errorEnvelope(ipBlockedPayload(blockedForMs))));
    return;
  }
  const fault = pickFault(runtime.faults, method, path);
  if (fault) entry.fault = fault;
  // Logged on arrival, in arrival order; the status is filled in when the answer is known, so a
  // request still delayed by a latency fault (or whose client gave up) is already visible.
  appendLogEntry(runtime.log, entry);

  if (fault === 'reset-before') {
    req.socket.destroy();
    return;
  }
  if (fault === 'latency') await delay(runtime.faults?.spec.latencyMs ?? defaultLatencyMs);
  const injected = fault ? faultResponse(fault, runtime.bucket.perSecond, runtime.faults?.spec.retryAfterSeconds) : undefined;
  if (injected) {
    entry.status = injected.status;
    if (injected.status >= 400) runtime.ip.recordError(ip);
    send(res, injected);
    return;
  }

  const body = await readRequestBody(req);
  const holdMs = runtime.faults?.spec.holdMs ?? defaultHoldMs;
  // The request is in: the server goes on with it even if the client gives up meanwhile.
  if (fault === 'late-commit') await delay(holdMs);
  let response: RawResponse;
  try {
    response = url.pathname.startsWith(`${apiPrefix}/`)
      ? await dispatch(runtime, req, method, path, url.searchParams, body, entry)
      : jsonResponse(404, errorEnvelope(routeNotFound().payload));
  } catch {
    response = jsonResponse(500, errorEnvelope(serverErrorPayload()));
  }
  entry.status = response.status;
  if (response.status >= 400) runtime.ip.recordError(ip);
  if (fault === 'slow-response') await delay(holdMs);
  if (fault === 'reset-after') {
    // The change is committed (and persisted); only the answer is lost.
    req.socket.destroy();
    return;
  }
  send(res, response);
}

function inspectionPath(pathname: string): string | undefined {
  for (const prefix of ['/__sandbox', `${apiPrefix}/__sandbox`]) {
    if (pathname === prefix || pathname.startsWith(`${prefix}/`)) return pathname.slice(prefix.length) || '/';
  }
  return undefined;
}

async function dispatch(
  runtime: EmulatorRuntime,
  req: IncomingMessage,
  method: string,
  path: string,
  query: URLSearchParams,
  body: string,
  entry: RequestLogEntry,
): Promise<RawResponse> {
  // The token endpoint has its own per-IP limit (rule ip-blocks, counted on arrival); it does not
  // spend the account's request budget.
  if (path.startsWith('/oauth/')) {
    const outcome = handleOAuth(
      runtime.auth,
      runtime.oauthClients,
      { method, path, query, authorization: req.headers.authorization, contentType: req.headers['content-type'], body },
      runtime.now(),
    );
    if (!outcome) return failureResponse(routeNotFound());
    if (outcome.changed) await runtime.persist();
    return outcome.response;
  }

  const auth = checkBearer(runtime.auth, req.headers.authorization, runtime.now(), path);
  if (!auth.ok) return jsonResponse(auth.status, errorEnvelope(auth.payload));
  if (!takeToken(runtime.bucket, performance.now())) {
    return jsonResponse(429, errorEnvelope(tooManyRequestsPayload('second', runtime.bucket.perSecond)));
  }
  // Rule daily-quota: counted after the per-second limit, so a request it refused spends no part of the day.
  if (!countDailyRequest(runtime.daily, runtime.now())) {
    return jsonResponse(429, errorEnvelope(tooManyRequestsPayload('day', runtime.daily.limit)));
  }

  // Rule trailing-slash: strict mode knows no `/path/`; lenient mode serves it as `/path`.
  const routePath = path.length > 1 && path.endsWith('/') && !enforces(runtime.mode, 'trailing-slash') ? path.replace(/\/+$/, '') : path;
  const match = matchRoute(runtime.routes, method, routePath);
  if (!match) return failureResponse(unmatched(runtime, routePath));
  entry.route = `${method} ${match.route.template}`;

  let parsed: unknown;
  if (body.trim() !== '') {
    // Rule json-content-type (strict only); rule malformed-json (both modes).
    if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json') && enforces(runtime.mode, 'json-content-type')) {
      return failureResponse(malformedBodyFailure('O corpo da requisição deve ser enviado como application/json.'));
    }
    try {
      parsed = JSON.parse(body);
    } catch {
      return failureResponse(malformedBodyFailure('O corpo da requisição não é um JSON válido.'));
    }
    parsed = dropMembers(runtime.faults, method, path, parsed);
  }

  const mutating = method !== 'GET';
  if ((method === 'POST' || method === 'PUT') && runtime.readings.has('names-truncated')) parsed = truncateNames(parsed);
  // Handlers run synchronously and change the state only through the journal, so undoing it on
  // failure cannot touch another request's changes, and costs only what this one changed.
  const tx = new Journal();
  const nextId = runtime.state.nextId;
  let result: RouteResult;
  try {
    result = match.route.handle({ state: runtime.state, tx, mode: runtime.mode, readings: runtime.readings, params: match.params, query, body: parsed, now: runtime.now() });
  } catch (error) {
    tx.rollback();
    runtime.state.nextId = nextId;
    if (error instanceof ApiFailure) return failureResponse(error);
    throw error;
  }
  if (mutating && result.status < 300) await runtime.persist();
  return result.body === undefined
    ? { status: result.status, headers: result.status === 204 ? {} : { 'content-type': 'application/json; charset=utf-8' } }
    : jsonResponse(result.status, applyReadings(runtime.readings, result.body));
}

/** Rule method-not-allowed: a path served for other methods answers 404 (strict) or 405 (lenient). */
function unmatched(runtime: EmulatorRuntime, path: string): ApiFailure {
  if (enforces(runtime.mode, 'method-not-allowed') || !servesPath(runtime.routes, path)) return routeNotFound();
  return new ApiFailure(405, {
    type: 'METHOD_NOT_ALLOWED',
    message: 'Método não permitido',
    description: 'O método HTTP não é aceito por este recurso.',
  });
}

function failureResponse(failure: ApiFailure): RawResponse {
  return jsonResponse(failure.status, errorEnvelope(failure.payload));
}

const htmlHeaders = { 'content-type': 'text/html; charset=UTF-8' };

function htmlPage(title: string, heading: string, text: string): string {
  return [
    '<!DOCTYPE html>',
    `<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>`,
    `<body><div id="cf-error-details"><h1>${heading}</h1><p>${text}</p>`,
    '<p>Ray ID: 0000000000000000 &bull; Performance &amp; security by Cloudflare</p></div></body></html>',
  ].join('\n');
}

/**
 * What an injected fault answers. 5xx from the edge (502/503) come as the CDN's HTML pages, not
 * the JSON envelope, as does its 1015 rate-limit page: clients must not assume a JSON body.
 */
function faultResponse(kind: FaultKind, perSecond: number, retryAfterSeconds: number | undefined): RawResponse | undefined {
  const retryAfter: Record<string, string> = retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) };
  switch (kind) {
    case 'http500':
      return jsonResponse(500, errorEnvelope(serverErrorPayload()));
    case 'http502':
      return { status: 502, headers: htmlHeaders, body: htmlPage('502 Bad gateway', 'Error 502: Bad gateway', 'The web server reported a bad gateway error.') };
    case 'http503':
      return { status: 503, headers: htmlHeaders, body: htmlPage('503 Service unavailable', 'Error 503: Service temporarily unavailable', 'The origin is temporarily unable to handle the request.') };
    case 'http429':
      return jsonResponse(429, errorEnvelope(tooManyRequestsPayload('second', perSecond > 0 ? perSecond : 3)), retryAfter);
    case 'http429-html':
      return { status: 429, headers: { ...htmlHeaders, ...retryAfter }, body: htmlPage('Access denied | api.bling.com.br used Cloudflare to restrict access', 'Error 1015: You are being rate limited', 'The owner of this website has banned you temporarily from accessing it.') };
    default:
      return undefined;
  }
}

async function readRequestBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    // Oversized bodies are cut; the truncated text then fails to parse and answers 400.
    if (size <= maxBodyBytes) chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, response: RawResponse): void {
  // A client that gave up on a held request is gone: the work is done, the answer has nowhere to go.
  if (res.destroyed || res.socket?.destroyed) return;
  const body = response.body ?? '';
  // A 204 must not carry Content-Length (RFC 9110 §8.6); everything else states its length.
  const length = response.status === 204 ? {} : { 'content-length': String(Buffer.byteLength(body)) };
  res.writeHead(response.status, { ...response.headers, ...length });
  res.end(response.status === 204 ? undefined : body);
}
