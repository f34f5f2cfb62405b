// The seed's records of the rest of the configuration API (more-config.md). They take fixed ids
// below the default chart's, not the shared sequence, so adding them moved no id that existing
// seeds, golden files or state files hand out. All of it is inferred (a plausible new account)
// except the names the OpenAPI examples give; seed.ts says which.
import type { EmulatorState } from './state.js';

const systemBlock = 14_693_216_700;

type SystemConfiguration = Pick<
  EmulatorState,
  | 'depositos'
  | 'modulosCamposCustomizados'
  | 'tiposCamposCustomizados'
  | 'camposCustomizados'
  | 'categoriasLojas'
  | 'canaisVenda'
  | 'naturezasOperacoes'
  | 'contasContabeis'
  | 'tiposContatos'
  | 'contatos'
  | 'empresa'
>;

/** What every account has, even an `empty` one: the system's own lists and the company. */
export function addSystemConfiguration(): SystemConfiguration {
  return {
    depositos: [],
    modulosCamposCustomizados: [
      {
        id: systemBlock + 1,
        nome: 'Clientes e Fornecedores',
        modulo: 'Contatos',
        agrupador: 'Tipo de contato',
        permissoes: [{ nome: 'Clientes e Fornecedores', modulo: 'Contatos', autorizado: true }],
      },
      {
        id: systemBlock + 2,
        nome: 'Produtos',
        modulo: 'Produtos',
        agrupador: 'Categoria de produtos',
        permissoes: [{ nome: 'Produtos', modulo: 'Produtos', autorizado: true }],
      },
      { id: systemBlock + 3, nome: 'Pedidos de Venda', modulo: 'Vendas', agrupador: '', permissoes: [{ nome: 'Pedidos de Venda', modulo: 'Vendas', autorizado: true }] },
    ],
    tiposCamposCustomizados: [
      { id: systemBlock + 11, nome: 'Inteiro', mascara: '' },
      { id: systemBlock + 12, nome: 'Decimal', mascara: '0,00' },
      { id: systemBlock + 13, nome: 'Texto', mascara: '' },
      { id: systemBlock + 14, nome: 'Data', mascara: '00/00/0000' },
      { id: systemBlock + 15, nome: 'Lista', mascara: '' },
      { id: systemBlock + 16, nome: 'Sim/Não', mascara: '' },
    ],
    camposCustomizados: [],
    categoriasLojas: [],
    canaisVenda: [],
    naturezasOperacoes: [],
    contasContabeis: [],
    tiposContatos: [
      { id: systemBlock + 21, descricao: 'Cliente' },
      { id: systemBlock + 22, descricao: 'Fornecedor' },
      { id: systemBlock + 23, descricao: 'Transportador' },
      { id: systemBlock + 24, descricao: 'Técnico' },
    ],
    contatos: [],
    empresa: {
      // A placeholder: createEmulator gives every new account (and state file) an id of its own.
      id: '5f0c1d7e9a2b4c6d8e0f1a3b5c7d9e1f',
      nome: 'Loja Sandbox Ltda',
      cnpj: '12.345.678/0001-90',
      email: 'contato@loja-sandbox.example',
      dataContrato: '2024-01-02',
    },
  };
}

/** What a newly opened account adds: its default warehouse, operation natures, cash account, (sandbox) online store and carrier. */
export function addFreshConfiguration(state: EmulatorState): void {
  state.depositos.push({ id: systemBlock + 31, descricao: 'Geral', situacao: 1, padrao: true, desconsiderarSaldo: false });
  state.naturezasOperacoes.push(
    { id: systemBlock + 41, situacao: 1, padrao: 1, descricao: 'Venda de mercadoria' },
    { id: systemBlock + 42, situacao: 1, padrao: 2, descricao: 'Compra de Mercadoria' },
    { id: systemBlock + 43, situacao: 1, padrao: 8, descricao: 'Devolução de venda' },
    { id: systemBlock + 44, situacao: 1, padrao: 0, descricao: 'Prestação de serviço' },
  );
  state.contasContabeis.push({ id: systemBlock + 51, descricao: 'Caixa', tipo: 'caixa', aliasIntegracao: '', situacao: 1, invisivel: false });
  // Inference: a new account has no sales channel until one is integrated; the sandbox gives it
  // one online store, so that store category links (which name a channel) can be tried in it.
  state.canaisVenda.push({ id: systemBlock + 61, descricao: 'Loja Virtual', tipo: 'LojaIntegrada', situacao: 1, agrupador: 1, filiais: [] });
  // Inference: the sandbox gives the account one carrier contact, so that a logistics service
  // can name its carrier (`transportador`) by the contact's name.
  state.contatos.push({ id: systemBlock + 71, nome: 'Transportadora Expressa Ltda', codigo: 'TRANSP-1', situacao: 'A', numeroDocumento: '98765432000110', idsTiposContatos: [systemBlock + 23] });
}
