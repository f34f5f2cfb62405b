// /depositos: the account's warehouses. No DELETE exists (a warehouse is retired with
// `situacao: 0`); all four members are required by the schema; `padrao: true` makes a warehouse
// the default and takes it from the one that had it (rule warehouses). The list shows active
// warehouses unless asked for `situacao=0` (rule warehouse-list-default).
import type { ObjectSpec } from '../body-schema.js';
import { matchesTextFilter, paginate, readEnumParam } from '../listing.js';
import type { Route, RouteContext } from '../router.js';
import { ok } from '../router.js';
import type { WarehouseRecord } from '../state.js';
import { allocateId } from '../state.js';
import { byId, findById, requireBody } from './common.js';

const warehouseSpec: ObjectSpec = {
  type: 'object',
  properties: {
    descricao: { type: 'string', required: true },
    situacao: { type: 'integer', required: true, enum: [0, 1] },
    padrao: { type: 'boolean', required: true },
    desconsiderarSaldo: { type: 'boolean', required: true },
  },
};

type WarehouseInput = Omit<WarehouseRecord, 'id'>;

function showWarehouse({ id, descricao, situacao, padrao, desconsiderarSaldo }: WarehouseRecord): Record<string, unknown> {
  return { id, descricao, situacao, padrao, desconsiderarSaldo };
}

function takeDefault({ state, tx }: RouteContext, record: WarehouseRecord): void {
  if (!record.padrao) return;
  for (const other of state.depositos) if (other !== record && other.padrao) tx.assign(other, { padrao: false });
}

export const warehouseRoutes: Route[] = [
  {
    method: 'GET',
    template: '/depositos',
    handle: ({ state, query, mode }) => {
      const descricao = query.get('descricao');
      // Without `situacao`, its documented default (1, active) applies (rule warehouse-list-default).
      const situacao = readEnumParam(query, 'situacao', [0, 1]) ?? 1;
      const rows = state.depositos
        .filter((d) => !descricao || matchesTextFilter(mode, d.descricao, descricao))
        .filter((d) => d.situacao === situacao)
        .sort(byId);
      return ok({ data: paginate(rows, query).map(showWarehouse) });
    },
  },
  {
    method: 'POST',
    template: '/depositos',
    handle: (ctx) => {
      const input = requireBody(ctx.body, warehouseSpec, ctx.mode) as unknown as WarehouseInput;
      const record: WarehouseRecord = { id: allocateId(ctx.state), ...input };
      ctx.tx.push(ctx.state.depositos, record);
      takeDefault(ctx, record);
      return ok({ data: { id: record.id } }, 201);
    },
  },
  {
    method: 'GET',
    template: '/depositos/{idDeposito}',
    handle: ({ state, params }) => ok({ data: showWarehouse(findById(state.depositos, params.idDeposito)) }),
  },
  {
    method: 'PUT',
    template: '/depositos/{idDeposito}',
    handle: (ctx) => {
      const record = findById(ctx.state.depositos, ctx.params.idDeposito);
      const input = requireBody(ctx.body, warehouseSpec, ctx.mode) as unknown as WarehouseInput;
      ctx.tx.assign(record, input);
      takeDefault(ctx, record);
      // The schema allows `alertas` beside the id; the emulator has none to give.
      return ok({ id: record.id });
    },
  },
];
