// The example store and what it finds in the account before it runs, shared by the chaos and
// crash suites: its own older state (renames, changed fields, a service to retire) and records of
// the same kinds that it does not declare (which must stay as they are).
import path from 'node:path';

export const example = path.resolve(import.meta.dirname, '../../../examples/loja-nova');

/** The example's one secret variable. */
export const exampleEnv = { NFSE_SENHA_PREFEITURA: 'senha-da-prefeitura' };

export const lojaNovaBefore = `version: 1
formasPagamentos:
  - { descricao: Cheque, tipoPagamento: cheque, finalidade: recebimentos, destino: contas }
  - { descricao: Boleto bancário, tipoPagamento: boleto, finalidade: recebimentos, destino: contas, juros: 5 }
  - { descricao: Crediário da loja, tipoPagamento: credito-loja, finalidade: recebimentos, destino: ficha-financeira }
categoriasReceitasDespesas:
  - { descricao: Vendas online, tipo: receita, categoriaPai: Vendas de produtos }
  - { descricao: Fretes pagos, tipo: despesa, categoriaPai: Despesas comerciais }
categoriasProdutos:
  - { descricao: Maquiagem }
  - { descricao: Acessórios }
gruposProdutos:
  - { nome: Revenda }
  - { nome: Liquidação }
  - { nome: Verão, grupoProdutoPai: Liquidação }
situacoes:
  - { modulo: Vendas, nome: Separando pedido, herdado: Em andamento, cor: "#000000" }
  - { modulo: Vendas, nome: Aguardando retirada, herdado: Em andamento, cor: "#123456" }
logisticas:
  - descricao: Entrega própria
    situacao: habilitada
    servicos:
      - { codigo: MOTO-SABADO, descricao: Motoboy de sábado, freteItem: 6, estimativaEntrega: 1 }
      - { codigo: MOTO-EXPRESSA, descricao: Motoboy, freteItem: 9, estimativaEntrega: 2 }
`;
