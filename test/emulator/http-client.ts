// Test support: one HTTP call against a running emulator, returning status, headers and the
// parsed body. Uses Node's built-in fetch over loopback; nothing here fakes the API.
import type { Emulator } from '../../src/emulator/index.js';

export interface CallOptions {
  body?: unknown;
  /** Raw body text sent as-is (for malformed JSON and form bodies). */
  rawBody?: string;
  /** Bearer token; default the emulator's own; null sends no Authorization header. */
  token?: string | null;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body, or undefined when the body is empty or not JSON. */
  json: unknown;
}

export async function call(emulator: Emulator, method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? emulator.token : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${emulator.baseUrl}${path}`, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  let json: unknown;
  if ((response.headers.get('content-type') ?? '').includes('json') && text !== '') json = JSON.parse(text);
  return { status: response.status, headers: response.headers, text, json };
}

/** `data` of a JSON body, typed loosely for assertions. */
export function dataOf<T = Record<string, unknown>>(result: CallResult): T {
  return (result.json as { data: T }).data;
}
