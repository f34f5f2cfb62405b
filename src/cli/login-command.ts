// `erpsync login`: the OAuth authorization-code flow, once per account. Prints the authorize URL,
// waits on 127.0.0.1 for the service to redirect the browser back with a code, checks `state`,
// exchanges the code at the token endpoint and stores the tokens in the login store (the
// credentials file, mode 0600, or the postgres backend). Later runs refresh from there; `login
// --refresh` keeps them fresh (login-refresh.ts). It never prints a token, a code or the client secret.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { buildAuthorizeUrl, createRedactor, isLoopbackHost, readProxySettings, requestToken, storedFromTokenSet } from '../api/index.js';
import type { Redactor } from '../api/index.js';
import { backendChoiceOf, resolveLoginTarget } from '../target/resolve-target.js';
import { ErpsyncError } from '../model/errors.js';
import type { RunIO } from '../model/run-io.js';
import { writeLine } from '../model/run-io.js';
import { loginStoreFor } from '../target/login-store.js';
import { loadTargetsConfig } from '../target/open-target.js';
import { renderHelp } from './commands.js';
import { loginFlags, parseCommandFlags } from './flags.js';
import { runLoginRefresh } from './login-refresh.js';
import { readTargetRequest } from './target-request.js';

export const DEFAULT_REDIRECT_URI = 'http://127.0.0.1:8719/callback';

export async function runLoginCommand(args: string[], io: RunIO): Promise<number> {
  const { flags: values, positionals } = parseCommandFlags('login', loginFlags, args, io.env);
  if (values.help) {
    writeLine(io.stdout, renderHelp('login'));
    return 0;
  }
  if (positionals.length > 0) throw new ErpsyncError('USAGE', `login takes no paths (got \`${positionals.join(' ')}\`)`);
  if (values.refresh) return runLoginRefresh(values, io);
  refuseUpkeepFlags(values);
  const request = readTargetRequest(values);
  const config = await loadTargetsConfig(request, io);
  const login = resolveLoginTarget({ request, env: io.env, cwd: io.cwd, config });
  const clientId = values['client-id'] ?? login.clientId ?? nonEmpty(io.env[login.clientIdEnv]);
  const clientSecret = nonEmpty(io.env[login.clientSecretEnv]);
  if (!clientId) throw new ErpsyncError('AUTH_MISSING', `no OAuth client id: pass --client-id or set ${login.clientIdEnv}`);
  if (!clientSecret) throw new ErpsyncError('AUTH_MISSING', `no OAuth client secret: set ${login.clientSecretEnv}`);
  const redirectUri = parseRedirectUri(values['redirect-uri'] ?? DEFAULT_REDIRECT_URI);
  // Read before the browser is sent anywhere: a proxy variable erpsync cannot use is said first.
  const proxy = readProxySettings(io.env);
  const timeoutMs = values.timeout * 1000;
  const state = randomBytes(16).toString('hex');
  const redactor = createRedactor([clientSecret]);
  // Opened before the browser is sent anywhere: a backend that cannot be reached, or a missing key, is said first.
  const backend = backendChoiceOf(config, io.env);
  const opened = await loginStoreFor(backend, io);
  const callback = await listenForCallback(redirectUri, state, redactor, io.signal, timeoutMs);
  try {
    const authorizeUrl = buildAuthorizeUrl(login.authorizeUrl, { clientId, state, redirectUri: redirectUri.toString() });
    writeLine(io.stdout, 'Open this URL in a browser, sign in to Bling and authorize the app:');
    writeLine(io.stdout, `  ${authorizeUrl}`);
    writeLine(io.stdout, `Waiting for the redirect to ${redirectUri.toString()} …`);
    const received = await callback.received;
    redactor.add(received.code);
    try {
      const tokens = await requestToken({
        tokenUrl: login.tokenUrl,
        clientId,
        clientSecret,
        grant: { type: 'authorization_code', code: received.code, redirectUri: redirectUri.toString() },
        proxy,
        signal: io.signal,
      });
      redactor.add(tokens.accessToken);
      redactor.add(tokens.refreshToken);
      const stored = storedFromTokenSet(tokens, { baseUrl: login.baseUrl, clientId, tokenUrl: login.tokenUrl, now: Date.now() });
      await opened.logins.write({ target: login.name, baseUrl: login.baseUrl, file: login.file }, stored);
      received.respond(200, 'erpsync is authorized. You can close this tab.');
      const where = backend.kind === 'local' ? `credentials stored in ${login.file} (mode 0600)` : `login stored in ${opened.where}, encrypted with the key in ${backend.keyEnv}`;
      writeLine(io.stdout, `Logged in to ${login.baseUrl}${login.name === 'default' ? '' : ` (target ${login.name})`}: ${where}; used for this base URL only.`);
      if (stored.expiresAt) writeLine(io.stdout, `The access token is valid until ${stored.expiresAt}; erpsync refreshes it automatically.`);
      return 0;
    } catch (error) {
      received.respond(500, 'erpsync could not complete the login; see the terminal.');
      throw error;
    }
  } finally {
    await callback.close();
  }
}

