// The OAuth 2 endpoints of the service: the authorize URL a person opens once, and the token
// endpoint (authorization code or refresh token in, token set out). Client credentials travel only
// in the Basic header, as the service requires. Does not store anything: credentials.ts and the
// login command decide where tokens go.
import { ErpsyncError } from '../model/errors.js';
import { parseErrorBody } from './errors.js';
import { readBodyWithin } from './bounded-body.js';
import { describeVia, NO_PROXY_SETTINGS, openDispatcher, proxySecrets, routeFor } from './proxy.js';
import type { ProxySettings } from './proxy.js';
import { createRedactor } from './redact.js';
import { parseSecureUrl } from './url.js';
import { isPlainRecord } from '../model/paths.js';
import type { Governor } from './governor.js';

export const BLING_API_BASE_URL = 'https://api.bling.com.br/Api/v3';
/** The real service serves the consent page from www, not from the API host. */
const BLING_AUTHORIZE_URL = 'https://www.bling.com.br/Api/v3/oauth/authorize';

const TOKEN_REQUEST_TIMEOUT_MS = 30_000;

export interface OAuthEndpoints {
  authorizeUrl: string;
  tokenUrl: string;
}

export function deriveOAuthEndpoints(baseUrl: string): OAuthEndpoints {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    authorizeUrl: base === BLING_API_BASE_URL ? BLING_AUTHORIZE_URL : `${base}/oauth/authorize`,
    tokenUrl: `${base}/oauth/token`,
  };
}

export function buildAuthorizeUrl(authorizeUrl: string, params: { clientId: string; state: string; redirectUri?: string }): string {
  const url = parseSecureUrl(authorizeUrl, 'authorize URL');
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', params.clientId);
  url.searchParams.set('state', params.state);
  // The service ignores redirect_uri (it always uses the registered one); sending it documents intent.
  if (params.redirectUri !== undefined) url.searchParams.set('redirect_uri', params.redirectUri);
  return url.toString();
}

export type TokenGrant = { type: 'authorization_code'; code: string; redirectUri?: string } | { type: 'refresh_token'; refreshToken: string };

export interface TokenSet {
  accessToken: string;
  refreshToken: string;
  /** Lifetime of the access token in seconds, as the server stated it. */
  expiresIn: number;
  scope?: string;
}

export interface TokenRequestOptions {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  grant: TokenGrant;
  signal?: AbortSignal;
  /** The run's proxy variables (proxy.ts); absent: the call goes direct. */
  proxy?: ProxySettings;
  /** The process's request governor: token calls have their own per-IP window (20 in 60 s). */
  governor?: Governor;
}

