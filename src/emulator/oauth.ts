// OAuth 2 authorization-code flow under the base URL: /oauth/authorize approves at once (there is
// no user to ask in a sandbox) and redirects to the client's REGISTERED redirect URI — the real
// service ignores a redirect_uri parameter — and /oauth/token exchanges codes and rotating,
// single-use refresh tokens. Errors use the v3 envelope.
import type { ErrorPayload } from './api-error.js';
import { errorEnvelope } from './api-error.js';
import type { AuthStore } from './auth.js';
import {
  accessTokenTtlMs,
  addAccessToken,
  authorizationCodeTtlMs,
  defaultScopes,
  generateSecret,
  refreshTokenTtlMs,
  revokeGrant,
} from './auth.js';
import type { OAuthClient } from './types.js';

export interface RawResponse {
  status: number;
  headers?: Record<string, string>;
  /** Serialised body; undefined sends none. */
  body?: string;
}

export interface OAuthRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
  contentType: string | undefined;
  body: string;
}

export interface OAuthOutcome {
  response: RawResponse;
  /** Tokens were issued or revoked, so the persisted auth state must be written. */
  changed: boolean;
}

export const defaultOAuthClient: OAuthClient = {
  clientId: 'sandbox-client',
  clientSecret: 'sandbox-secret',
  redirectUri: 'http://127.0.0.1:8719/callback',
};

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): RawResponse {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body: JSON.stringify(body) };
}

function oauthError(status: number, type: string, message: string, description: string): OAuthOutcome {
  const payload: ErrorPayload = { type, message, description };
  return { response: jsonResponse(status, errorEnvelope(payload)), changed: false };
}

/** Answers /oauth/* or undefined when the path is not an OAuth route. */
export function handleOAuth(
  store: AuthStore,
  clients: readonly OAuthClient[],
  request: OAuthRequest,
  now: number,
): OAuthOutcome | undefined {
  if (request.path === '/oauth/authorize' && request.method === 'GET') return authorize(store, clients, request.query, now);
  if (request.path === '/oauth/token' && request.method === 'POST') return exchangeToken(store, clients, request, now);
  return undefined;
}

function authorize(store: AuthStore, clients: readonly OAuthClient[], query: URLSearchParams, now: number): OAuthOutcome {
  const client = clients.find((c) => c.clientId === query.get('client_id'));
  if (!client) {
    return oauthError(400, 'invalid_client', 'Aplicativo não encontrado', 'The client_id does not name a registered application.');
  }
  const redirect = new URL(client.redirectUri);
  const state = query.get('state');
  if (query.get('response_type') !== 'code' || !state) {
    redirect.searchParams.set('error', query.get('response_type') !== 'code' ? 'unsupported_response_type' : 'invalid_request');
    redirect.searchParams.set('error_description', 'response_type=code and state are required');
    if (state) redirect.searchParams.set('state', state);
    return { response: { status: 302, headers: { location: redirect.toString() } }, changed: false };
  }
  const code = generateSecret();
  store.codes.set(code, {
    code,
    clientId: client.clientId,
    expiresAt: now + authorizationCodeTtlMs,
    used: false,
    grantId: generateSecret(),
  });
  redirect.searchParams.set('code', code);
  redirect.searchParams.set('state', state);
  return { response: { status: 302, headers: { location: redirect.toString() } }, changed: false };
}

function readBasicClient(clients: readonly OAuthClient[], header: string | undefined): OAuthClient | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  const id = decoded.slice(0, colon);
  const secret = decoded.slice(colon + 1);
  return clients.find((c) => c.clientId === id && c.clientSecret === secret);
}

function exchangeToken(
  store: AuthStore,
  clients: readonly OAuthClient[],
  request: OAuthRequest,
  now: number,
): OAuthOutcome {
  const client = readBasicClient(clients, request.authorization);
  if (!client) {
    return oauthError(401, 'invalid_client', 'Credenciais inválidas', 'The client credentials are invalid; send them with HTTP Basic authentication.');
  }
  if (!(request.contentType ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    return oauthError(400, 'invalid_request', 'Requisição inválida', 'The body must be application/x-www-form-urlencoded.');
  }
  const form = new URLSearchParams(request.body);
  if (form.has('client_id') || form.has('client_secret')) {
    return oauthError(400, 'invalid_request', 'Requisição inválida', 'Client credentials are not accepted in the request body.');
  }
  const grantType = form.get('grant_type');
  if (grantType === 'authorization_code') {
    const record = store.codes.get(form.get('code') ?? '');
    if (!record || record.clientId !== client.clientId) {
      return oauthError(400, 'invalid_grant', 'Código de autorização inválido', 'The authorization code is invalid.');
    }
    if (record.used) {
      // A replayed code revokes what it granted, as the real service does "for safety".
      revokeGrant(store, record.grantId);
      const outcome = oauthError(400, 'VALIDATION_ERROR', 'Código de autorização inválido', 'Invalid authorization code: it was already used.');
      return { ...outcome, changed: true };
    }
    if (record.expiresAt <= now) {
      return oauthError(400, 'invalid_grant', 'Código de autorização expirado', 'The authorization code has expired.');
    }
    record.used = true;
    return issueTokens(store, client, record.grantId, now);
  }
  if (grantType === 'refresh_token') {
    const token = form.get('refresh_token') ?? '';
    const record = store.refresh.get(token);
    if (!record || record.clientId !== client.clientId) {
      return oauthError(400, 'invalid_grant', 'Refresh token inválido', 'The refresh token is invalid or was already used.');
    }
    store.refresh.delete(token);
    if (record.expiresAt <= now) {
      const outcome = oauthError(400, 'invalid_grant', 'Refresh token expirado', 'The refresh token has expired; authorize again.');
      return { ...outcome, changed: true };
    }
    return issueTokens(store, client, record.grantId, now);
  }
  return oauthError(400, 'unsupported_grant_type', 'Tipo de concessão não suportado', 'grant_type must be authorization_code or refresh_token.');
}

function issueTokens(store: AuthStore, client: OAuthClient, grantId: string, now: number): OAuthOutcome {
  const scopes = [...defaultScopes];
  const accessToken = generateSecret();
  const refreshToken = generateSecret();
  addAccessToken(store, { token: accessToken, scopes, expiresAt: now + accessTokenTtlMs, grantId });
  store.refresh.set(refreshToken, {
    token: refreshToken,
    clientId: client.clientId,
    scopes,
    expiresAt: now + refreshTokenTtlMs,
    grantId,
  });
  const body = {
    access_token: accessToken,
    expires_in: accessTokenTtlMs / 1000,
    token_type: 'Bearer',
    scope: scopes.join(' '),
    refresh_token: refreshToken,
  };
  return { response: jsonResponse(200, body, { 'cache-control': 'no-store' }), changed: true };
}
