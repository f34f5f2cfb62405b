// Contacts (/contatos), read-only: named by `nome` where a manifest takes one — the carrier
// (`transportador`) of a logistics service. erpsync never writes contacts. The whole list is
// read (every page), and only when a manifest names a contact by name: an id needs no list.
// Two contacts may share a name; naming one of those is an ambiguity the plan reports (an id
// still works). See defineReadOnlyKind.
import { defineReadOnlyKind } from './kind.js';
import { readNamedList } from './live-helpers.js';

export const contatos = defineReadOnlyKind({
  kind: 'contatos',
  title: 'contacts',
  resource: '/contatos',
  readLive: (client) => readNamedList(client, '/contatos', 'contatos', 'nome'),
});
