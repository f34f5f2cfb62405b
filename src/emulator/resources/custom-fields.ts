// /campos-customizados: custom fields of a module (products, contacts, sales …), their types and
// the modules that have them. PUT takes the same body without `modulo`/`tipoCampo` and ignores
// `nome` (more-config.md: a rename cannot be done by PUT); options and grouping links get ids,
// answered as `idsOpcoes` and `idsVinculosAgrupadores` (rule custom-fields). An option sent with
// an id keeps it; without one it is new (the schema requires `id` on options, which a new option
// cannot have — the inference every create-by-nested-list takes, like ISS.tributos).
import type { ObjectSpec } from '../body-schema.js';
import { paginate } from '../listing.js';
import type { Route, RouteContext } from '../router.js';
import { noContent, ok } from '../router.js';
import type { CustomFieldRecord, EmulatorState } from '../state.js';
import { allocateId } from '../state.js';
import { assertNotInUse, byId, checkReference, findById, removeById, requireBody } from './common.js';

const idRef = (required: boolean): ObjectSpec => ({
  type: 'object',
  required,
  whenOmitted: 'absent',
  properties: { id: { type: 'integer', required: true, min: 1 } },
});

const editableMembers: ObjectSpec['properties'] = {
  nome: { type: 'string', required: true },
  situacao: { type: 'integer', enum: [0, 1], default: 1 },
  placeholder: { type: 'string', default: '' },
  obrigatorio: { type: 'boolean', default: false },
  opcoes: {
    type: 'array',
    items: { type: 'object', properties: { id: { type: 'integer', min: 1 }, nome: { type: 'string', required: true } } },
  },
  tamanho: {
    type: 'object',
    properties: { minimo: { type: 'integer', min: 0, default: 0 }, maximo: { type: 'integer', min: 0, default: 0 } },
  },
  agrupadores: { type: 'array', items: idRef(true) },
};

const createSpec: ObjectSpec = { type: 'object', properties: { ...editableMembers, modulo: idRef(true), tipoCampo: idRef(true) } };
const updateSpec: ObjectSpec = { type: 'object', properties: editableMembers };
const situacaoSpec: ObjectSpec = { type: 'object', properties: { situacao: { type: 'integer', required: true, enum: [0, 1] } } };

interface FieldInput {
  nome: string;
  situacao: number;
  placeholder: string;
  obrigatorio: boolean;
  opcoes: { id?: number; nome: string }[];
  tamanho: { minimo: number; maximo: number };
  agrupadores: { id: number }[];
  modulo?: { id: number };
  tipoCampo?: { id: number };
}

function showField(record: CustomFieldRecord): Record<string, unknown> {
  const { id, nome, situacao, placeholder, obrigatorio, opcoes, tamanho } = record;
  return {
    id,
    nome,
    situacao,
    placeholder,
    obrigatorio,
    opcoes,
    tamanho,
    agrupadores: record.agrupadores.map((a) => ({ id: a.id })),
    modulo: { id: record.idModulo },
    tipoCampo: { id: record.idTipoCampo },
  };
}

/** Grouping records of the module: product categories for products, contact types for contacts. */
function groupingExists(state: EmulatorState, idModulo: number, id: number): boolean {
  const module = state.modulosCamposCustomizados.find((m) => m.id === idModulo);
  if (module?.modulo === 'Produtos') return state.categoriasProdutos.some((c) => c.id === id);
  if (module?.modulo === 'Contatos') return state.tiposContatos.some((t) => t.id === id);
  return false;
}

/** The editable part of a record from the body, keeping the ids of options and links that stay. */
function editFields({ state, mode }: RouteContext, input: FieldInput, idModulo: number, current?: CustomFieldRecord) {
  for (const [index, a] of input.agrupadores.entries()) {
    checkReference(mode, groupingExists(state, idModulo, a.id), `agrupadores[${index}].id`, `O agrupador ${a.id} não existe neste módulo`);
  }
  const known = new Set(current?.opcoes.map((o) => o.id));
  const opcoes = input.opcoes.map((o) => ({ id: o.id !== undefined && known.has(o.id) ? o.id : allocateId(state), nome: o.nome }));
  const agrupadores = input.agrupadores.map((a) => ({
    id: a.id,
    idVinculo: current?.agrupadores.find((c) => c.id === a.id)?.idVinculo ?? allocateId(state),
  }));
  return { situacao: input.situacao, placeholder: input.placeholder, obrigatorio: input.obrigatorio, opcoes, tamanho: input.tamanho, agrupadores };
}

