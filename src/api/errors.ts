// Typed failures of API calls and the pure parsing of error bodies. Classification is by HTTP
// status: the service's `error.type` often disagrees with its status (401 says `invalid_token`,
// 403 says `insufficient_scope`), so `type` is kept for display only. Bodies may be the JSON
// envelope, an OAuth-style error, or HTML from the CDN in front of the service.
import { ErpsyncError } from '../model/errors.js';
import { isPlainRecord } from '../model/paths.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What kind of refusal a status means, for callers that decide on it (apply, live reads). */
export type ApiErrorCategory =
  | 'validation' // 400, 422
  | 'auth' // 401
  | 'forbidden' // 403
  | 'not-found' // 404, 410
  | 'conflict' // 409
  | 'rate-limited' // 429
  | 'client' // any other 4xx
  | 'server' // 5xx
  | 'redirect' // 3xx: never followed with credentials
  | 'invalid-response'; // 2xx whose body is not what the API promises

export interface ApiFieldError {
  element?: string;
  message: string;
  code?: number;
  namespace?: string;
}

/** The parts of an error body worth keeping, whatever shape it came in. */
export interface ParsedErrorBody {
  type?: string;
  message?: string;
  description?: string;
  fields: ApiFieldError[];
  /** 429 only: `second` or `day` (the daily quota cannot be waited out within a run). */
  period?: string;
  /** The body was not JSON (an HTML page from the CDN, an empty body…). */
  nonJson: boolean;
}

export interface ApiErrorInit {
  status: number;
  method: HttpMethod;
  path: string;
  body: ParsedErrorBody;
  /** Attempts made before giving up (retried statuses only). */
  attempts?: number;
  /** The resource kind the request was for, when the caller named one. */
  kind?: string;
}

export class ApiError extends ErpsyncError {
  readonly status: number;
  readonly method: HttpMethod;
  /** Path relative to the base URL, query included; never carries credentials. */
  readonly path: string;
  readonly category: ApiErrorCategory;
  readonly type: string | undefined;
  readonly apiMessage: string | undefined;
  readonly description: string | undefined;
  readonly fields: readonly ApiFieldError[];
  /** Attempts sent before this answer: more than one means an earlier one may have taken effect. */
  readonly attempts: number;

  constructor(init: ApiErrorInit) {
    const category = categorizeStatus(init.status);
    // A 403 is a token without the scope of the resource (real-observations #4): its own code, and
    // a message that names what to grant.
    const scope = category === 'forbidden';
    super(scope ? 'AUTH_SCOPE' : 'API_ERROR', scope ? formatScopeMessage(init) : formatApiErrorMessage(init, category), {
      details: scope ? [...formatFieldDetails(init.body.fields), ...scopeHint] : formatFieldDetails(init.body.fields),
    });
    this.name = 'ApiError';
    this.status = init.status;
    this.method = init.method;
    this.path = init.path;
    this.category = category;
    this.type = init.body.type;
    this.apiMessage = init.body.message;
    this.description = init.body.description;
    this.fields = init.body.fields;
    this.attempts = init.attempts ?? 1;
  }
}

/**
 * A write (POST) whose effect on the server is unknown: the connection broke, a timeout hit, or a
 * 5xx came back after the body was sent. It is never retried here: the engine looks the record up
 * by its natural key before deciding to send it again.
 */
export class ApiOutcomeUnknownError extends ErpsyncError {
  readonly method: HttpMethod;
  readonly path: string;
  /** The HTTP status when a 5xx answered, undefined when the connection failed. */
  readonly status: number | undefined;

  constructor(init: { method: HttpMethod; path: string; reason: string; status?: number; cause?: unknown }) {
    super('API_OUTCOME_UNKNOWN', `${init.method} ${init.path}: outcome unknown (${init.reason}); the change may or may not have been made`, {
      cause: init.cause,
    });
    this.name = 'ApiOutcomeUnknownError';
    this.method = init.method;
    this.path = init.path;
    this.status = init.status;
  }
}

export function categorizeStatus(status: number): ApiErrorCategory {
  if (status >= 500) return 'server';
  if (status >= 300 && status < 400) return 'redirect';
  if (status < 300) return 'invalid-response';
  switch (status) {
    case 400:
    case 422:
      return 'validation';
    case 401:
      return 'auth';
    case 403:
      return 'forbidden';
    case 404:
    case 410:
      return 'not-found';
    case 409:
      return 'conflict';
    case 429:
      return 'rate-limited';
    default:
      return 'client';
  }
}

