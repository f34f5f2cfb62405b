// The list of kinds, in dependency order (the order plans create in and delete against). Adding a
// kind is one file beside this one plus one line here; nothing else switches on the kind key.
import { categoriasProdutos, categoriasProdutosAdapter } from './categorias-produtos.js';
import { categoriasReceitasDespesas, categoriasReceitasDespesasAdapter } from './categorias-receitas-despesas.js';
import type { KindAdapter } from './adapter.js';
import { configuracoesNfse, configuracoesNfseAdapter } from './configuracoes-nfse.js';
import { formasPagamentos, formasPagamentosAdapter } from './formas-pagamentos.js';
import { gruposProdutos, gruposProdutosAdapter } from './grupos-produtos.js';
import type { KindDefinition, KindKey } from './kind.js';
import { logisticas, logisticasAdapter, logisticasServicosAdapter } from './logisticas.js';
import { situacoes, situacoesAdapter } from './situacoes.js';

// Declaration order is dependency order (Object.values keeps it). No kind references another kind
// today (every reference stays within its own kind), so the order is the reading order of a
// store's setup: money first, then catalogue, sales, shipping and invoices. The Record type makes
// a missing kind a compile error.
const definitionsByKey: Readonly<Record<KindKey, KindDefinition>> = {
  formasPagamentos,
  categoriasReceitasDespesas,
  categoriasProdutos,
  gruposProdutos,
  situacoes,
  logisticas,
  configuracoesNfse,
};

export const kindDefinitions: readonly KindDefinition[] = Object.values(definitionsByKey);

export function getKindDefinition(key: KindKey): KindDefinition {
  return definitionsByKey[key];
}

/** The runtime adapters in dependency order: a unit kind comes after every kind it refers to. */
export const kindAdapters: readonly KindAdapter[] = [
  formasPagamentosAdapter,
  categoriasReceitasDespesasAdapter,
  categoriasProdutosAdapter,
  gruposProdutosAdapter,
  situacoesAdapter,
  logisticasAdapter,
  logisticasServicosAdapter,
  configuracoesNfseAdapter,
];
