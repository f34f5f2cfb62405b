// Store category links (/categorias/lojas): how a product category is called in one of the
// account's stores (a sales channel): the store's `descricao` and `codigo` for it. Identity: the
// sales channel (read-only canaisVenda, by descricao) + the product category (by path). The
// category is created first (a reference); a category's removal waits for its links' removals,
// and a link cannot outlive its category (it goes with it).
// The list holds every field, so no detail is read; PUT (204) replaces the record with all four
// members. No other kind's quirks here.
import type { ApiClient } from '../api/client.js';
import type { DesiredUnit } from '../model/desired.js';
import type { LiveRecord } from '../model/live.js';
import { joinPath, normalizeName } from '../model/names.js';
import type { Change } from '../model/plan.js';
import { defineKind } from './kind.js';
import type { ReadScope, WriteContext } from './kind.js';
import { compact, deleteOperation, executeByAction, identifyListItems, nameReadOnlyReference, postRecord, readName, readReferenceId, referenceId, requireId, requireLiveId } from './live-helpers.js';
import type { FieldTable, FieldTableEntry, ToolKeys } from './shared-schema.js';
import { defineListRecord, defineName, toolKeyFields } from './shared-schema.js';

export interface CategoriaLojaManifest extends ToolKeys {
  loja: string | number;
  categoriaProduto: string;
  /** Required unless `ensure: absent`. */
  descricao?: string;
  codigo?: string;
}

const fields = {
  loja: {
    anyOf: [
      { type: 'string', minLength: 1 },
      { type: 'integer', minimum: 1 },
    ],
    description: 'The store (sales channel) by its descricao as /canais-venda lists it (e.g. `Loja Virtual`), or by id. Required.',
  },
  categoriaProduto: defineName('The product category, by name or by its path from the root (`Maquiagem > Olhos`). With loja, it identifies the link. Required.'),
  descricao: defineName("The category's name in the store. Required unless ensure is absent."),
  codigo: defineName("The category's code (id) in the store. Required unless ensure is absent."),
  ...toolKeyFields,
} as const satisfies FieldTable<CategoriaLojaManifest>;

export const categoriaLojaFieldTables: readonly FieldTableEntry[] = [{ path: [], fields }];

const resource = '/categorias/lojas';
const kind = 'categoriasLojas';

/**
 * Whether a read lists the links (always all of them). A link to a category the account lacks
 * cannot be in the account: when every declared link names one (a new store's new catalogue), and
 * no category it may name is being removed, there is nothing to find.
 */
function listsLinks(scope: ReadScope): boolean {
  const mayBeLive = (unit: DesiredUnit) => typeof unit.fields.categoriaProduto !== 'string' || (scope.mayBeInAccount?.('categoriasProdutos', unit.fields.categoriaProduto) ?? true);
  return scope.all || (scope.removing?.get('categoriasProdutos') ?? []).length > 0 || scope.desired.some(mayBeLive);
}

async function readStoreLinks(client: ApiClient, scope: ReadScope): Promise<LiveRecord[]> {
  if (!listsLinks(scope)) return [];
  const categories = new Map((scope.earlier.get('categoriasProdutos') ?? []).map((c) => [c.id, c.identity]));
  const rows = await client.listAll<unknown>(resource, undefined, { kind });
  return identifyListItems(rows, resource).map(({ id, raw }): LiveRecord => {
    const categoryId = readReferenceId(raw.categoriaProduto);
    const loja = nameReadOnlyReference(scope.earlier, 'canaisVenda', readReferenceId(raw.loja));
    const categoriaProduto = categories.get(categoryId ?? 0) ?? String(categoryId ?? '');
    return {
      kind,
      id,
      identity: joinPath([String(loja ?? ''), categoriaProduto]),
      name: categoriaProduto,
      fields: compact({ loja, categoriaProduto, descricao: readName(raw.descricao), codigo: readName(raw.codigo) }),
      raw,
      detailLoaded: true,
    };
  });
}

/** All four members, ids for the references; the live record under the manifest for what it leaves out. */
function linkBody(desired: Record<string, unknown>, context: WriteContext): Record<string, unknown> {
  const raw = context.live?.raw ?? {};
  const category = typeof desired.categoriaProduto === 'string' ? requireId(context, 'categoriasProdutos', desired.categoriaProduto) : readReferenceId(raw.categoriaProduto);
  return {
    loja: { id: referenceId(context, 'canaisVenda', desired.loja) ?? readReferenceId(raw.loja) },
    descricao: typeof desired.descricao === 'string' ? normalizeName(desired.descricao) : raw.descricao,
    codigo: desired.codigo ?? raw.codigo,
    categoriaProduto: { id: category },
  };
}

async function updateLink(change: Change, context: WriteContext): Promise<void> {
  await context.client.request({ method: 'PUT', path: `${resource}/${requireLiveId(change)}`, body: linkBody(change.desired ?? {}, context), kind });
}

export const categoriasLojas = defineKind({
  key: 'categoriasLojas',
  title: 'store category links',
  resource,
  shape: 'list',
  recordSchema: defineListRecord(fields, {
    title: 'Store category link',
    description: "A product category's counterpart in one of the account's stores (sales channels), identified by loja and categoriaProduto.",
    identity: ['loja', 'categoriaProduto'],
    requiredUnlessAbsent: ['descricao', 'codigo'],
  }),
  enums: [],
  secretFields: [],
  nameField: 'categoriaProduto',
  composeName: (value) => String(value.categoriaProduto ?? ''),
  scopeField: 'loja',
  references: [
    { path: ['loja'], target: 'canaisVenda', parent: false },
    { path: ['categoriaProduto'], target: 'categoriasProdutos', parent: false },
  ],
  readLive: readStoreLinks,
  // The list holds every link with every field: a read that lists them holds them all.
  wholeRead: (scope) => (listsLinks(scope) ? true : undefined),
  // Another store or category is another link.
  immutableFields: ['loja', 'categoriaProduto'],
  retire: 'none',
  canDelete: true,
  execute: executeByAction('store category links', {
    create: (change, context) => postRecord(context.client, resource, kind, linkBody(change.desired ?? {}, context)),
    update: updateLink,
    delete: deleteOperation(resource, kind),
  }),
});
