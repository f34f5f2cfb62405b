// One read of the account sends each GET once: several kinds need the same list (situation
// modules serve situations, transitions and actions), and every request is a share of the
// account's 3 req/s. Only GETs are remembered, for the life of the returned client, which a
// caller scopes to one read of the account; writes pass through and never see a remembered answer.
import type { ApiClient, ApiRequest, ApiResponse } from './client.js';
import { buildQueryString } from './url.js';
import type { Query } from './url.js';

/** The client, with each distinct GET (path and query) and each list walk sent at most once. */
export function memoizeReads(client: ApiClient): ApiClient {
  const answers = new Map<string, Promise<unknown>>();
  const remember = <T>(key: string, send: () => Promise<T>): Promise<T> => {
    const known = answers.get(key);
    if (known) return known as Promise<T>;
    const pending = send();
    answers.set(key, pending);
    // A failed read is not remembered: the run stops on it anyway, and a retry must really send.
    pending.catch(() => answers.delete(key));
    return pending;
  };
  const keyOf = (path: string, query: Query | undefined) => `${path}?${buildQueryString(query)}`;
  return {
    ...client,
    request<T>(req: ApiRequest): Promise<ApiResponse<T>> {
      if (req.method !== 'GET') return client.request<T>(req);
      return remember(`request ${keyOf(req.path, req.query)}`, () => client.request<T>(req));
    },
    listAll<T>(path: string, query?: Query, options?: { kind?: string; limit?: number }): Promise<T[]> {
      return remember(`list ${options?.limit ?? ''} ${keyOf(path, query)}`, () => client.listAll<T>(path, query, options));
    },
  };
}
