// Sales channels (/canais-venda), read-only: the stores the account sells through (a Shopee
// shop, an online store), named by `descricao` where a manifest takes one (store category
// links' `loja`). Read only when a manifest names one; see defineReadOnlyKind.
import { defineReadOnlyKind } from './kind.js';
import { readNamedList } from './live-helpers.js';

export const canaisVenda = defineReadOnlyKind({
  kind: 'canaisVenda',
  title: 'sales channels',
  resource: '/canais-venda',
  readLive: (client) => readNamedList(client, '/canais-venda', 'canaisVenda', 'descricao'),
});