export async function requestToken(options: TokenRequestOptions): Promise<TokenSet> {
  const url = parseSecureUrl(options.tokenUrl, 'token URL');
  const proxy = options.proxy ?? NO_PROXY_SETTINGS;
  const route = routeFor(proxy, url);
  const redactor = createRedactor([options.clientSecret, grantSecret(options.grant), ...proxySecrets(proxy)]);
  const form = new URLSearchParams({ grant_type: options.grant.type });
  if (options.grant.type === 'authorization_code') {
    form.set('code', options.grant.code);
    if (options.grant.redirectUri !== undefined) form.set('redirect_uri', options.grant.redirectUri);
  } else {
    form.set('refresh_token', options.grant.refreshToken);
  }
  const basic = Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64');
  redactor.add(basic);
  // Loaded here, not at the top: a command that never asks for a token starts without undici.
  const { request } = await import('undici');
  const answered = await options.governor?.acquireTokenCall(options.signal).catch(() => {
    throw new ErpsyncError('INTERRUPTED', 'interrupted while waiting to request an access token');
  });
  const dispatcher = await openDispatcher(route, { connectMs: 10_000, headersMs: TOKEN_REQUEST_TIMEOUT_MS, bodyMs: TOKEN_REQUEST_TIMEOUT_MS });
  const signal = options.signal ? AbortSignal.any([options.signal, AbortSignal.timeout(TOKEN_REQUEST_TIMEOUT_MS)]) : AbortSignal.timeout(TOKEN_REQUEST_TIMEOUT_MS);
  let status: number;
  let text: string;
  let contentType: string | undefined;
  try {
    const res = await request(url, {
      method: 'POST',
      dispatcher,
      headers: {
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: form.toString(),
      signal,
    });
    status = res.statusCode;
    contentType = headerValue(res.headers['content-type']);
    // A token answer is a few hundred bytes: a huge one is never held.
    text = await readBodyWithin(res.body as unknown as AsyncIterable<Buffer> & { destroy(): unknown }, headerValue(res.headers['content-length']), 1024 * 1024);
  } catch (error) {
    if (options.signal?.aborted) throw new ErpsyncError('INTERRUPTED', 'interrupted while requesting an access token');
    const via = route.via === 'proxy' ? ` ${describeVia(route)}` : '';
    throw new ErpsyncError('API_UNREACHABLE', redactor.redact(`could not reach the token endpoint ${url.origin}${url.pathname}${via}: ${describeNetworkError(error)}`));
  } finally {
    answered?.();
    await dispatcher.close();
  }
  if (status < 200 || status >= 300) {
    options.governor?.recordError();
    const body = parseErrorBody(text, contentType);
    const said = [body.type, body.message ?? body.description].filter(Boolean).join(': ');
    const hint =
      options.grant.type === 'refresh_token'
        ? 'the refresh token was used already (each works once: another run may have rotated it, or one was stopped between the answer and saving the new one), expired or was revoked: run `erpsync login` again'
        : 'authorization codes expire after a minute and work once: run `erpsync login` again';
    throw new ErpsyncError('AUTH_FAILED', redactor.redact(`the token endpoint refused the ${grantLabel(options.grant)} (${status}${said ? ` ${said}` : ''})`), {
      details: [hint],
    });
  }
  return parseTokenResponse(text, redactor.redact);
}

/** Reads a token response; pure. */
export function parseTokenResponse(text: string, redact: (s: string) => string = (s) => s): TokenSet {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ErpsyncError('AUTH_FAILED', 'the token endpoint answered with something that is not JSON (an HTML page?); the stored credentials are kept', { cause: new Error(redact(String(error))) });
  }
  const body = isPlainRecord(parsed) && isPlainRecord(parsed.data) ? parsed.data : parsed;
  // An empty, blank or malformed token would replace the stored refresh token with one that can
  // never work, locking the store out although the old one may still: refused, nothing is stored.
  if (!isPlainRecord(body) || !isUsableToken(body.access_token) || !isUsableToken(body.refresh_token)) {
    throw new ErpsyncError('AUTH_FAILED', 'the token endpoint answered without a usable access token and refresh token; the stored credentials are kept', {
      details: ['try again later; if it persists, run `erpsync login` again'],
    });
  }
  const expiresIn = Number(body.expires_in);
  return {
    accessToken: body.access_token,
    refreshToken: body.refresh_token,
    expiresIn: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : 0,
    scope: typeof body.scope === 'string' ? body.scope : undefined,
  };
}

/** A token as OAuth defines one (RFC 6749 §A.12–13: visible ASCII characters), not empty. */
function isUsableToken(value: unknown): value is string {
  return typeof value === 'string' && /^[\x21-\x7e]+$/.test(value);
}

function grantSecret(grant: TokenGrant): string {
  return grant.type === 'authorization_code' ? grant.code : grant.refreshToken;
}

function grantLabel(grant: TokenGrant): string {
  return grant.type === 'authorization_code' ? 'authorization code' : 'refresh token';
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A network failure as `CODE: message`, without the request object undici may attach. */
export function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${typeof code === 'string' ? `${code}: ` : ''}${error.message}${cause}`;
}
