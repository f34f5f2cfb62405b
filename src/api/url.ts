// URL rules of the API layer: which base URLs may carry credentials, how a path and a query become
// a request target (PHP-style `name[]=` arrays). Pure functions; no requests.
import { ErpsyncError } from '../model/errors.js';

export type QueryValue = string | number | boolean | readonly (string | number)[] | undefined;
export type Query = Readonly<Record<string, QueryValue>>;

const loopbackHosts: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function isLoopbackHost(hostname: string): boolean {
  return loopbackHosts.has(hostname.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Parses a base URL and refuses anything a bearer token must not travel over: plain http to a
 * non-loopback host, other schemes, embedded user:password.
 */
export function parseSecureUrl(raw: string, what = 'base URL'): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch (error) {
    throw new ErpsyncError('CONFIG', `the ${what} '${raw}' is not a valid URL`, { cause: error });
  }
  if (url.username !== '' || url.password !== '') {
    throw new ErpsyncError('INSECURE_URL', `the ${what} must not embed a user name or password`);
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url;
  if (url.protocol === 'http:') {
    throw new ErpsyncError('INSECURE_URL', `refusing to send credentials over plain http to ${url.host}; use https`, {
      details: ['plain http is accepted only for loopback hosts (127.0.0.1, localhost, ::1)'],
    });
  }
  throw new ErpsyncError('INSECURE_URL', `the ${what} must use https (got ${url.protocol.replace(':', '')})`);
}

/** `a=1&ids[]=2&ids[]=3`; undefined values are left out, order follows the object. */
export function buildQueryString(query: Query | undefined): string {
  if (!query) return '';
  const parts: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      const key = `${encodeURIComponent(name)}[]`;
      for (const item of value as readonly (string | number)[]) parts.push(`${key}=${encodeURIComponent(String(item))}`);
    } else {
      parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
    }
  }
  return parts.join('&');
}

/**
 * The request path under the base URL's path: `/Api/v3` + `/formas-pagamentos` + `?…`.
 * Absolute URLs are refused so a caller cannot send the token to another origin.
 */
export function buildRequestPath(basePath: string, path: string, query?: Query): string {
  if (!path.startsWith('/') || path.startsWith('//')) {
    throw new ErpsyncError('INTERNAL', `API paths are relative to the base URL and start with one '/': ${path}`);
  }
  const qs = buildQueryString(query);
  return `${basePath.replace(/\/+$/, '')}${path}${qs === '' ? '' : `${path.includes('?') ? '&' : '?'}${qs}`}`;
}
