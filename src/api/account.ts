// Reads the account's own identity (GET /empresas/me/dados-basicos) once per command: the first
// line of every run names it, a saved plan records it, the apply lock keys on its id. Only the
// identifying fields are kept; the e-mail and contract date are not shown anywhere.
import type { AccountIdentity } from '../model/account.js';
import { ErpsyncError } from '../model/errors.js';
import { isPlainRecord } from '../model/paths.js';
import type { ApiClient } from './client.js';

export const ACCOUNT_PATH = '/empresas/me/dados-basicos';

export async function readAccountIdentity(client: ApiClient): Promise<AccountIdentity> {
  const { data } = await client.request<unknown>({ method: 'GET', path: ACCOUNT_PATH });
  if (!isPlainRecord(data) || typeof data.id !== 'string' || data.id === '') {
    throw new ErpsyncError('API_ERROR', `the service answered ${ACCOUNT_PATH} without the company's id; erpsync does not change an account it cannot name`);
  }
  return { id: data.id, nome: typeof data.nome === 'string' ? data.nome : '', cnpj: typeof data.cnpj === 'string' ? data.cnpj : '' };
}
