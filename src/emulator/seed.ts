// Initial states: `fresh` is a newly opened account (default chart of categories, default payment
// methods, the system's situation modules with their built-ins, a native and a reverse logistics, NFS-e
// settings, a default warehouse, operation natures, a cash account); `empty` keeps only what the
// system itself owns (situation modules and built-ins, custom-field modules and types, contact
// types, the company record, settings). Documented: the default chart (api-facts §7.7, S6), the
// Vendas built-ins with their ids and colours and the Vendas module (api-facts §2.5, S8). Inferred
// (plausible, not documented): the other modules and their built-ins, the payment methods, the
// Correios logistics, and everything of the configuration API beyond those — names follow the
// OpenAPI examples where they give one ("Inteiro", "Clientes e Fornecedores", "Compra de
// Mercadoria", "Fornecedor"). Other ids are ours.
import { defaultNfseSettings } from './resources/nfse-settings.js';
import { defaultChart } from './seed-chart.js';
import { addFreshConfiguration, addSystemConfiguration } from './seed-configuration.js';
import type { EmulatorState, PaymentMethodRecord, SituationRecord } from './state.js';
import { allocateId } from './state.js';

/** First id handed out after the chart, continuing its sequence. */
const firstFreeId = 14_693_216_903;

export type SeedName = 'fresh' | 'empty';

export function buildSeed(name: SeedName): EmulatorState {
  const state: EmulatorState = {
    formatVersion: 1,
    nextId: firstFreeId,
    formasPagamentos: [],
    idFormaPagamentoFiado: 0,
    categoriasReceitasDespesas: [],
    categoriasProdutos: [],
    gruposProdutos: [],
    modulos: [],
    situacoes: [],
    transicoes: [],
    logisticas: [],
    servicosLogisticas: [],
    nfseConfiguracoes: defaultNfseSettings(),
    ...addSystemConfiguration(),
    emUso: [],
  };
  addSystemSituations(state);
  if (name === 'fresh') {
    state.categoriasReceitasDespesas = defaultChart.map((c) => ({ ...c, situacao: 1 }));
    addPaymentMethods(state);
    addNativeLogistics(state);
    addFreshConfiguration(state);
    addReverseLogistics(state);
  }
  return state;
}

const vendasModuleId = 98310;

function addSystemSituations(state: EmulatorState): void {
  state.modulos.push(
    {
      id: vendasModuleId,
      nome: 'Vendas',
      descricao: 'Pedidos de Venda',
      criarSituacoes: true,
      acoes: [
        { id: 1, nome: 'lancarEstoque', descricao: 'Lançar estoque' },
        { id: 2, nome: 'estornarEstoque', descricao: 'Estornar estoque' },
        { id: 3, nome: 'lancarContas', descricao: 'Lançar contas' },
        { id: 4, nome: 'estornarContas', descricao: 'Estornar contas' },
      ],
    },
    {
      id: 98311,
      nome: 'Compras',
      descricao: 'Pedidos de Compra',
      criarSituacoes: true,
      acoes: [
        { id: 5, nome: 'lancarEstoque', descricao: 'Lançar estoque' },
        { id: 6, nome: 'lancarContas', descricao: 'Lançar contas' },
      ],
    },
    { id: 98312, nome: 'NotasFiscais', descricao: 'Notas Fiscais', criarSituacoes: false, acoes: [] },
  );
  const builtIn = (id: number, idModuloSistema: number, nome: string, cor: string): SituationRecord => ({
    id,
    idModuloSistema,
    nome,
    idHerdado: 0,
    cor,
  });
  state.situacoes.push(
    builtIn(6, vendasModuleId, 'Em aberto', '#E9DC40'),
    builtIn(9, vendasModuleId, 'Atendido', '#3FB57A'),
    builtIn(12, vendasModuleId, 'Cancelado', '#CBCBCB'),
    builtIn(15, vendasModuleId, 'Em andamento', '#0065F9'),
    builtIn(18, vendasModuleId, 'Venda Agenciada', '#FF7835'),
    builtIn(21, vendasModuleId, 'Em digitação', '#FF66E3'),
    builtIn(24, vendasModuleId, 'Verificado', '#85F39E'),
    builtIn(28, 98311, 'Em aberto', '#E9DC40'),
    builtIn(31, 98311, 'Atendido', '#3FB57A'),
    builtIn(34, 98311, 'Cancelado', '#CBCBCB'),
    builtIn(40, 98312, 'Pendente', '#E9DC40'),
    builtIn(43, 98312, 'Autorizada', '#3FB57A'),
  );
  const transition = (origem: number, destino: number, acoes: number[], idModuloSistema = vendasModuleId) =>
    state.transicoes.push({
      id: allocateId(state),
      idModuloSistema,
      ativo: true,
      acoes,
      idSituacaoOrigem: origem,
      idSituacaoDestino: destino,
    });
  transition(6, 15, []);
  transition(15, 9, [1, 3]);
  transition(6, 12, []);
  transition(9, 12, [2, 4]);
  transition(28, 31, [5, 6], 98311);
}