const categoryText: Record<ApiErrorCategory, string> = {
  validation: 'rejected as invalid',
  auth: 'not authenticated (the access token is invalid or expired)',
  forbidden: 'forbidden (the token lacks the scope for this resource)',
  'not-found': 'not found',
  conflict: 'conflict',
  'rate-limited': 'rate limited',
  client: 'refused',
  server: 'server error',
  redirect: 'unexpected redirect (not followed)',
  'invalid-response': 'unexpected response',
};

function formatApiErrorMessage(init: ApiErrorInit, category: ApiErrorCategory): string {
  const head = `${init.method} ${init.path}: ${init.status} ${categoryText[category]}`;
  const said = init.body.message ?? (init.body.nonJson ? 'non-JSON response body' : undefined);
  const tries = init.attempts !== undefined && init.attempts > 1 ? ` after ${init.attempts} attempts` : '';
  return `${head}${tries}${said ? ` — ${oneLine(said)}` : ''}`;
}

const scopeHint = ["grant the app this resource's scope in Bling, then authorize again (`erpsync login`); `erpsync doctor` checks every kind's scope"];

/** The resource a path names: its first segment (`/categorias/…` by its first two). */
export function resourceOfPath(path: string): string {
  const [first = '', second = ''] = path.split('?')[0]?.split('/').filter((s) => s !== '') ?? [];
  return first === 'categorias' && second !== '' && !/^\d+$/.test(second) ? `/${first}/${second}` : `/${first}`;
}

function formatScopeMessage(init: ApiErrorInit): string {
  const what = init.kind ? `${init.kind} (${resourceOfPath(init.path)})` : resourceOfPath(init.path);
  return `${init.method} ${init.path}: 403 the access token lacks the scope for ${what}${init.body.type ? ` — ${init.body.type}` : ''}`;
}

function formatFieldDetails(fields: readonly ApiFieldError[]): string[] {
  return fields.map((f) => {
    const where = f.element ? `${f.namespace ? `${f.namespace}.` : ''}${f.element}: ` : '';
    return `${where}${oneLine(f.message)}${f.code !== undefined ? ` (code ${f.code})` : ''}`;
  });
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Reads any error body into the same shape; never throws. */
export function parseErrorBody(text: string, contentType: string | undefined): ParsedErrorBody {
  const looksJson = /\bjson\b/i.test(contentType ?? '') || /^\s*[{[]/.test(text);
  if (!looksJson) return { fields: [], nonJson: true, ...describeNonJson(text) };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { fields: [], nonJson: true, ...describeNonJson(text) };
  }
  if (!isPlainRecord(parsed)) return { fields: [], nonJson: false };
  const error = parsed.error;
  if (isPlainRecord(error)) {
    return {
      type: asString(error.type),
      message: asString(error.message),
      description: asString(error.description),
      fields: parseFields(error.fields),
      period: asString(error.period),
      nonJson: false,
    };
  }
  // OAuth style: {"error":"invalid_grant","error_description":"…"}
  return {
    type: asString(error),
    message: asString(parsed.error_description) ?? asString(parsed.message),
    fields: [],
    nonJson: false,
  };
}

function describeNonJson(text: string): { message?: string } {
  const title = /<title[^>]*>([^<]{1,200})<\/title>/i.exec(text)?.[1];
  if (title) return { message: oneLine(title) };
  return {};
}

function parseFields(raw: unknown): ApiFieldError[] {
  if (!Array.isArray(raw)) return [];
  const out: ApiFieldError[] = [];
  for (const item of raw) {
    if (!isPlainRecord(item)) continue;
    const message = asString(item.msg) ?? asString(item.message);
    if (message === undefined) continue;
    out.push({
      message,
      element: asString(item.element),
      namespace: asString(item.namespace),
      code: typeof item.code === 'number' ? item.code : undefined,
    });
    for (const entry of Array.isArray(item.collection) ? item.collection : []) {
      if (!isPlainRecord(entry)) continue;
      const msg = asString(entry.msg);
      if (msg === undefined) continue;
      const index = typeof entry.index === 'number' ? `[${entry.index}]` : '';
      out.push({
        message: msg,
        element: `${asString(item.element) ?? ''}${index}${asString(entry.element) ? `.${asString(entry.element)}` : ''}`,
        code: typeof entry.code === 'number' ? entry.code : undefined,
      });
    }
  }
  return out;
}


function asString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