function savedIds(record: CustomFieldRecord): Record<string, unknown> {
  return { id: record.id, idsVinculosAgrupadores: record.agrupadores.map((a) => a.idVinculo), idsOpcoes: record.opcoes.map((o) => o.id) };
}

function createField(ctx: RouteContext) {
  const { state, mode, tx } = ctx;
  const input = requireBody(ctx.body, createSpec, mode) as unknown as FieldInput & { modulo: { id: number }; tipoCampo: { id: number } };
  checkReference(mode, state.modulosCamposCustomizados.some((m) => m.id === input.modulo.id), 'modulo.id', `O módulo ${input.modulo.id} não existe`);
  checkReference(mode, state.tiposCamposCustomizados.some((t) => t.id === input.tipoCampo.id), 'tipoCampo.id', `O tipo ${input.tipoCampo.id} não existe`);
  const id = allocateId(state);
  const record: CustomFieldRecord = { id, idModulo: input.modulo.id, idTipoCampo: input.tipoCampo.id, nome: input.nome, ...editFields(ctx, input, input.modulo.id) };
  tx.push(state.camposCustomizados, record);
  return ok({ data: savedIds(record) }, 201);
}

function updateField(ctx: RouteContext) {
  const record = findById(ctx.state.camposCustomizados, ctx.params.idCampoCustomizado);
  const input = requireBody(ctx.body, updateSpec, ctx.mode) as unknown as FieldInput;
  // custom-fields: `nome` is read (the schema requires it) but a PUT cannot rename.
  ctx.tx.assign(record, editFields(ctx, input, record.idModulo, record));
  return ok({ data: savedIds(record) });
}

export const customFieldRoutes: Route[] = [
  {
    method: 'GET',
    template: '/campos-customizados/modulos',
    handle: ({ state }) =>
      ok({ data: [...state.modulosCamposCustomizados].sort(byId).map(({ id, nome, modulo, agrupador, permissoes }) => ({ id, nome, modulo, agrupador, permissoes })) }),
  },
  {
    method: 'GET',
    template: '/campos-customizados/modulos/{idModulo}',
    handle: ({ state, params, query }) => {
      const module = findById(state.modulosCamposCustomizados, params.idModulo);
      const rows = state.camposCustomizados.filter((f) => f.idModulo === module.id).sort(byId);
      return ok({ data: paginate(rows, query).map(({ id, nome, situacao }) => ({ id, nome, situacao })) });
    },
  },
  {
    method: 'GET',
    template: '/campos-customizados/tipos',
    handle: ({ state }) => ok({ data: [...state.tiposCamposCustomizados].sort(byId).map(({ id, nome, mascara }) => ({ id, nome, mascara })) }),
  },
  { method: 'POST', template: '/campos-customizados', handle: createField },
  {
    method: 'GET',
    template: '/campos-customizados/{idCampoCustomizado}',
    handle: ({ state, params }) => ok({ data: showField(findById(state.camposCustomizados, params.idCampoCustomizado)) }),
  },
  { method: 'PUT', template: '/campos-customizados/{idCampoCustomizado}', handle: updateField },
  {
    method: 'DELETE',
    template: '/campos-customizados/{idCampoCustomizado}',
    handle: ({ state, params, tx }) => {
      const record = findById(state.camposCustomizados, params.idCampoCustomizado);
      assertNotInUse(state, record.id);
      removeById(tx, state.camposCustomizados, record.id);
      return noContent();
    },
  },
  {
    method: 'PATCH',
    template: '/campos-customizados/{idCampoCustomizado}/situacoes',
    handle: ({ state, params, body, mode, tx }) => {
      const record = findById(state.camposCustomizados, params.idCampoCustomizado);
      const { situacao } = requireBody(body, situacaoSpec, mode) as { situacao: number };
      tx.assign(record, { situacao });
      return noContent();
    },
  },
];
