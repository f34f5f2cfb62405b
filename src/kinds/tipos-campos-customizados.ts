// Custom field types (/campos-customizados/tipos), read-only: `Inteiro`, `Texto`, `Lista` …
// named by `nome` (a custom field's `tipoCampo`). One unpaginated list. Read only when a
// manifest names one; see defineReadOnlyKind.
import { defineReadOnlyKind } from './kind.js';
import { readNamedList } from './live-helpers.js';

export const tiposCamposCustomizados = defineReadOnlyKind({
  kind: 'tiposCamposCustomizados',
  title: 'custom field types',
  resource: '/campos-customizados/tipos',
  paged: false,
  readLive: (client) => readNamedList(client, '/campos-customizados/tipos', 'tiposCamposCustomizados', 'nome', false),
});
