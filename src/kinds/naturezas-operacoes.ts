// Operation natures (/naturezas-operacoes), read-only: the account's own list, named by
// `descricao` where a manifest takes one (NFS-e settings' basicas.naturezaOperacao). Read only
// when a manifest names one; see defineReadOnlyKind.
import { defineReadOnlyKind } from './kind.js';
import { readNamedList } from './live-helpers.js';

export const naturezasOperacoes = defineReadOnlyKind({
  kind: 'naturezasOperacoes',
  title: 'operation natures',
  resource: '/naturezas-operacoes',
  readLive: (client) => readNamedList(client, '/naturezas-operacoes', 'naturezasOperacoes', 'descricao'),
});
