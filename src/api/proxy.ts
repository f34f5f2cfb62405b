// Which way a request leaves: through the proxy HTTPS_PROXY or HTTP_PROXY names, or direct when
// NO_PROXY names its host or no proxy is set. The variables are read as undici's EnvHttpProxyAgent
// reads them (the lower-case name first; an https URL goes through HTTPS_PROXY, else HTTP_PROXY;
// NO_PROXY entries are a host, `.domain` or `*.domain` — the domain and its subdomains —, any of
// them with `:port`, or `*` for every host), but from the run's own environment, and the route is
// decided here once per origin: the same decision that opens the connection is the one --debug and
// doctor print. A proxy's credentials are never printed: every description masks them.
import type { Dispatcher } from 'undici';
import { ErpsyncError } from '../model/errors.js';
import { REDACTED } from './redact.js';

export interface ProxySetting {
  /** The proxy's URL as the variable gives it (credentials included: never printed). */
  url: string;
  /** The variable it came from, e.g. `HTTPS_PROXY` or `https_proxy`. */
  from: string;
}

interface NoProxyEntry {
  /** As written in NO_PROXY, for the description. */
  text: string;
  hostname: string;
  /** 0: any port. */
  port: number;
}

export interface ProxySettings {
  https?: ProxySetting;
  http?: ProxySetting;
  /** NO_PROXY's entries and the variable they came from; `*` is an entry of its own. */
  noProxy?: { from: string; entries: readonly NoProxyEntry[] };
}

/** Where the requests to one origin go, and why. */
export type ProxyRoute = { via: 'proxy'; proxy: ProxySetting } | { via: 'direct'; because: string };

/** No proxy variable at all: every request goes direct (the sandbox, and a run whose environment names none). */
export const NO_PROXY_SETTINGS: ProxySettings = {};

type Env = Readonly<Record<string, string | undefined>>;

/** The run's proxy variables; a proxy URL erpsync cannot use is a CONFIG error naming its variable (never its value). */
export function readProxySettings(env: Env): ProxySettings {
  const https = readProxyVariable(env, 'https_proxy', 'HTTPS_PROXY');
  const http = readProxyVariable(env, 'http_proxy', 'HTTP_PROXY');
  const noProxy = firstSet(env, 'no_proxy', 'NO_PROXY');
  return {
    ...(https ? { https } : {}),
    ...(http ? { http } : {}),
    ...(noProxy ? { noProxy: { from: noProxy.from, entries: parseNoProxy(noProxy.value) } } : {}),
  };
}

function firstSet(env: Env, lower: string, upper: string): { value: string; from: string } | undefined {
  for (const name of [lower, upper]) {
    const value = env[name]?.trim();
    if (value) return { value, from: name };
  }
  return undefined;
}

