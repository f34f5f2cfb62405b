// The system's modules that have situations (/situacoes/modulos), read-only: `Vendas`,
// `Compras`, `Ordens de serviço` … named by `nome` (a situation's or transition's `modulo`).
// The raw record keeps `criarSituacoes`, whether the module takes custom situations. One
// unpaginated list, read once per run and resolved to ids at write time; see defineReadOnlyKind.
import { defineReadOnlyKind } from './kind.js';
import { readNamedList } from './live-helpers.js';

export const modulosSituacoes = defineReadOnlyKind({
  kind: 'modulosSituacoes',
  title: 'situation modules',
  resource: '/situacoes/modulos',
  // The module every account has (reference/api-facts §2.5, a real dump: `Vendas`, "Pedidos de Venda").
  accountRecords: ['Vendas'],
  paged: false,
  readLive: (client) => readNamedList(client, '/situacoes/modulos', 'modulosSituacoes', 'nome', false),
});
