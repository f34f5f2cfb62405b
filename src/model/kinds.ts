// The vocabulary of kinds: every manifest kind key and every unit kind (a manifest kind, a
// record nested in one, or a read-only record of the account that manifests name) from these
// three tuples. The registry in src/kinds implements exactly
// these (a missing or extra kind is a compile error there); nothing else lists kinds.

/** Manifest kind keys, in dependency order: a kind comes after every kind it refers to. */
export const kindKeys = [
  'formasPagamentos',
  'categoriasReceitasDespesas',
  'categoriasProdutos',
  'gruposProdutos',
  'situacoes',
  'transicoes',
  'logisticas',
  'configuracoesNfse',
  'depositos',
  'categoriasLojas',
  'camposCustomizados',
] as const;

/** Units declared inside another kind's records (a logistics' `servicos`), never at the top level. */
export const nestedUnitKinds = ['logisticasServicos'] as const;

/**
 * Records of the account that manifests refer to by name but erpsync never writes (operation
 * natures, sales channels …): read only when a manifest names one, never planned or exported.
 */
export const readOnlyUnitKinds = ['naturezasOperacoes', 'canaisVenda', 'tiposContatos', 'tiposCamposCustomizados', 'modulosCamposCustomizados', 'modulosSituacoes', 'acoesSituacoes', 'contatos'] as const;

export type KindKey = (typeof kindKeys)[number];
export type NestedUnitKind = (typeof nestedUnitKinds)[number];
export type ReadOnlyUnitKind = (typeof readOnlyUnitKinds)[number];
/** What a plan works on: a manifest kind, a record nested in one, or a read-only record it names. */
export type UnitKind = KindKey | NestedUnitKind | ReadOnlyUnitKind;
/** What a reference may name: a record of a manifest kind, or a read-only record of the account. */
export type ReferenceTarget = KindKey | ReadOnlyUnitKind;

/** Whether a reference names a read-only record of the account (resolved at plan time only). */
export function isReadOnlyKind(kind: UnitKind): kind is ReadOnlyUnitKind {
  return (readOnlyUnitKinds as readonly string[]).includes(kind);
}