function addPaymentMethods(state: EmulatorState): void {
  const method = (fields: Partial<PaymentMethodRecord> & Pick<PaymentMethodRecord, 'descricao' | 'tipoPagamento'>) => {
    const record: PaymentMethodRecord = {
      id: allocateId(state),
      situacao: 1,
      fixa: false,
      padrao: 0,
      finalidade: 3,
      juros: 0,
      multa: 0,
      condicao: '',
      destino: 1,
      utilizaDiasUteis: false,
      taxas: { aliquota: 0, valor: 0, prazo: 0 },
      ...fields,
    };
    state.formasPagamentos.push(record);
    return record;
  };
  method({ descricao: 'Dinheiro', tipoPagamento: 1, fixa: true, padrao: 1, destino: 3, condicao: '1x' });
  method({ descricao: 'Sem pagamento', tipoPagamento: 90, fixa: true, destino: 1 });
  method({
    descricao: 'Cartão de crédito',
    tipoPagamento: 3,
    finalidade: 2,
    condicao: '1x',
    taxas: { aliquota: 0, valor: 0, prazo: 30 },
    dadosCartao: { bandeira: 99, tipo: 2, cnpjCredenciadora: '', autoLiquidacao: 0 },
  });
  method({
    descricao: 'Cartão de débito',
    tipoPagamento: 4,
    finalidade: 2,
    condicao: '1x',
    taxas: { aliquota: 0, valor: 0, prazo: 1 },
    dadosCartao: { bandeira: 99, tipo: 2, cnpjCredenciadora: '', autoLiquidacao: 0 },
  });
  method({ descricao: 'Boleto bancário', tipoPagamento: 15, condicao: '30' });
  method({ descricao: 'Pix', tipoPagamento: 20, destino: 3 });
}

/**
 * A logistics with a reverse service, set up by an integration (inferred: real-observations leaves
 * its shape unknown). The list shows it by default (rule reverse-logistics-filter). Its ids are
 * the OpenAPI example's (LogisticasDadosBaseDTO.id), outside the sequence, so no other id moves.
 */
function addReverseLogistics(state: EmulatorState): void {
  const idLogistica = 6_423_813_145;
  state.logisticas.push({
    id: idLogistica,
    descricao: 'Melhor Envio reversa',
    tipoIntegracao: 'MelhorEnvio',
    integracaoNativa: false,
    situacao: 'H',
    idIntegracao: idLogistica + 1,
    reversa: true,
  });
  state.servicosLogisticas.push({
    id: idLogistica + 2,
    idLogistica,
    descricao: 'Coleta reversa',
    codigo: 'REVERSA',
    aliases: ['COLETA REVERSA'],
    ativo: true,
    freteItem: 0,
    estimativaEntrega: 5,
    idCodigoServico: 'REVERSA',
    idTransportador: 0,
  });
}

function addNativeLogistics(state: EmulatorState): void {
  const idLogistica = allocateId(state);
  state.logisticas.push({
    id: idLogistica,
    descricao: 'Correios',
    tipoIntegracao: 'Correios',
    integracaoNativa: true,
    situacao: 'H',
    idIntegracao: allocateId(state),
    reversa: false,
  });
  const idTransportador = allocateId(state);
  const service = (descricao: string, codigo: string, ativo: boolean, estimativaEntrega: number) =>
    state.servicosLogisticas.push({
      id: allocateId(state),
      idLogistica,
      descricao,
      codigo,
      aliases: [descricao.toUpperCase()],
      ativo,
      freteItem: 0,
      estimativaEntrega,
      idCodigoServico: codigo,
      idTransportador,
    });
  service('SEDEX', '03220', true, 2);
  service('PAC', '03298', true, 7);
  service('Mini Envios', '04227', false, 10);
}
