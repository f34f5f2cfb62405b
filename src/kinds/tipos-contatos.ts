// Contact types (/contatos/tipos), read-only: `Cliente`, `Fornecedor` … named by `descricao`
// where a manifest takes one (the grouping of custom fields of the contacts module). One
// unpaginated list. Read only when a manifest names one; see defineReadOnlyKind.
import { defineReadOnlyKind } from './kind.js';
import { readNamedList } from './live-helpers.js';

export const tiposContatos = defineReadOnlyKind({
  kind: 'tiposContatos',
  title: 'contact types',
  resource: '/contatos/tipos',
  paged: false,
  readLive: (client) => readNamedList(client, '/contatos/tipos', 'tiposContatos', 'descricao', false),
});
