// Product categories (/categorias/produtos): the manifest record and its schema. A tree:
// identity is the path of `descricao` from the root, the parent is named by `categoriaPai`.
// The API cannot move a category to another parent on update (its PUT has no parent), which
// the planner has to handle; this file only describes the manifest. No other kind's quirks.
import type { KindDefinition } from './kind.js';
import type { FieldTable, FieldTableEntry, ToolKeys } from './shared-schema.js';
import { defineListRecord, defineName, defineParentReference, toolKeyFields } from './shared-schema.js';

export interface CategoriaProdutoManifest extends ToolKeys {
  descricao: string;
  categoriaPai?: string;
}

const fields = {
  descricao: defineName('Name of the product category; with the parent path it identifies the record. Required.'),
  categoriaPai: defineParentReference(
    'Parent product category. The API sets the parent only on creation: moving a category means recreating it.',
  ),
  ...toolKeyFields,
} as const satisfies FieldTable<CategoriaProdutoManifest>;

export const categoriaProdutoFieldTables: readonly FieldTableEntry[] = [{ path: [], fields }];

export const categoriasProdutos: KindDefinition = {
  key: 'categoriasProdutos',
  title: 'product categories',
  resource: '/categorias/produtos',
  shape: 'list',
  recordSchema: defineListRecord(fields, {
    title: 'Product category',
    description: 'A product category (categoria de produto), identified by its descricao path from the root.',
    identity: ['descricao'],
    requiredUnlessAbsent: [],
  }),
  enums: [],
  secretFields: [],
  nameField: 'descricao',
  references: [{ path: ['categoriaPai'], target: 'categoriasProdutos', parent: true }],
};
