// Product categories (/categorias/produtos): the manifest record, its schema, and the adapter
// that reads and writes them. A tree: identity is the path of `descricao` from the root, the
// parent is named by `categoriaPai` (the API's `categoriaPai.id`). The list already holds every
// field, so no detail is ever read. The API cannot move a category to another parent on update
// (its PUT body has only descricao): the adapter declares categoriaPai immutable and the planner
// decides between blocking and replacing. There is no status to retire by. No other kind's quirks.
import type { ApiClient } from '../api/client.js';
import { ErpsyncError } from '../model/errors.js';
import { compact, deleteOperation, executeByAction, postRecord, readName, readReferenceId, readTreeItems, requireId, requireLiveId, treeRecord } from './live-helpers.js';
import type { FieldTable, FieldTableEntry, ToolKeys } from './shared-schema.js';
import { defineListRecord, defineName, defineParentReference, toolKeyFields, erpsyncNameLimit } from './shared-schema.js';
import type { Change } from '../model/plan.js';
import type { LiveRecord } from '../model/live.js';
import { defineKind } from './kind.js';
import type { WriteContext, LengthLimit } from './kind.js';

export interface CategoriaProdutoManifest extends ToolKeys {
  descricao: string;
  categoriaPai?: string;
}

/** The longest descricao the kind takes (docs/manifest.md, "Name lengths"). */
export const categoriasProdutosLengthLimits = { descricao: erpsyncNameLimit } as const satisfies Readonly<Record<string, LengthLimit>>;

const fields = {
  descricao: defineName('Name of the product category; with the parent path it identifies the record. Required.', categoriasProdutosLengthLimits.descricao),
  categoriaPai: defineParentReference(
    'Parent product category. The API sets the parent only on creation: moving a category means recreating it.',
  ),
  ...toolKeyFields,
} as const satisfies FieldTable<CategoriaProdutoManifest>;

export const categoriaProdutoFieldTables: readonly FieldTableEntry[] = [{ path: [], fields }];


const resource = '/categorias/produtos';
const kind = 'categoriasProdutos';

async function readProductCategories(client: ApiClient): Promise<LiveRecord[]> {
  const items = await readTreeItems(client, resource, kind, (raw) => ({ name: readName(raw.descricao), parentId: readReferenceId(raw.categoriaPai) }));
  return items.map((item) => treeRecord(kind, item, { descricao: item.name, categoriaPai: item.parent }, { detailLoaded: true }));
}

async function createProductCategory(change: Change, context: WriteContext): Promise<{ id: number }> {
  const desired = change.desired ?? {};
  const parent = typeof desired.categoriaPai === 'string' ? { id: requireId(context, kind, desired.categoriaPai) } : undefined;
  const body = compact({ descricao: desired.descricao, categoriaPai: parent });
  return postRecord(context.client, resource, kind, body);
}

async function updateProductCategory(change: Change, context: WriteContext): Promise<void> {
  const id = requireLiveId(change);
  if (!context.live) throw new ErpsyncError('INTERNAL', `${change.id}: an update needs the live record to merge onto`);
  // The update body has no parent (the planner never sends a move here); the rest is the full record.
  const { id: _id, categoriaPai: _parent, ...raw } = context.live.raw;
  const body = { ...raw, descricao: change.desired?.descricao ?? context.live.fields.descricao };
  await context.client.request({ method: 'PUT', path: `${resource}/${id}`, body, kind });
}

export const categoriasProdutos = defineKind({
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
  lengthLimits: categoriasProdutosLengthLimits,
  references: [{ path: ['categoriaPai'], target: 'categoriasProdutos', parent: true }],
  readLive: readProductCategories,
  immutableFields: ['categoriaPai'],
  retire: 'none',
  canDelete: true,
  execute: executeByAction('product categories', { create: createProductCategory, update: updateProductCategory, delete: deleteOperation(resource, kind) }),
});
