// Seeded property: for random valid manifests over a fresh account, apply converges in one run
// (a re-plan is empty) and a second apply sends zero write requests (checked on the emulator's
// own request log). The seed of a failing case is in the test name, so any failure replays.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { runCli } from '../support/run-cli.js';

function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const words = ['Cabelos', 'Pele', 'Unhas', 'Perfumes', 'Kits', 'Óleos', 'Máscaras', 'Séruns', 'Batons', 'Sabonetes', 'Cremes', 'Esmaltes'];

function generateManifest(seed: number): string {
  const random = createRandom(seed);
  const pick = <T,>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const lines = ['version: 1'];

  const tree = (key: string, nameField: string, parentField: string, count: number): string[] => {
    lines.push(`${key}:`);
    const made: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const name = `${pick(words)} ${seed}-${i}`;
      const parent = made.length > 0 && random() < 0.5 ? pick(made) : undefined;
      lines.push(`  - ${nameField}: "${name}"`);
      if (parent) lines.push(`    ${parentField}: "${parent}"`);
      made.push(name);
    }
    return made;
  };
  tree('gruposProdutos', 'nome', 'grupoProdutoPai', 1 + Math.floor(random() * 6));
  const categoryNames = tree('categoriasProdutos', 'descricao', 'categoriaPai', 1 + Math.floor(random() * 5));

  lines.push('categoriasReceitasDespesas:');
  for (let i = 0; i < 1 + Math.floor(random() * 4); i += 1) {
    // A subcategory takes its parent's tipo.
    const [parent, tipo] = pick([['Despesas administrativas', 'despesa'], ['Despesas comerciais', 'despesa'], ['Vendas de produtos', 'receita']] as const);
    lines.push(`  - descricao: "${pick(words)} ${seed}-${i}"`, `    categoriaPai: ${parent}`, `    tipo: ${tipo}`);
  }

  lines.push('formasPagamentos:');
  for (let i = 0; i < 1 + Math.floor(random() * 3); i += 1) {
    lines.push(`  - descricao: "Forma ${seed}-${i}"`, `    tipoPagamento: ${pick(['pix-dinamico', 'boleto', 'dinheiro', 'deposito-bancario'])}`);
    lines.push(`    finalidade: ${pick(['pagamentos', 'recebimentos', 'pagamentos-e-recebimentos'])}`, `    destino: ${pick(['contas', 'caixa-e-bancos'])}`);
    if (random() < 0.5) lines.push(`    juros: ${Math.round(random() * 500) / 100}`);
  }

  lines.push('situacoes:');
  lines.push(`  - modulo: Vendas`, `    nome: "Etapa ${seed}"`, `    cor: "#${Math.floor(random() * 0xffffff).toString(16).padStart(6, '0')}"`, `    herdado: ${pick(['Em aberto', 'Em andamento', 'Atendido'])}`);

  // The newer kinds: transitions to and from the new situation (actions by name), warehouses
  // (the default sometimes moved), a store link for one of the categories, the NFS-e nature by name,
  // and custom fields.
  const actions = ['Lançar estoque', 'Estornar estoque', 'Lançar contas', 'Estornar contas'];
  lines.push('transicoes:', `  - modulo: Vendas`, `    de: ${pick(['Em aberto', 'Em andamento'])}`, `    para: "Etapa ${seed}"`);
  lines.push(`  - modulo: Vendas`, `    de: "Etapa ${seed}"`, `    para: ${pick(['Atendido', 'Cancelado'])}`, `    acoes: [${actions.filter(() => random() < 0.5).join(', ')}]`, `    ativo: ${random() < 0.8}`);
  const movesDefault = random() < 0.5;
  lines.push('depositos:', `  - descricao: Geral`, `    padrao: ${!movesDefault}`);
  for (let i = 0; i < 1 + Math.floor(random() * 2); i += 1) {
    lines.push(`  - descricao: "Depósito ${seed}-${i}"`, `    desconsiderarSaldo: ${random() < 0.5}`, ...(movesDefault && i === 0 ? ['    padrao: true'] : []));
  }
  const linked = categoryNames[Math.floor(random() * categoryNames.length)];
  lines.push('categoriasLojas:', `  - loja: Loja Virtual`, `    categoriaProduto: "${linked}"`, `    descricao: "${linked} na loja"`, `    codigo: "${seed}"`);
  lines.push('configuracoesNfse:', '  basicas:', `    naturezaOperacao: ${pick(['Prestação de serviço', 'Venda de mercadoria'])}`);
  // Custom fields: a list field on products grouped by categories, a
  // text field on contacts grouped by contact types, sometimes inactive or with size limits.
  const options = words.filter(() => random() < 0.3);
  lines.push('camposCustomizados:', `  - modulo: Produtos`, `    nome: "Campo ${seed}"`, `    tipoCampo: Lista`, `    opcoes: [${(options.length > 0 ? options : ['Único']).join(', ')}]`);
  lines.push(`    obrigatorio: ${random() < 0.5}`, `    agrupadores:`, `      categoriasProdutos: [${categoryNames.filter(() => random() < 0.5).map((c) => `"${c}"`).join(', ')}]`);
  lines.push(`  - modulo: Clientes e Fornecedores`, `    nome: "Observação ${seed}"`, `    tipoCampo: ${pick(['Texto', 'Inteiro', 'Data'])}`, `    situacao: ${pick(['ativo', 'inativo'])}`);
  if (random() < 0.5) lines.push(`    tamanho: { minimo: ${Math.floor(random() * 3)}, maximo: ${10 + Math.floor(random() * 50)} }`);
  lines.push(`    agrupadores:`, `      tiposContatos: [${['Cliente', 'Fornecedor', 'Transportador'].filter(() => random() < 0.6).join(', ')}]`);
  return `${lines.join('\n')}\n`;
}

const writePaths = (emulator: Emulator) =>
  Object.entries(emulator.counters())
    .filter(([route]) => !route.startsWith('GET '))
    .reduce((n, [, count]) => n + count, 0);

describe('random manifests over a fresh account', () => {
  let emulator: Emulator | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await emulator?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each([1, 2, 3, 4, 5, 6, 7, 8])('seed %i: apply converges and a second apply writes nothing', async (seed) => {
    emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
    dir = mkdtempSync(path.join(tmpdir(), 'erpsync-property-'));
    writeFileSync(path.join(dir, 'manifest.yaml'), generateManifest(seed));
    const env = { BLING_ACCESS_TOKEN: emulator.token, ERPSYNC_BASE_URL: emulator.baseUrl, ERPSYNC_RATE: '1000' };

    const first = await runCli(['apply', 'manifest.yaml', '--auto-approve'], { cwd: dir, env });
    expect(first.stderr).toBe('');
    expect(first.stdout).not.toContain('not converged');
    expect(first.code, first.stdout).toBe(0);

    const replan = await runCli(['plan', 'manifest.yaml', '--detailed-exitcode'], { cwd: dir, env });
    expect(replan.stdout).toContain('No changes');
    expect(replan.code).toBe(0);

    emulator.clearLog();
    const second = await runCli(['apply', 'manifest.yaml', '--auto-approve'], { cwd: dir, env });
    expect(second.code).toBe(0);
    expect(writePaths(emulator)).toBe(0);
  });
});
