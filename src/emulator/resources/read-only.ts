// Records that configuration refers to but cannot write through the API (rule
// read-only-resources): the company, sales channels and their types, operation natures,
// financial accounts, contact types and contacts (only their listing). Only GET is documented for them.
import { matchesTextFilter, paginate, readBooleanParam, readEnumParam, readIntegerArrayParam } from '../listing.js';
import type { Route } from '../router.js';
import { ok } from '../router.js';
import type { FinancialAccountRecord, SalesChannelRecord } from '../state.js';
import { byId, findById } from './common.js';

/**
 * Channel types the account can integrate (GET /canais-venda/tipos). The two the OpenAPI examples
 * name are documented; the rest are a plausible cut of Bling's integrations (inference). The
 * group codes are the documented `agrupador` enum: 1 online store, 2 hub, 3 marketplace, 4 API.
 */
const channelTypes = [
  { nome: 'Loja Integrada', tipo: 'LojaIntegrada', agrupador: 1 },
  { nome: 'Nuvemshop', tipo: 'Nuvemshop', agrupador: 1 },
  { nome: 'Shopee', tipo: 'Shopee', agrupador: 3 },
  { nome: 'Mercado Livre', tipo: 'MercadoLivre', agrupador: 3 },
  { nome: 'API', tipo: 'Api', agrupador: 4 },
] as const;

function showChannel({ id, descricao, tipo, situacao }: SalesChannelRecord): Record<string, unknown> {
  return { id, descricao, tipo, situacao };
}

function showAccount({ id, descricao, tipo, aliasIntegracao }: FinancialAccountRecord): Record<string, unknown> {
  return { id, descricao, tipo, aliasIntegracao };
}

/** `situacoes[]` of /contas-contabeis; the document also names it without brackets. */
function readAccountStates(query: URLSearchParams): number[] {
  return [...readIntegerArrayParam(query, 'situacoes'), ...query.getAll('situacoes').map(Number).filter(Number.isInteger)];
}

export const readOnlyRoutes: Route[] = [
  {
    method: 'GET',
    template: '/empresas/me/dados-basicos',
    handle: ({ state }) => ok({ data: { ...state.empresa } }),
  },
  {
    method: 'GET',
    template: '/canais-venda',
    handle: ({ state, query }) => {
      const tipos = query.getAll('tipos[]');
      const situacao = readEnumParam(query, 'situacao', [1, 2]);
      const agrupador = readEnumParam(query, 'agrupador', [1, 2, 3, 4]);
      const rows = state.canaisVenda
        .filter((c) => tipos.length === 0 || tipos.includes(c.tipo))
        .filter((c) => situacao === undefined || c.situacao === situacao)
        .filter((c) => agrupador === undefined || c.agrupador === agrupador)
        .sort(byId);
      return ok({ data: paginate(rows, query).map(showChannel) });
    },
  },
  {
    method: 'GET',
    template: '/canais-venda/tipos',
    handle: ({ query }) => {
      const agrupador = readEnumParam(query, 'agrupador', [1, 2, 3, 4]);
      return ok({ data: channelTypes.filter((t) => agrupador === undefined || t.agrupador === agrupador).map((t) => ({ ...t })) });
    },
  },
  {
    method: 'GET',
    template: '/canais-venda/{idCanalVenda}',
    handle: ({ state, params }) => {
      const channel = findById(state.canaisVenda, params.idCanalVenda);
      return ok({ data: { ...showChannel(channel), filiais: channel.filiais } });
    },
  },
  {
    method: 'GET',
    template: '/naturezas-operacoes',
    handle: ({ state, query, mode }) => {
      const situacao = readEnumParam(query, 'situacao', [0, 1]);
      const descricao = query.get('descricao');
      const rows = state.naturezasOperacoes
        .filter((n) => situacao === undefined || n.situacao === situacao)
        .filter((n) => !descricao || matchesTextFilter(mode, n.descricao, descricao))
        .sort(byId);
      return ok({ data: paginate(rows, query).map(({ id, situacao: s, padrao, descricao: d }) => ({ id, situacao: s, padrao, descricao: d })) });
    },
  },
  {
    method: 'GET',
    template: '/contas-contabeis',
    handle: ({ state, query }) => {
      const hideInvisible = readBooleanParam(query, 'ocultarInvisiveis') ?? false;
      const hideBankAccounts = readBooleanParam(query, 'ocultarTipoContaBancaria') ?? false;
      const situacoes = readAccountStates(query);
      const alias = query.get('aliasIntegracao');
      const order = readEnumParam(query, 'ordenacao', ['descricao', '-descricao']);
      const rows = state.contasContabeis
        .filter((a) => !hideInvisible || !a.invisivel)
        .filter((a) => !hideBankAccounts || a.tipo !== 'conta-bancaria')
        .filter((a) => situacoes.length === 0 || situacoes.includes(a.situacao))
        .filter((a) => !alias || a.aliasIntegracao === alias)
        .sort(order === undefined ? byId : (a, b) => (order === 'descricao' ? 1 : -1) * a.descricao.localeCompare(b.descricao, 'pt-BR'));
      return ok({ data: paginate(rows, query).map(showAccount) });
    },
  },
  {
    method: 'GET',
    template: '/contas-contabeis/{idContaContabil}',
    handle: ({ state, params }) => ok({ data: showAccount(findById(state.contasContabeis, params.idContaContabil)) }),
  },
  {
    // contacts-list: only the listing configuration needs (a carrier named by name).
    method: 'GET',
    template: '/contatos',
    handle: ({ state, query, mode }) => {
      const pesquisa = query.get('pesquisa');
      const rows = state.contatos.filter((c) => !pesquisa || [c.nome, c.codigo, c.numeroDocumento].some((text) => matchesTextFilter(mode, text, pesquisa))).sort(byId);
      return ok({ data: paginate(rows, query).map(({ id, nome, codigo, situacao, numeroDocumento }) => ({ id, nome, codigo, situacao, numeroDocumento })) });
    },
  },
  {
    method: 'GET',
    template: '/contatos/tipos',
    handle: ({ state }) => ok({ data: [...state.tiposContatos].sort(byId).map(({ id, descricao }) => ({ id, descricao })) }),
  },
];
