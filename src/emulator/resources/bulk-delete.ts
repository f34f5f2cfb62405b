// Bulk deletes (`DELETE /resource?ids[]=…`, rule bulk-delete-alerts): each id is tried in the order given; what can go
// goes, and every refusal becomes an alert. 204 when all went, else 200 `{data:{alertas:[…]}}`.
import type { ErrorPayload } from '../api-error.js';
import { ApiFailure, errorEnvelope, validationFailure } from '../api-error.js';
import { readIntegerArrayParam } from '../listing.js';
import type { RouteResult } from '../router.js';
import { noContent, ok } from '../router.js';

export function deleteInBulk(query: URLSearchParams, param: string, deleteOne: (id: number) => void): RouteResult {
  const ids = readIntegerArrayParam(query, param);
  if (ids.length === 0) {
    throw validationFailure([{ kind: 'missing', element: `${param}[]`, msg: `O parâmetro ${param}[] é obrigatório` }]);
  }
  const alertas: { error: ErrorPayload }[] = [];
  for (const id of ids) {
    try {
      deleteOne(id);
    } catch (error) {
      if (!(error instanceof ApiFailure)) throw error;
      alertas.push(errorEnvelope({ ...error.payload, description: `${id}: ${error.payload.description}` }));
    }
  }
  return alertas.length === 0 ? noContent() : ok({ data: { alertas } });
}
