// Bearer tokens of the emulated account: the static sandbox token, tokens minted for tests, and
// the OAuth grants (codes, access and rotating refresh tokens). Checking a request's
// Authorization header is pure over this store and a clock.
import { randomBytes } from 'node:crypto';
import type { ErrorPayload } from './api-error.js';

export const accessTokenTtlMs = 6 * 3_600_000;
export const refreshTokenTtlMs = 30 * 86_400_000;
export const authorizationCodeTtlMs = 60_000;
/**
 * Numeric scope ids like the real token responses carry. Which id grants which resource is not
 * public, so the emulator reads these three as the whole grant, and names a narrower grant by the
 * resource's path (scopeOf): a token carrying `formas-pagamentos` reads and writes only those.
 */
export const defaultScopes: readonly string[] = ['98309', '318257570', '5862218180'];

/** The scope a request path needs: its first segment (`categorias/…` by its first two). */
export function scopeOf(path: string): string {
  const [first = '', second = ''] = path.split('/').filter((segment) => segment !== '');
  return first === 'categorias' && second !== '' ? `categorias-${second}` : first;
}

function grants(scopes: readonly string[], path: string): boolean {
  return scopes.some((scope) => defaultScopes.includes(scope)) || scopes.includes(scopeOf(path));
}

export interface AccessToken {
  token: string;
  scopes: string[];
  /** null: never expires (the static sandbox token). */
  expiresAt: number | null;
  grantId?: string;
}

export interface RefreshToken {
  token: string;
  clientId: string;
  scopes: string[];
  expiresAt: number;
  grantId: string;
}

export interface AuthorizationCode {
  code: string;
  clientId: string;
  expiresAt: number;
  used: boolean;
  grantId: string;
}

export interface AuthStore {
  access: Map<string, AccessToken>;
  refresh: Map<string, RefreshToken>;
  codes: Map<string, AuthorizationCode>;
}

/** What survives a restart: issued tokens (codes live one minute and are not kept). */
export interface PersistedAuth {
  access: AccessToken[];
  refresh: RefreshToken[];
}

export function createAuthStore(persisted?: PersistedAuth): AuthStore {
  return {
    access: new Map((persisted?.access ?? []).map((t) => [t.token, t])),
    refresh: new Map((persisted?.refresh ?? []).map((t) => [t.token, t])),
    codes: new Map(),
  };
}

export function persistAuth(store: AuthStore, staticToken: string, now: number): PersistedAuth {
  return {
    access: [...store.access.values()].filter((t) => t.token !== staticToken && (t.expiresAt === null || t.expiresAt > now)),
    refresh: [...store.refresh.values()].filter((t) => t.expiresAt > now),
  };
}

export function generateSecret(): string {
  return randomBytes(20).toString('hex');
}

export function addAccessToken(store: AuthStore, token: AccessToken): void {
  store.access.set(token.token, token);
}

/** Revokes everything issued under one authorization (used when a code is replayed). */
export function revokeGrant(store: AuthStore, grantId: string): void {
  for (const [key, t] of store.access) if (t.grantId === grantId) store.access.delete(key);
  for (const [key, t] of store.refresh) if (t.grantId === grantId) store.refresh.delete(key);
}

export type AuthCheck = { ok: true } | { ok: false; status: number; payload: ErrorPayload };

/** Whether the Authorization header lets this request through to `path` (real-observations #4: a missing scope → 403 insufficient_scope). */
export function checkBearer(store: AuthStore, header: string | undefined, now: number, path: string): AuthCheck {
  if (header === undefined || header.trim() === '') {
    return fail(401, 'invalid_token', 'Token de acesso não informado', 'The request has no access token.');
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) {
    return fail(400, 'invalid_request', 'Cabeçalho de autenticação malformado', 'Malformed auth header.');
  }
  const token = store.access.get(match[1]);
  if (!token) return fail(401, 'invalid_token', 'Token de acesso inválido', 'The access token is invalid.');
  if (token.expiresAt !== null && token.expiresAt <= now) {
    return fail(401, 'invalid_token', 'Token de acesso expirado', 'The access token has expired.');
  }
  if (!grants(token.scopes, path)) {
    return fail(403, 'insufficient_scope', 'Escopo insuficiente', `The access token does not have the scope this request needs (${scopeOf(path)}).`);
  }
  return { ok: true };
}

function fail(status: number, type: string, message: string, description: string): AuthCheck {
  return { ok: false, status, payload: { type, message, description } };
}