function readProxyVariable(env: Env, lower: string, upper: string): ProxySetting | undefined {
  const set = firstSet(env, lower, upper);
  if (!set) return undefined;
  // Refused without a word of the value: before its scheme may stand a user name (`user:pass@host`).
  const hint = { details: ['give it as http://host:port (or https://), with user:password@ before the host when the proxy asks for them'] };
  let url: URL;
  try {
    url = new URL(set.value);
  } catch {
    throw new ErpsyncError('CONFIG', `${set.from} is not a URL erpsync can use as a proxy`, hint);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ErpsyncError('CONFIG', `${set.from} must start with http:// or https://`, hint);
  return { url: set.value, from: set.from };
}

function parseNoProxy(value: string): NoProxyEntry[] {
  return value
    .split(/[,\s]+/)
    .filter((text) => text !== '')
    .map((text) => {
      const withPort = /^(.+):(\d+)$/.exec(text);
      const host = withPort?.[1] ?? text;
      return { text, hostname: host.replace(/^\*?\./, '').toLowerCase(), port: withPort ? Number(withPort[2]) : 0 };
    });
}

/** The route of the requests to `url`'s origin. Pure. */
export function routeFor(settings: ProxySettings, url: URL): ProxyRoute {
  const https = url.protocol === 'https:';
  const proxy = https ? (settings.https ?? settings.http) : settings.http;
  if (!proxy) return { via: 'direct', because: `no ${https ? 'HTTPS_PROXY or HTTP_PROXY' : 'HTTP_PROXY'} is set` };
  const exempt = exemptingEntry(settings, url);
  return exempt === undefined ? { via: 'proxy', proxy } : { via: 'direct', because: `${settings.noProxy?.from ?? 'NO_PROXY'} names ${exempt}` };
}

/** The NO_PROXY entry that sends `url` direct, if any. */
function exemptingEntry(settings: ProxySettings, url: URL): string | undefined {
  // `host` keeps an IPv6 address's brackets; the port is stripped from it.
  const hostname = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  for (const entry of settings.noProxy?.entries ?? []) {
    if (entry.text === '*') return entry.text;
    if (entry.port !== 0 && entry.port !== port) continue;
    if (hostname === entry.hostname || hostname.endsWith(`.${entry.hostname}`)) return entry.text;
  }
  return undefined;
}

/** A proxy URL as it may be printed: scheme, host and port, its credentials masked. */
export function describeProxyUrl(raw: string): string {
  const url = new URL(raw);
  const credentials = url.username !== '' || url.password !== '' ? `${REDACTED}@` : '';
  return `${url.protocol}//${credentials}${url.host}`;
}

/** `https://api.example through http://proxy:3128 (HTTPS_PROXY)` or `… direct (NO_PROXY names …)`. */
export function describeRoute(url: URL, route: ProxyRoute): string {
  return `${url.origin} ${describeVia(route)}`;
}

/** `through http://proxy:3128 (HTTPS_PROXY)` or `direct (no HTTPS_PROXY or HTTP_PROXY is set)`. */
export function describeVia(route: ProxyRoute): string {
  return route.via === 'proxy' ? `through ${describeProxyUrl(route.proxy.url)} (${route.proxy.from})` : `direct (${route.because})`;
}

/** The proxies' credentials, for the redactors. */
export function proxySecrets(settings: ProxySettings): string[] {
  return [settings.https, settings.http].flatMap((setting) => (setting ? credentialsOfProxyUrl(setting.url) : []));
}

/** The proxy variables of an environment, for the output mask under every command (it never throws: a bad URL is the run's error to say). */
export function proxyVariableSecrets(env: Env): string[] {
  return ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'].flatMap((name) => credentialsOfProxyUrl(env[name] ?? ''));
}

/** A proxy URL's user and password as written and decoded, and the whole URL when it holds them; none for a URL without. */
function credentialsOfProxyUrl(raw: string): string[] {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return [];
  }
  const parts = [url.password, url.username].filter((part) => part !== '');
  return parts.length === 0 ? [] : [raw.trim(), ...parts.flatMap((part) => [part, safeDecode(part)])];
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

export interface DispatcherTimeouts {
  connectMs: number;
  headersMs: number;
  bodyMs: number;
  keepAliveMs?: number;
}

/**
 * The undici dispatcher for a route: an Agent direct, or a ProxyAgent that tunnels https with
 * CONNECT and sends plain http (loopback only) in absolute form, as curl does. undici loads here,
 * with the first request, so a command that sends none starts without it.
 */
export async function openDispatcher(route: ProxyRoute, timeouts: DispatcherTimeouts): Promise<Dispatcher> {
  const { Agent, ProxyAgent } = await import('undici');
  const options = { connect: { timeout: timeouts.connectMs }, headersTimeout: timeouts.headersMs, bodyTimeout: timeouts.bodyMs, ...(timeouts.keepAliveMs === undefined ? {} : { keepAliveTimeout: timeouts.keepAliveMs }) };
  if (route.via === 'direct') return new Agent(options);
  // The ProxyAgent connects to the proxy and through its tunnel with connectors of its own: each gets the connect timeout.
  const connectTimeout = { timeout: timeouts.connectMs };
  return new ProxyAgent({ ...options, uri: route.proxy.url, proxyTunnel: false, proxyTls: connectTimeout, requestTls: connectTimeout });
}
