// Route table of the emulated API: `METHOD /path/{idParam}` templates, matched against a request
// path relative to the base URL. Path parameters are integers like the real ones; anything else
// does not match, so `/formas-pagamentos/abc` is an unknown route (404), as on the real service.
import type { Journal } from './journal.js';
import type { ReadingId } from './readings.js';
import type { EmulatorMode } from './rules.js';
import type { EmulatorState } from './state.js';

export interface RouteContext {
  state: EmulatorState;
  /** Every change to `state` goes through it, so a failed request can be undone. */
  tx: Journal;
  mode: EmulatorMode;
  /** The named readings this emulator applies (readings.ts). */
  readings: ReadonlySet<ReadingId>;
  params: Record<string, number>;
  query: URLSearchParams;
  /** Parsed JSON body; undefined when the request had none. */
  body: unknown;
  now: number;
}

export interface RouteResult {
  status: number;
  /** JSON body; undefined sends an empty body. */
  body?: unknown;
}

export interface Route {
  method: string;
  template: string;
  handle(ctx: RouteContext): RouteResult;
}

export interface CompiledRoute extends Route {
  regex: RegExp;
  paramNames: string[];
}

export interface RouteMatch {
  route: CompiledRoute;
  params: Record<string, number>;
}

export function compileRoutes(routes: readonly Route[]): CompiledRoute[] {
  return routes.map((route) => {
    const paramNames: string[] = [];
    const source = route.template
      .split('/')
      .map((segment) => {
        const param = /^\{(\w+)\}$/.exec(segment);
        if (!param?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        paramNames.push(param[1]);
        return '(\\d{1,16})';
      })
      .join('/');
    return { ...route, regex: new RegExp(`^${source}$`), paramNames };
  });
}

/** First route whose method and template match; literal segments win because they are listed first. */
export function matchRoute(routes: readonly CompiledRoute[], method: string, path: string): RouteMatch | undefined {
  for (const route of routes) {
    if (route.method !== method) continue;
    const m = route.regex.exec(path);
    if (!m) continue;
    const params: Record<string, number> = {};
    let safe = true;
    route.paramNames.forEach((name, index) => {
      const value = Number(m[index + 1]);
      if (!Number.isSafeInteger(value)) safe = false;
      params[name] = value;
    });
    if (safe) return { route, params };
  }
  return undefined;
}

/** Whether some route serves `path` with another method (for 405 versus 404). */
export function servesPath(routes: readonly CompiledRoute[], path: string): boolean {
  return routes.some((route) => route.regex.test(path));
}

export function ok(body: unknown, status = 200): RouteResult {
  return { status, body };
}

export function noContent(): RouteResult {
  return { status: 204 };
}
