// The emulated account's records, as plain JSON-serialisable data. Records are kept in their
// detail shape with the API's own field names; list projections are derived by the resource modules.
import type { CompanyRecord } from './resources/company.js';

export interface PaymentMethodRecord {
  id: number;
  descricao: string;
  tipoPagamento: number;
  situacao: number;
  fixa: boolean;
  padrao: number;
  finalidade: number;
  juros: number;
  multa: number;
  condicao: string;
  destino: number;
  utilizaDiasUteis: boolean;
  taxas: { aliquota: number; valor: number; prazo: number };
  dadosCartao?: { bandeira: number; tipo: number; cnpjCredenciadora: string; autoLiquidacao: number };
}

export interface IncomeExpenseCategoryRecord {
  id: number;
  idCategoriaPai: number;
  descricao: string;
  tipo: number;
  idGrupoDre: number;
  situacao: number;
}

export interface ProductCategoryRecord {
  id: number;
  descricao: string;
  /** 0 for a root category. */
  idCategoriaPai: number;
}

export interface ProductGroupRecord {
  id: number;
  nome: string;
  /** 0 for a root group. */
  idGrupoPai: number;
}

export interface SituationModuleRecord {
  id: number;
  nome: string;
  descricao: string;
  criarSituacoes: boolean;
  acoes: { id: number; nome: string; descricao: string }[];
}

export interface SituationRecord {
  id: number;
  idModuloSistema: number;
  nome: string;
  /** 0 marks a built-in situation. */
  idHerdado: number;
  cor: string;
}

export interface TransitionRecord {
  id: number;
  idModuloSistema: number;
  ativo: boolean;
  acoes: number[];
  idSituacaoOrigem: number;
  idSituacaoDestino: number;
}

export interface LogisticsRecord {
  id: number;
  descricao: string;
  tipoIntegracao: string;
  integracaoNativa: boolean;
  situacao: 'H' | 'D';
  idIntegracao: number;
  reversa: boolean;
}

export interface LogisticsServiceRecord {
  id: number;
  idLogistica: number;
  descricao: string;
  codigo: string;
  aliases: string[];
  ativo: boolean;
  freteItem: number;
  estimativaEntrega: number;
  idCodigoServico: string;
  idTransportador: number;
}

export interface NfseTributo {
  id: number;
  percentualISS: number;
  CNAE: string;
  descricaoServico: string;
  padrao: boolean;
  indicadorOperacao: string;
  codigo: { listaServico: string; tributacao: string };
}

export interface NfseSettings {
  basicas: { emissorPadrao: number; naturezaOperacao: number };
  ISS: { zerar: boolean; reter: boolean; descontar: boolean; tributos: NfseTributo[] };
  controle: { numeracaoRPS: { cnpjEmitente: string; id: number; numero: number; serie: number } };
  impostos: {
    bloquearRetencaoPessoaFisica: boolean;
    IR: {
      percentual: number;
      valorMinimoAlternativoDescontol: number;
      descontar: boolean;
      texto: { padrao: string; isento: string };
    };
    outros: {
      CSLLPISCOFINSDTO: { calcular: boolean; reter: boolean };
      INSS: { reter: boolean };
      aproximados: { utilizarAliqIBPT: boolean; percentualAliq: number };
    };
  };
  envioEmail: {
    enviarBoletoRPS: boolean;
    remetente: string;
    assunto: string;
    mensagem: string;
    padrao: { copia: string; resposta: string };
  };
  adicionais: {
    CFPS: string;
    CFOP: string;
    AEDF: string;
    proximoNumeroLote: number;
    observacaoImpressaNota: string;
    descricaoComplementar: string;
    tipoEmissao: 'T' | 'R' | 'N';
    campoNumeroDocContas: boolean;
    incentivadorFiscal: boolean;
    alterarSituacao: boolean;
    incluirParcelas: boolean;
    considerarDataParcela: boolean;
    considerarDataOrdemServico: boolean;
    cadastroPrefeitura: { login: string; senha: string };
  };
}

export interface EmulatorState {
  formatVersion: 1;
  /** Next id to hand out; one sequence for every resource, like the real large sequential ids. */
  nextId: number;
  formasPagamentos: PaymentMethodRecord[];
  /** Id of the on-credit ("fiado") default, which has no read-side `padrao` value; 0 = none. */
  idFormaPagamentoFiado: number;
  categoriasReceitasDespesas: IncomeExpenseCategoryRecord[];
  categoriasProdutos: ProductCategoryRecord[];
  gruposProdutos: ProductGroupRecord[];
  modulos: SituationModuleRecord[];
  situacoes: SituationRecord[];
  transicoes: TransitionRecord[];
  logisticas: LogisticsRecord[];
  servicosLogisticas: LogisticsServiceRecord[];
  nfseConfiguracoes: NfseSettings;
  /** The account's company (GET /empresas/me/dados-basicos); optional so older state files still load. */
  empresa?: CompanyRecord;
  /**
   * Ids referenced by documents the emulator does not model (orders, invoices, receivables).
   * Deleting one of them is refused like the real "record in use" case; seeds and tests fill it.
   */
  emUso: number[];
}

/** Hands out the next id and advances the sequence. */
export function allocateId(state: EmulatorState): number {
  const id = state.nextId;
  state.nextId += 1;
  return id;
}

export function cloneState(state: EmulatorState): EmulatorState {
  return structuredClone(state);
}
