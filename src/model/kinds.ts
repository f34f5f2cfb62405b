// The vocabulary of kinds: every manifest kind key and every unit kind (a manifest kind, or a
// record nested in one) from these two tuples. The registry in src/kinds implements exactly
// these (a missing or extra kind is a compile error there); nothing else lists kinds.

/** Manifest kind keys, in dependency order: a kind comes after every kind it refers to. */
export const kindKeys = [
  'formasPagamentos',
  'categoriasReceitasDespesas',
  'categoriasProdutos',
  'gruposProdutos',
  'situacoes',
  'logisticas',
  'configuracoesNfse',
] as const;

/** Units declared inside another kind's records (a logistics' `servicos`), never at the top level. */
export const nestedUnitKinds = ['logisticasServicos'] as const;

export type KindKey = (typeof kindKeys)[number];
export type NestedUnitKind = (typeof nestedUnitKinds)[number];
/** What a plan works on: a manifest kind, or a record nested in one. */
export type UnitKind = KindKey | NestedUnitKind;
