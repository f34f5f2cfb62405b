// The emulated account's records, as plain JSON-serialisable data. Records are kept in their
// detail shape with the API's own field names; list projections are derived by the resource modules.

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

export interface WarehouseRecord {
  id: number;
  descricao: string;
  /** 0 inactive, 1 active. */
  situacao: number;
  padrao: boolean;
  desconsiderarSaldo: boolean;
}

export interface CustomFieldModuleRecord {
  id: number;
  nome: string;
  modulo: string;
  /** The record attribute custom fields of the module group by ('' when none). */
  agrupador: string;
  permissoes: { nome: string; modulo: string; autorizado: boolean }[];
}

export interface CustomFieldTypeRecord {
  id: number;
  nome: string;
  mascara: string;
}

export interface CustomFieldRecord {
  id: number;
  idModulo: number;
  idTipoCampo: number;
  nome: string;
  situacao: number;
  placeholder: string;
  obrigatorio: boolean;
  opcoes: { id: number; nome: string }[];
  tamanho: { minimo: number; maximo: number };
  /** The grouping records (product categories, contact types) and the id of each link. */
  agrupadores: { id: number; idVinculo: number }[];
}

export interface StoreCategoryRecord {
  id: number;
  idLoja: number;
  descricao: string;
  codigo: string;
  idCategoriaProduto: number;
}

export interface SalesChannelRecord {
  id: number;
  descricao: string;
  tipo: string;
  /** 1 enabled, 2 disabled. */
  situacao: number;
  /** 1…4, the channel type's group (the `agrupador` filter). */
  agrupador: number;
  filiais: { cnpj: string; idUnidadeNegocio: number; unidadeNegocio: string; deposito: { id: number }; padrao: boolean }[];
}

export interface OperationNatureRecord {
  id: number;
  situacao: number;
  /** 0 none, 1 sale, 2 purchase, … 9 (the documented list). */
  padrao: number;
  descricao: string;
}

export interface FinancialAccountRecord {
  id: number;
  descricao: string;
  tipo: string;
  aliasIntegracao: string;
  /** 1 active, 2 inactive, 3 pending, 4 cancelled (the `situacoes` filter). */
  situacao: number;
  invisivel: boolean;
}

export interface ContactTypeRecord {
  id: number;
  descricao: string;
}

/** A contact (client, supplier, carrier …): only what a configuration names it by. */
export interface ContactRecord {
  id: number;
  nome: string;
  codigo: string;
  /** A active, I inactive, E deleted, S no movement (the documented letters). */
  situacao: string;
  numeroDocumento: string;
  /** Its contact types (tiposContatos ids). */
  idsTiposContatos: number[];
}

export interface CompanyRecord {
  /** A hash string, unlike every other id. */
  id: string;
  nome: string;
  cnpj: string;
  email: string;
  dataContrato: string;
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
  depositos: WarehouseRecord[];
  modulosCamposCustomizados: CustomFieldModuleRecord[];
  tiposCamposCustomizados: CustomFieldTypeRecord[];
  camposCustomizados: CustomFieldRecord[];
  categoriasLojas: StoreCategoryRecord[];
  canaisVenda: SalesChannelRecord[];
  naturezasOperacoes: OperationNatureRecord[];
  contasContabeis: FinancialAccountRecord[];
  tiposContatos: ContactTypeRecord[];
  contatos: ContactRecord[];
  empresa: CompanyRecord;
  /**
   * Ids referenced by documents the emulator does not model (orders, invoices, receivables).
   * Deleting one of them is refused like the real "record in use" case; seeds and tests fill it.
   */
  emUso: number[];
}

/** The record lists of the state, which the persistence checks and an older state file is upgraded by. */
export const recordLists = [
  'formasPagamentos',
  'categoriasReceitasDespesas',
  'categoriasProdutos',
  'gruposProdutos',
  'modulos',
  'situacoes',
  'transicoes',
  'logisticas',
  'servicosLogisticas',
  'depositos',
  'modulosCamposCustomizados',
  'tiposCamposCustomizados',
  'camposCustomizados',
  'categoriasLojas',
  'canaisVenda',
  'naturezasOperacoes',
  'contasContabeis',
  'tiposContatos',
  'contatos',
  'emUso',
] as const satisfies readonly (keyof EmulatorState)[];

/** Hands out the next id and advances the sequence. */
export function allocateId(state: EmulatorState): number {
  const id = state.nextId;
  state.nextId += 1;
  return id;
}

export function cloneState(state: EmulatorState): EmulatorState {
  return structuredClone(state);
}
