// The four money and catalogue kinds through the real pipeline (manifests → plan → apply on a
// fresh sandbox): one apply converges, so planning again finds nothing to do.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

const manifest = `version: 1
formasPagamentos:
  - descricao: PIX Dinâmico
    tipoPagamento: pix-dinamico
    finalidade: recebimentos
    destino: caixa-e-bancos
    padrao: padrao
    taxas: { aliquota: 0.99 }
  - descricao: Cartão Elo
    tipoPagamento: cartao-credito
    finalidade: recebimentos
    destino: contas
    condicao: 1x 2x 3x
    dadosCartao: { bandeira: elo, tipo: pos, cnpjCredenciadora: 12.345.678/0001-95 }
  - descricao: Boleto
    previousNames: [Boleto bancário]
    tipoPagamento: boleto
    finalidade: recebimentos
    destino: contas
    juros: 1
    multa: 2
  - descricao: Cartão de débito
    ensure: absent
categoriasReceitasDespesas:
  - descricao: Marketing digital
    tipo: despesa
    grupoDRE: despesas-operacionais
  - descricao: Anúncios
    tipo: despesa
    categoriaPai: Marketing digital
  - descricao: Aluguel da loja
    previousNames: [Aluguel]
    tipo: despesa
    categoriaPai: Despesas administrativas
  - descricao: Internet
    categoriaPai: Despesas administrativas
    ensure: absent
categoriasProdutos:
  - descricao: Roupas
  - descricao: Camisetas
    categoriaPai: Roupas
  - descricao: Manga longa
    categoriaPai: Roupas > Camisetas
gruposProdutos:
  - nome: Moda
  - nome: Feminino
    grupoProdutoPai: Moda
  - nome: Vestidos
    grupoProdutoPai: Feminino
`;

let dir: string | undefined;

afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

it('applies creates, renames, a default, card data and tombstones once; the next plan is empty', async () => {
  dir = await mkdtemp(join(tmpdir(), 'erpsync-round-trip-'));
  await writeFile(join(dir, 'manifest.yaml'), manifest);
  const sandbox = ['--sandbox', '--sandbox-state', '.erpsync/state.json'];
  const apply = await runCli(['apply', 'manifest.yaml', '--auto-approve', ...sandbox], { cwd: dir, env: {} });
  expect(apply.stderr).toBe('');
  expect(apply.code).toBe(0);
  const replan = await runCli(['plan', 'manifest.yaml', '--detailed-exitcode', ...sandbox], { cwd: dir, env: {} });
  expect(replan.stderr).toBe('');
  expect(replan.code).toBe(0);
});
