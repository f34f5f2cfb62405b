// Operation natures (/naturezas-operacoes), read-only: the account's own list, named by
// `descricao` where a manifest takes one (NFS-e settings' basicas.naturezaOperacao). Read only
// when a manifest names one, and then only the named ones when looking them up by `descricao=`
// is cheaper than listing (readListOrSearch); see defineReadOnlyKind.
import { defineReadOnlyKind } from './kind.js';
import { namedRecordOf, readListOrSearch, soughtKeys } from './live-helpers.js';

const resource = '/naturezas-operacoes';
const kind = 'naturezasOperacoes';

export const naturezasOperacoes = defineReadOnlyKind({
  kind,
  title: 'operation natures',
  resource,
  readLive: async (client, scope) =>
    (await readListOrSearch(client, { resource, kind, nameFilter: 'descricao', nameField: 'descricao' }, soughtKeys(scope), scope.all)).map(namedRecordOf(kind, 'descricao')),
});
