// Product groups (/grupos-produtos): the manifest record, its schema, and the adapter that reads
// and writes them. A tree: identity is the path of `nome` from the root, the parent is named by
// `grupoProdutoPai` (the API's `grupoProdutoPai.id`, written here as a name; the `nome` the API
// echoes inside it is read-only). The list already holds every field, so no detail is ever read.
// PUT replaces the record and answers 204: an omitted parent would make the group a root, so
// the parent is always sent. There is no status to retire by; deletes go in bulk, a request per
// hundred groups of one wave (children before their parents). No other kind's quirks here.
import type { ApiClient } from '../api/client.js';
import { ErpsyncError } from '../model/errors.js';
import { bulkDeleteIdsPerRequest, bulkDeleteOperation, compact, executeByAction, postRecord, readName, readReferenceId, readTreeItems, requireId, requireLiveId, treeRecord } from './live-helpers.js';
import type { FieldTable, FieldTableEntry, ToolKeys } from './shared-schema.js';
import { defineListRecord, defineName, defineParentReference, toolKeyFields, erpsyncNameLimit } from './shared-schema.js';
import type { Change } from '../model/plan.js';
import type { LiveRecord } from '../model/live.js';
import { defineKind } from './kind.js';
import type { WriteContext, LengthLimit } from './kind.js';

export interface GrupoProdutoManifest extends ToolKeys {
  nome: string;
  grupoProdutoPai?: string;
}

/** The longest nome the kind takes (docs/manifest.md, "Name lengths"). */
export const gruposProdutosLengthLimits = { nome: erpsyncNameLimit } as const satisfies Readonly<Record<string, LengthLimit>>;

const fields = {
  nome: defineName('Name of the product group; with the parent path it identifies the record. Required.', gruposProdutosLengthLimits.nome),
  grupoProdutoPai: defineParentReference('Parent product group (the API field grupoProdutoPai, named instead of given by id).'),
  ...toolKeyFields,
} as const satisfies FieldTable<GrupoProdutoManifest>;

export const grupoProdutoFieldTables: readonly FieldTableEntry[] = [{ path: [], fields }];


const resource = '/grupos-produtos';
const kind = 'gruposProdutos';

// Always the whole list, although the API filters by `nome` and `nomePai` (readListOrSearch is
// for flat kinds). A group's identity is its path from the root: `nome=` answers every group of
// that bare name and `nomePai=` only the parent's bare name, so placing an answer with certainty
// takes one more GET per ancestor, per candidate. The planner also matches a group moved elsewhere
// in the tree by its bare name alone, and a removal relies on the children it knows of: both need
// every group; a read that stopped short of them could plan a duplicate or a wrong delete.
async function readProductGroups(client: ApiClient): Promise<LiveRecord[]> {
  const items = await readTreeItems(client, resource, kind, (raw) => ({ name: readName(raw.nome), parentId: readReferenceId(raw.grupoProdutoPai) }));
  return items.map((item) => treeRecord(kind, item, { nome: item.name, grupoProdutoPai: item.parent }, { detailLoaded: true }));
}

/** `{ id }` of the parent the desired record names, or undefined for a root. */
function desiredParent(desired: Record<string, unknown>, context: WriteContext): { id: number } | undefined {
  return typeof desired.grupoProdutoPai === 'string' ? { id: requireId(context, kind, desired.grupoProdutoPai) } : undefined;
}

async function createProductGroup(change: Change, context: WriteContext): Promise<{ id: number }> {
  const desired = change.desired ?? {};
  const body = compact({ nome: desired.nome, grupoProdutoPai: desiredParent(desired, context) });
  return postRecord(context.client, resource, kind, body);
}

async function updateProductGroup(change: Change, context: WriteContext): Promise<void> {
  const id = requireLiveId(change);
  if (!context.live) throw new ErpsyncError('INTERNAL', `${change.id}: an update needs the live record to merge onto`);
  const desired = change.desired ?? {};
  const { id: _id, grupoProdutoPai: liveParent, ...raw } = context.live.raw;
  // A manifest that omits the parent does not manage it: keep the one the group has.
  const liveParentId = readReferenceId(liveParent);
  const parent = desired.grupoProdutoPai === undefined ? (liveParentId === undefined ? undefined : { id: liveParentId }) : desiredParent(desired, context);
  const body = compact({ ...raw, nome: desired.nome ?? context.live.fields.nome, grupoProdutoPai: parent });
  await context.client.request({ method: 'PUT', path: `${resource}/${id}`, body, kind });
}

export const gruposProdutos = defineKind({
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
  lengthLimits: gruposProdutosLengthLimits,
  references: [{ path: ['grupoProdutoPai'], target: 'gruposProdutos', parent: true }],
  readLive: readProductGroups,
  retire: 'none',
  canDelete: true,
  // DELETE /grupos-produtos?idsGruposProdutos[]=… takes many (size and URL length: bulkDeleteIdsPerRequest).
  batching: { deletesPerRequest: bulkDeleteIdsPerRequest },
  execute: executeByAction('product groups', {
    create: createProductGroup,
    update: updateProductGroup,
    delete: bulkDeleteOperation(resource, 'idsGruposProdutos', kind),
  }),
});