/**
 * The upkeep's flags mean nothing to the authorization in a browser, which is one account at a
 * time. (--within is not refused: its env twin may be set for the hourly upkeep on the same machine.)
 */
function refuseUpkeepFlags(values: { 'all-targets': boolean; 'dry-run': boolean; json: boolean }): void {
  const given = [values['all-targets'] && '--all-targets', values['dry-run'] && '--dry-run', values.json && '--json'].filter((flag) => flag !== false);
  if (given.length > 0) {
    throw new ErpsyncError('USAGE', `${given.join(', ')} ${given.length === 1 ? 'is' : 'are'} for \`erpsync login --refresh\` (token upkeep); a login in a browser is one account at a time`);
  }
}

interface Callback {
  /** Resolves with the code once a request with the right state arrives. */
  received: Promise<{ code: string; respond(status: number, text: string): void }>;
  close(): Promise<void>;
}

/** Listens on the redirect URI's port, on 127.0.0.1 only. */
async function listenForCallback(redirectUri: URL, state: string, redactor: Redactor, signal: AbortSignal, timeoutMs: number): Promise<Callback> {
  let settle: { resolve: (v: Awaited<Callback['received']>) => void; reject: (e: Error) => void } | undefined;
  const received = new Promise<Awaited<Callback['received']>>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const fail = (error: Error): void => settle?.reject(error);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', redirectUri);
    if (req.method !== 'GET' || url.pathname !== redirectUri.pathname) {
      reply(res, 404, 'Not found.');
      return;
    }
    const outcome = readCallback(url.searchParams, state);
    if (outcome.type === 'error') {
      reply(res, 400, 'erpsync could not complete the login; see the terminal.');
      fail(new ErpsyncError('AUTH_FAILED', redactor.redact(outcome.message)));
      return;
    }
    settle?.resolve({ code: outcome.code, respond: (status, text) => reply(res, status, text) });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new ErpsyncError('USAGE', `cannot listen on 127.0.0.1:${redirectUri.port} for the login callback (${error.code ?? error.message})`, {
          details: ['close what uses that port, or register another redirect URI and pass it with --redirect-uri'],
        }),
      ),
    );
    server.listen(Number(redirectUri.port), '127.0.0.1', () => resolve());
  });
  const timer = setTimeout(() => fail(new ErpsyncError('AUTH_FAILED', `no authorization arrived within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
  const onAbort = (): void => fail(new ErpsyncError('INTERRUPTED', 'login interrupted'));
  signal.addEventListener('abort', onAbort, { once: true });
  // Nobody may be awaiting yet when a failure arrives; the rejection is observed through `received`.
  received.catch(() => undefined);
  return {
    received,
    close: async () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Pure reading of the callback's query. */
export function readCallback(params: URLSearchParams, expectedState: string): { type: 'code'; code: string } | { type: 'error'; message: string } {
  const error = params.get('error');
  if (error) {
    const description = params.get('error_description');
    return { type: 'error', message: `the authorization was refused: ${error}${description ? ` (${description})` : ''}` };
  }
  const state = params.get('state') ?? '';
  if (!sameSecret(state, expectedState)) {
    return { type: 'error', message: 'the callback carried the wrong state; the login was not started by this command (possible CSRF), nothing stored' };
  }
  const code = params.get('code');
  if (!code) return { type: 'error', message: 'the callback carried no authorization code' };
  return { type: 'code', code };
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function reply(res: ServerResponse, status: number, text: string): void {
  const body = `<!doctype html><meta charset="utf-8"><title>erpsync login</title><p>${text}</p>\n`;
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', connection: 'close' });
  res.end(body);
}

function parseRedirectUri(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ErpsyncError('USAGE', `the redirect URI '${raw}' is not a valid URL`);
  }
  if (url.protocol !== 'http:' || !isLoopbackHost(url.hostname) || url.port === '') {
    throw new ErpsyncError('USAGE', `the redirect URI must be http://127.0.0.1:PORT/… on this machine (got ${raw})`, {
      details: ['register such a redirect URI on the app in Bling and pass it with --redirect-uri'],
    });
  }
  return url;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
