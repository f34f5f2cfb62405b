// The modules that have custom fields (/campos-customizados/modulos), read-only: `Produtos`,
// `Clientes e Fornecedores`, `Pedidos de Venda` … named by `nome` (a custom field's `modulo`).
// The raw record keeps `modulo` (`Produtos`, `Contatos`), which says what the module's fields
// group by. One unpaginated list. Read only when a manifest names one; see defineReadOnlyKind.
import { defineReadOnlyKind } from './kind.js';
import { readNamedList } from './live-helpers.js';

export const modulosCamposCustomizados = defineReadOnlyKind({
  kind: 'modulosCamposCustomizados',
  title: 'custom field modules',
  resource: '/campos-customizados/modulos',
  paged: false,
  readLive: (client) => readNamedList(client, '/campos-customizados/modulos', 'modulosCamposCustomizados', 'nome', false),
});
