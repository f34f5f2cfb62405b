// The npm client `bling-erp-api` 5.8 (its own axios transport), as the SDK test and the bench's peer
// script use it. Two of its defects are worked around here, once: its `replace()` (and custom
// fields' `update()`) send PATCH where the API has PUT, so record updates go as PUT (status changes
// under `…/situacoes` stay PATCH); and what it lacks or gets wrong (writes of income/expense
// categories, PATCH …/padrao, the NFS-e settings PUT whose path it ends in `/`, parameters it drops)
// goes through `send`, the SDK's own axios instance, so every request still carries its auth.
import blingModule from 'bling-erp-api';
import repositoryModule from 'bling-erp-api/lib/repositories/bling.repository.js';

interface RequestOptions {
  endpoint: string;
  id: string;
  body?: unknown;
  params?: unknown;
  headers?: unknown;
}
interface AxiosLike {
  put(url: string, body: unknown, config: unknown): Promise<{ data: unknown }>;
  patch(url: string, body: unknown, config: unknown): Promise<{ data: unknown }>;
  request(config: { method: string; url: string; data?: unknown; params?: unknown }): Promise<{ data: unknown }>;
}
type Repository = { api: AxiosLike; defaultCatchBehavior(error: unknown, endpoint: string): never };

let patched = false;

/** The workaround: record updates go as PUT (status changes under `…/situacoes` stay PATCH). */
function sendUpdatesAsPut(): void {
  if (patched) return;
  patched = true;
  const proto = (repositoryModule as unknown as { BlingRepository: { prototype: Record<string, unknown> } }).BlingRepository.prototype;
  const send = async function (this: Repository, options: RequestOptions) {
    const endpoint = `${options.endpoint}/${options.id}`;
    const verb = options.id.endsWith('/situacoes') ? 'patch' : 'put';
    return this.api[verb](endpoint, options.body, { params: options.params, headers: options.headers })
      .then((response) => response.data)
      .catch((error: unknown) => this.defaultCatchBehavior(error, endpoint));
  };
  proto.replace = send;
  proto.update = send;
}

// The package is CommonJS with `exports.default`: depending on the loader's interop the class is
// the default import or its `default` member.
type BlingClass = typeof blingModule.default;
const Bling: BlingClass = (blingModule as unknown as { default?: BlingClass }).default ?? (blingModule as unknown as BlingClass);
export type BlingSdk = InstanceType<BlingClass>;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** One request through the SDK's transport; resolves with the response body, rejects like the SDK. */
export type SendRequest = (method: HttpMethod, path: string, body?: unknown, params?: Record<string, unknown>) => Promise<unknown>;

export interface OpenedSdk {
  sdk: BlingSdk;
  send: SendRequest;
}

/** The SDK pointed at `baseUrl` (the emulator), with the workaround in place. */
export function openBlingSdk(token: string, baseUrl: string): OpenedSdk {
  sendUpdatesAsPut();
  const sdk = new Bling(token, baseUrl);
  // Every entity holds the one repository the SDK built; its axios instance adds the token.
  const repository = (sdk.empresas as unknown as { repository: Repository }).repository;
  const send: SendRequest = (method, path, body, params) =>
    repository.api
      .request({ method, url: path, data: body, params })
      .then((response) => response.data)
      .catch((error: unknown) => repository.defaultCatchBehavior(error, path));
  return { sdk, send };
}
