// Product groups (/grupos-produtos): the manifest record and its schema. A tree: identity is
// the path of `nome` from the root, the parent is named by `grupoProdutoPai` (the API's
// `grupoProdutoPai.id`, written here as a name). No API calls here yet; no other kind's quirks.
import type { KindDefinition } from './kind.js';
import type { FieldTable, FieldTableEntry, ToolKeys } from './shared-schema.js';
import { defineListRecord, defineName, defineParentReference, toolKeyFields } from './shared-schema.js';

export interface GrupoProdutoManifest extends ToolKeys {
  nome: string;
  grupoProdutoPai?: string;
}

const fields = {
  nome: defineName('Name of the product group; with the parent path it identifies the record. Required.'),
  grupoProdutoPai: defineParentReference('Parent product group (the API field grupoProdutoPai, named instead of given by id).'),
  ...toolKeyFields,
} as const satisfies FieldTable<GrupoProdutoManifest>;

export const grupoProdutoFieldTables: readonly FieldTableEntry[] = [{ path: [], fields }];

export const gruposProdutos: KindDefinition = {
  key: 'gruposProdutos',
  title: 'product groups',
  resource: '/grupos-produtos',
  shape: 'list',
  recordSchema: defineListRecord(fields, {
    title: 'Product group',
    description: 'A product group (grupo de produtos), identified by its nome path from the root.',
    identity: ['nome'],
    requiredUnlessAbsent: [],
  }),
  enums: [],
  secretFields: [],
  nameField: 'nome',
  references: [{ path: ['grupoProdutoPai'], target: 'gruposProdutos', parent: true }],
};
